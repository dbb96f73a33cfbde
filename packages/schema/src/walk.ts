// Walking data and its schema together.

interface Node {
  properties?: Record<string, Node>;
  items?: Node;
}

/**
 * A copy of `data` without the keys the schema names whose value is null: in YAML `model:` with
 * nothing under it is null, and means "not set" like an absent key. Other nulls (a list item, a
 * free-form mapping's value) are kept, for the schema to judge.
 */
export function dropNulls(data: unknown, schema: object): unknown {
  const s = schema as Node;
  if (Array.isArray(data)) return s.items === undefined ? data : data.map((d) => dropNulls(d, s.items ?? {}));
  if (data === null || typeof data !== "object" || s.properties === undefined) return data;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) {
    const child = Object.hasOwn(s.properties, k) ? s.properties[k] : undefined;
    if (child !== undefined && v === null) continue;
    out[k] = child === undefined ? v : dropNulls(v, child);
  }
  return out;
}

/** The keys the schema allows at `path` (names of nested properties; `[]` steps into list items). */
export function schemaKeys(schema: object, path: readonly string[] = []): string[] {
  let s: Node | undefined = schema;
  for (const part of path) s = part === "[]" ? s?.items : s?.properties?.[part];
  return Object.keys(s?.properties ?? {});
}
