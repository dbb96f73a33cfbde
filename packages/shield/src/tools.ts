/**
 * What a tool's arguments mean (a ToolSpec), from data: a declared `semantics:` block, else the
 * tool's JSON Schema, else the built-in defaults below (used only when the caller passes neither,
 * e.g. the stand-alone CLI; the Engine passes the semantics from each tool's manifest).
 */
import { inferSemantics } from "./semantics/infer.js";
import { parseSemantics } from "./semantics/parse.js";
import type { PathOp, ToolSpec } from "./semantics/spec.js";

export type { PathOp, ToolKind, ToolSpec } from "./semantics/spec.js";

const read = (...keys: string[]): Record<string, PathOp> => Object.fromEntries(keys.map((k) => [k, "read" as const]));

export const KNOWN_TOOLS: Readonly<Record<string, ToolSpec>> = {
  files__read_file: { kind: "file-read", paths: read("path") },
  files__list_directory: { kind: "file-read", paths: read("path") },
  files__search_files: { kind: "file-read", paths: read("path") },
  files__grep_files: { kind: "file-read", paths: read("path") },
  files__write_file: { kind: "file-write", paths: { path: "write" } },
  files__delete_file: { kind: "file-delete", paths: { path: "delete" } },
  files__move_file: { kind: "file-move", paths: { source: "delete", destination: "write" } },
  files__copy_file: { kind: "file-copy", paths: { source: "read", destination: "write" } },
  shell__execute_command: { kind: "shell", paths: { cwd: "exec" }, commands: ["command"] },
  http__http_request: {
    kind: "http",
    paths: {},
    urls: ["url"],
    outgoing: ["url", "headers", "body"],
    method: "method",
  },
  mail__send_email: {
    kind: "mail",
    paths: {},
    recipients: ["to", "cc"],
    modelFacing: ["subject", "body"],
    outgoing: ["to", "cc", "subject", "body", "attachments"],
  },
  documents__create_pdf: {
    kind: "document-write",
    paths: { path: "write", output: "write", output_path: "write", filename: "write" },
  },
  documents__read_pdf: { kind: "document-read", paths: read("path", "file") },
  spawn_agent: { kind: "spawn-agent", paths: {}, modelFacing: ["task"], outgoing: ["task"] },
  agent_message: { kind: "agent-message", paths: {}, modelFacing: ["message"], outgoing: ["message"] },
  agent_status: { kind: "agent-control", paths: {} },
  agent_result: { kind: "agent-control", paths: {} },
  cancel_agent: { kind: "agent-control", paths: {} },
  list_agents: { kind: "agent-control", paths: {} },
  load_tools: { kind: "load-tools", paths: {} },
};

/** Keys that hold paths in third-party tools' arguments. */
export const GENERIC_PATH_KEYS: Readonly<Record<string, PathOp>> = {
  path: "unknown",
  paths: "unknown",
  file: "unknown",
  files: "unknown",
  filename: "unknown",
  file_path: "unknown",
  filepath: "unknown",
  source: "read",
  src: "read",
  destination: "write",
  dest: "write",
  dst: "write",
  target: "unknown",
  directory: "unknown",
  dir: "unknown",
  cwd: "exec",
  output: "write",
  output_path: "write",
  input: "read",
  input_path: "read",
  root: "unknown",
  location: "unknown",
};

/** Keys whose values are URLs the tool will contact. */
export const URL_KEYS = new Set([
  "url",
  "uri",
  "endpoint",
  "href",
  "link",
  "webhook",
  "webhook_url",
  "callback",
  "callback_url",
  "base_url",
  "host",
  "server",
  "address",
  "target_url",
  "image_url",
]);

const GENERIC: ToolSpec = {
  kind: "third-party",
  paths: GENERIC_PATH_KEYS,
  modelFacing: [],
  outgoing: [],
  source: "none",
};
const declaredMemo = new WeakMap<object, ToolSpec>();

/**
 * The semantics of a tool for one call: declared (parsed, memoized per block; an invalid block
 * throws, which the Shield turns into a block), else inferred from the schema, else built-in,
 * else unknown ("third-party": generic path keys, every string counts as outgoing). The tool's
 * description and name help the inference say what a path argument is for.
 */
export function toolSpec(tool: string, declared?: unknown, schema?: unknown, description?: string): ToolSpec {
  if (declared !== undefined && declared !== null) {
    if (typeof declared === "object") {
      let spec = declaredMemo.get(declared);
      if (spec === undefined) {
        spec = parseSemantics(declared);
        declaredMemo.set(declared, spec);
      }
      return spec;
    }
    return parseSemantics(declared);
  }
  // Own properties only: a tool called "constructor" or "__proto__" is a third-party tool.
  const known = Object.hasOwn(KNOWN_TOOLS, tool) ? KNOWN_TOOLS[tool] : undefined;
  if (schema !== undefined) {
    const inferred = inferSemantics(schema, { toolName: tool, ...(description !== undefined ? { description } : {}) });
    if (inferred !== undefined && known === undefined) return inferred;
  }
  return known ?? GENERIC;
}
