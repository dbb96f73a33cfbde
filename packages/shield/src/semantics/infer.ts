/**
 * Tool semantics inferred from a JSON Schema: property names (`to`, `cc`, `recipients`, `url`,
 * `endpoint`, `path`, `command`, ...), `format` (`email`, `uri`) and descriptions, the tool's own
 * description and the verb of its name (`read_file`) included. Used for tools nobody declared
 * semantics for, so recipients, hosts and paths of a third-party tool are seen (and
 * `email_domains` / `hosts` rules apply to it) without knowing it by name.
 */
import type { PathOp, ToolSpec } from "./spec.js";

const RECIPIENT =
  /^(to|cc|bcc|recipients?|emails?|email_?addresses|addresses|send_?to|to_?address(es)?|reply_?to|recipient_?emails?)$/i;
const URL_NAME =
  /^(url|uri|urls|endpoint|href|link|webhook(_?url)?|callback(_?url)?|base_?url|target_?url|image_?url|api_?url|request_?url|server_?url)$/i;
const COMMAND = /^(command|cmd|script|shell|commands|shell_?command|command_?line)$/i;
const METHOD = /^(method|verb|http_?method|request_?method)$/i;
const PATH =
  /^(path|paths|file|files|filename|file_?path|filepath|file_?name|source|src|source_?path|destination|dest|dst|destination_?path|directory|dir|folder|cwd|working_?dir(ectory)?|output|output_?path|output_?file|input_?path|input_?file|root|location)$/i;
const TEXT =
  /^(body|content|contents|text|message|html|html_?body|text_?body|subject|title|summary|note|comment|description)$/i;
const DATA = /^(body|payload|data|json|form|headers|content|params|query)$/i;
/** Content a request sends, as opposed to headers or query parameters a GET also has. */
const CARRIED =
  /^(body|payload|data|json|form|content|contents|text|message|html|html_?body|text_?body|note|comment)$/i;
const EMAIL_FORMAT = /^(idn-)?email$/;
const URL_FORMAT = /^(uri|url|iri|uri-reference|iri-reference)$/;

type Schema = Record<string, unknown>;

function formatOf(d: Schema): string {
  const items = d["items"];
  const f = d["format"] ?? (items !== null && typeof items === "object" ? (items as Schema)["format"] : undefined);
  const alts = [
    ...(Array.isArray(d["oneOf"]) ? d["oneOf"] : []),
    ...(Array.isArray(d["anyOf"]) ? d["anyOf"] : []),
  ] as unknown[];
  if (typeof f === "string") return f;
  for (const a of alts)
    if (a !== null && typeof a === "object") {
      const g = formatOf(a as Schema);
      if (g !== "") return g;
    }
  return "";
}

const WRITES =
  /\b(write|writes|save|saves|create|creates|overwrite|overwrites|append|appends|edit|edits|modify|modifies|update|updates|move|moves|rename|renames)\b/;
const DELETES = /\b(delete|deletes|remove|removes)\b/;
const READS = /\b(read|reads|open|opens|list|lists|view|views|get|gets|show|shows|search|searches|stat)\b/;

/**
 * What the text says is done with a path: a write or a delete wins over a read (a description
 * naming both may do both), nothing found is unknown.
 */
function effectIn(text: string): PathOp {
  if (WRITES.test(text)) return "write";
  if (DELETES.test(text)) return "delete";
  if (READS.test(text)) return "read";
  return "unknown";
}

/**
 * From the path argument's name, else from what the argument and the tool say (its schema's
 * description, its description, the words of its name: `read_text_file`, `deleteFile`).
 */
function pathOp(name: string, desc: string): PathOp {
  if (/^(source|src|input)/i.test(name)) return "read";
  if (/^(dest|dst|destination|output)/i.test(name)) return "write";
  if (/^cwd|working/i.test(name)) return "exec";
  return effectIn(desc);
}

