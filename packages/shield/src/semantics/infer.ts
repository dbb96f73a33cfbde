/**
 * Tool semantics inferred from a JSON Schema alone: property names (`to`, `cc`, `recipients`,
 * `url`, `endpoint`, `path`, `command`, ...), `format` (`email`, `uri`) and descriptions. Used for
 * tools nobody declared semantics for, so recipients, hosts and paths of a third-party tool are
 * seen (and `email_domains` / `hosts` rules apply to it) without knowing it by name.
 */
import type { PathOp, ToolSpec } from "../tools.js";

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

function pathOp(name: string, desc: string): PathOp {
  if (/^(source|src|input)/i.test(name)) return "read";
  if (/^(dest|dst|destination|output)/i.test(name)) return "write";
  if (/^cwd|working/i.test(name)) return "exec";
  if (/\b(write|writes|save|saves|create|creates|overwrite|append)\b/.test(desc)) return "write";
  if (/\b(delete|deletes|remove|removes)\b/.test(desc)) return "delete";
  if (/\b(read|reads|open|opens|list|lists|view)\b/.test(desc)) return "read";
  return "unknown";
}

const memo = new WeakMap<object, ToolSpec | null>();

/** The semantics a schema implies, or undefined when it names nothing the Shield understands. */
export function inferSemantics(schema: unknown): ToolSpec | undefined {
  if (schema === null || typeof schema !== "object") return undefined;
  const hit = memo.get(schema);
  if (hit !== undefined) return hit ?? undefined;
  const spec = infer(schema as Schema);
  memo.set(schema, spec ?? null);
  return spec;
}

function infer(schema: Schema): ToolSpec | undefined {
  const props = schema["properties"];
  if (props === null || typeof props !== "object" || Array.isArray(props)) return undefined;
  const recipients: string[] = [];
  const urls: string[] = [];
  const commands: string[] = [];
  const paths: Record<string, PathOp> = {};
  const texts: string[] = [];
  const data: string[] = [];
  let method: string | undefined;
  const toolDesc = typeof schema["description"] === "string" ? schema["description"].toLowerCase() : "";
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
