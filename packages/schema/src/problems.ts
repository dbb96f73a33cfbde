// The one place where ajv's errors become what a user reads: the field's path, what it must be
// and what it is, the line and column when the data came from YAML, and for an unknown key the
// keys allowed there (with the likely one, when a key is a near miss).
import type { ErrorObject } from "ajv";
import type { DataPath, Position, YamlSyntaxProblem } from "./yaml.js";

export interface SchemaProblem {
  /** Dotted path, e.g. `store.pool` or `capabilities[2].id`; empty for the whole document. */
  path: string;
  message: string;
  line?: number;
  col?: number;
}

/**
 * Schema annotations read here (declared to ajv as annotations, see standalone.ts):
 * - `x-message`: what the value must be, in words (`must be a list of paths`), used for any error
 *   of that node instead of ajv's wording;
 * - `x-required`: the message when the field is missing (`is required: postgres://…`).
 */
interface Annotated {
  "x-message"?: string;
  "x-required"?: string;
  type?: string | string[];
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  enum?: unknown[];
  properties?: Record<string, Annotated>;
}

export interface ProblemOptions {
  /** Prefix of every path (`capabilities[3]`). */
  base?: string;
  /** Where a data path is written (YamlFile.locate); relative to the document, not to `base`. */
  locate?: (path: DataPath, key?: boolean) => Position | undefined;
  /** Data path of the validated value inside the document, when it is not the whole document. */
  at?: DataPath;
}

/** Readable problems for ajv's errors (compiled with `allErrors` and `verbose`), one per distinct path and message. */
export function schemaProblems(
  errors: readonly ErrorObject[] | null | undefined,
  options: ProblemOptions = {},
): SchemaProblem[] {
  const out: SchemaProblem[] = [];
  const seen = new Set<string>();
  for (const e of errors ?? []) {
    const p = problemOf(e, options);
    const id = `${p.path}\0${p.message}`;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(p);
  }
  return out;
}

function problemOf(e: ErrorObject, options: ProblemOptions): SchemaProblem {
  const data = [...(options.at ?? []), ...pointerParts(e.instancePath)];
  const schema = (e.parentSchema ?? {}) as Annotated;
  const params = e.params as Record<string, unknown>;
  const where = (path: DataPath, key = false): Partial<Position> => options.locate?.(path, key) ?? {};
  const base = options.base ?? "";
  const path = pathOf(pointerParts(e.instancePath), base);
  switch (e.keyword) {
    case "additionalProperties": {
      const key = String(params.additionalProperty);
      const allowed = Object.keys(schema.properties ?? {});
      const near = didYouMean(key, allowed);
      return {
        path: join(path, key),
        message: `unknown key; allowed here: ${allowed.join(", ")}${near === undefined ? "" : `; did you mean ${near}?`}`,
        ...where([...data, key], true),
      };
    }
    case "required": {
      const key = String(params.missingProperty);
      const child = schema.properties?.[key];
      return { path: join(path, key), message: child?.["x-required"] ?? "is required", ...where(data) };
    }
    default:
      return { path, message: `${mustBe(e, schema)}, got ${describeValue(e.data)}`, ...where(data) };
  }
}

/** What the value must be: the schema's own words, else from its type, bounds or allowed values. */
function mustBe(e: ErrorObject, schema: Annotated): string {
  if (schema["x-message"] !== undefined) return schema["x-message"];
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  if (e.keyword === "enum" || (schema.enum !== undefined && e.keyword === "type"))
    return `must be ${orList((schema.enum ?? []).map((v) => (typeof v === "string" ? v : JSON.stringify(v))))}`;
  if (types.some((t) => t === "number" || t === "integer")) {
    const what = types.includes("integer") ? "an integer" : "a number";
    const bounds = [
      schema.minimum !== undefined ? `>= ${schema.minimum}` : "",
      schema.exclusiveMinimum !== undefined ? `> ${schema.exclusiveMinimum}` : "",
      schema.maximum !== undefined ? `<= ${schema.maximum}` : "",
    ].filter(Boolean);
    return `must be ${what}${bounds.length > 0 ? ` ${bounds.join(" and ")}` : ""}`;
  }
  if (e.keyword === "type") return `must be ${orList(types.map(typeWords))}`;
  const limit = (e.params as { limit?: unknown }).limit;
  if (e.keyword === "minLength" && limit === 1) return "must not be empty";
  if (e.keyword === "minItems" && typeof limit === "number")
    return `must list at least ${limit === 1 ? "one item" : `${limit} items`}`;
  return e.message ?? `must satisfy ${e.keyword}`;
}

