/**
 * Models often send `null` for an optional argument they mean to leave out. Where the tool's
 * schema does not allow null there, the argument is dropped (as if omitted) rather than failing
 * the call; a required argument, or one whose schema accepts null, is left as it is.
 */
export function withoutNullOptionals(schema: Record<string, unknown>, args: unknown): unknown {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return args;
  const props = (schema.properties ?? {}) as Record<string, unknown>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as unknown[]) : []);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args as Record<string, unknown>)) {
    if (v === null && !required.has(k) && Object.hasOwn(props, k) && !acceptsNull(props[k])) continue;
    out[k] = v;
  }
  return out;
}

function acceptsNull(s: unknown): boolean {
  if (typeof s !== "object" || s === null) return true;
  const o = s as Record<string, unknown>;
  if (
    o.type === undefined &&
    o.anyOf === undefined &&
    o.oneOf === undefined &&
    o.enum === undefined &&
    o.const === undefined
  )
    return true;
  if (o.type === "null" || (Array.isArray(o.type) && o.type.includes("null"))) return true;
  if (Array.isArray(o.enum) && o.enum.includes(null)) return true;
  if (o.const === null) return true;
  for (const alt of [...(Array.isArray(o.anyOf) ? o.anyOf : []), ...(Array.isArray(o.oneOf) ? o.oneOf : [])])
    if (acceptsNull(alt)) return true;
  return false;
}