/** A tool name's words, without its capability's: `fs__read_text_file` → "read text file", `getFileInfo` → "get file info". */
function nameWords(toolName: string): string {
  return (toolName.split("__").pop() ?? "")
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_\-.]+/g, " ")
    .toLowerCase();
}

const memo = new WeakMap<object, Map<string, ToolSpec | null>>();

/**
 * The semantics a schema implies, or undefined when it names nothing the Shield understands.
 * `about` is what else the tool says of itself: its description and its name.
 */
export function inferSemantics(
  schema: unknown,
  about: { description?: string; toolName?: string } = {},
): ToolSpec | undefined {
  if (schema === null || typeof schema !== "object") return undefined;
  const key = `${about.toolName ?? ""}\0${about.description ?? ""}`;
  let byTool = memo.get(schema);
  const hit = byTool?.get(key);
  if (hit !== undefined) return hit ?? undefined;
  const spec = infer(schema as Schema, about);
  if (!byTool) memo.set(schema, (byTool = new Map()));
  // a schema shared by many tools keeps a bounded memo
  if (byTool.size >= 64) byTool.clear();
  byTool.set(key, spec ?? null);
  return spec;
}

function infer(schema: Schema, about: { description?: string; toolName?: string }): ToolSpec | undefined {
  const props = schema["properties"];
  if (props === null || typeof props !== "object" || Array.isArray(props)) return undefined;
  const recipients: string[] = [];
  const urls: string[] = [];
  const commands: string[] = [];
  const paths: Record<string, PathOp> = {};
  const texts: string[] = [];
  const data: string[] = [];
  let method: string | undefined;
  const toolDesc = [
    typeof schema["description"] === "string" ? schema["description"] : "",
    about.description ?? "",
    about.toolName !== undefined ? nameWords(about.toolName) : "",
  ]
    .join(" ")
    .toLowerCase();
  for (const [name, raw] of Object.entries(props as Record<string, unknown>)) {
    const d = (raw !== null && typeof raw === "object" ? raw : {}) as Schema;
    const fmt = formatOf(d);
    const desc = `${typeof d["description"] === "string" ? d["description"].toLowerCase() : ""}`;
    if (RECIPIENT.test(name) || EMAIL_FORMAT.test(fmt) || /\b(recipient|e-?mail address)/.test(desc))
      recipients.push(name);
    else if (URL_NAME.test(name) || URL_FORMAT.test(fmt) || /\burl\b/.test(desc)) urls.push(name);
    else if (COMMAND.test(name) || /\bshell command\b|\bcommand line\b/.test(desc)) commands.push(name);
    else if (METHOD.test(name)) method = name;
    else if (PATH.test(name) || /\b(file|directory|folder) ?path\b/.test(desc))
      paths[name] = pathOp(name, `${desc} ${toolDesc}`);
    if (TEXT.test(name)) texts.push(name);
    if (DATA.test(name)) data.push(name);
  }
  const base = {
    recipients,
    urls,
    commands,
    paths,
    source: "inferred" as const,
    ...(method !== undefined ? { method } : {}),
  };
  if (recipients.length > 0)
    return { ...base, kind: "mail", outgoing: [...recipients, ...texts, ...Object.keys(paths)], modelFacing: texts };
  if (urls.length > 0) {
    // arguments that carry content out make it a write whatever the (absent) method says
    const carries = method === undefined && [...texts, ...data].some((k) => CARRIED.test(k));
    return {
      ...base,
      kind: "http",
      outgoing: [...new Set([...urls, ...data, ...texts])],
      modelFacing: [],
      ...(carries ? { defaultMethod: "POST" as const } : {}),
    };
  }
  if (commands.length > 0) return { ...base, kind: "shell", outgoing: [], modelFacing: [] };
  if (Object.keys(paths).length > 0) return { ...base, kind: "third-party", outgoing: [], modelFacing: [] };
  return undefined;
}