function typeWords(t: string): string {
  return { boolean: "true or false", object: "a mapping", array: "a list", string: "a string", null: "empty" }[t] ?? t;
}

function orList(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} or ${items[items.length - 1] ?? ""}`;
}

/** A value as a message shows it: `"ten"`, `number 0`, `a list`, `a mapping`. */
export function describeValue(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "string") return JSON.stringify(v.length > 40 ? v.slice(0, 40) + "…" : v);
  if (typeof v === "number" || typeof v === "boolean") return `${typeof v} ${v}`;
  return typeof v === "object" ? "a mapping" : typeof v;
}

/** The allowed key `key` most likely meant: same letters ignoring case, `_` and `-`, or one or two edits away. */
export function didYouMean(key: string, allowed: readonly string[]): string | undefined {
  const flat = (s: string): string => s.toLowerCase().replace(/[_-]/g, "");
  const same = allowed.find((a) => flat(a) === flat(key));
  if (same !== undefined) return same;
  let best: { name: string; d: number } | undefined;
  for (const a of allowed) {
    const d = editDistance(flat(a), flat(key));
    if (d <= Math.min(2, Math.floor(flat(key).length / 3)) && (best === undefined || d < best.d)) best = { name: a, d };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(
        (prev[j] ?? 0) + 1,
        (row[j - 1] ?? 0) + 1,
        (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    prev = row;
  }
  return prev[b.length] ?? 0;
}

/** `/tools/1/name` → `["tools", 1, "name"]`. */
export function pointerParts(pointer: string): (string | number)[] {
  if (pointer === "") return [];
  return pointer
    .split("/")
    .slice(1)
    .map((raw) => {
      const part = raw.replace(/~1/g, "/").replace(/~0/g, "~");
      return /^\d+$/.test(part) ? Number(part) : part;
    });
}

/** `tools[1].name` → `["tools", 1, "name"]` (the inverse of pathOf, for keys without dots or brackets). */
export function pathParts(path: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const m of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) out.push(m[2] !== undefined ? Number(m[2]) : (m[1] ?? ""));
  return out;
}

/** `["tools", 1, "name"]` → `tools[1].name`, after `base`. */
export function pathOf(parts: DataPath, base = ""): string {
  let out = base;
  for (const part of parts) out = typeof part === "number" ? `${out}[${part}]` : join(out, part);
  return out;
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

/** A problem of a file, as config.yaml, capability manifests and policies all report them. */
export interface FileProblem extends SchemaProblem {
  file: string;
}

/**
 * How every problem of a file reads: `config.yaml: store.pool: must be an integer >= 1, got "ten"
 * (line 4, column 9)`; without a path (the whole file) `policy.yaml: YAML syntax error: … (line 7, column 1)`.
 */
export function formatProblem(p: FileProblem): string {
  const at = p.line === undefined ? "" : ` (line ${p.line}, column ${p.col ?? 1})`;
  return `${p.file}: ${p.path ? `${p.path}: ` : ""}${p.message}${at}`;
}

/**
 * A tool call's argument problems as the model (or the person calling it) reads them, in the
 * same wording: `files__read_file: arguments.path: must be a string, got number 3`.
 */
export function argumentProblems(tool: string, errors: readonly ErrorObject[] | null | undefined): string[] {
  return schemaProblems(errors, { base: "arguments" }).map((p) => formatProblem({ file: tool, ...p }));
}

/** The syntax errors of a YAML file as problems of the whole file, each at its line and column. */
export function syntaxProblems(file: string, errors: readonly YamlSyntaxProblem[]): FileProblem[] {
  return errors.map((e) => ({ file, path: "", message: `YAML syntax error: ${e.message}`, line: e.line, col: e.col }));
}
