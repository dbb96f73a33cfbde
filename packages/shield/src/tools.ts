/** The tools the Shield knows by name, and what their arguments mean. */

export type PathOp = "read" | "write" | "delete" | "exec" | "unknown";

export type ToolKind =
  | "file-read"
  | "file-write"
  | "file-delete"
  | "file-move"
  | "file-copy"
  | "shell"
  | "http"
  | "mail"
  | "document-write"
  | "document-read"
  | "spawn-agent"
  | "agent-message"
  | "agent-control"
  | "load-tools"
  | "third-party";

export interface ToolSpec {
  kind: ToolKind;
  /** Argument keys holding paths, and what the tool does to them. */
  paths: Record<string, PathOp>;
  /** Argument keys whose text reaches another model. */
  modelFacing?: string[];
  /** Argument keys whose content leaves the machine. */
  outgoing?: string[];
}

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
  shell__execute_command: { kind: "shell", paths: { cwd: "exec" } },
  http__http_request: { kind: "http", paths: {}, outgoing: ["url", "headers", "body"] },
  mail__send_email: {
    kind: "mail",
    paths: {},
    modelFacing: ["subject", "body"],
    outgoing: ["to", "cc", "bcc", "subject", "body", "attachments"],
  },
  documents__create_pdf: { kind: "document-write", paths: { path: "write", output: "write", output_path: "write", filename: "write" } },
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
  path: "unknown", paths: "unknown", file: "unknown", files: "unknown", filename: "unknown", file_path: "unknown",
  filepath: "unknown", source: "read", src: "read", destination: "write", dest: "write", dst: "write",
  target: "unknown", directory: "unknown", dir: "unknown", cwd: "exec", output: "write", output_path: "write",
  input: "read", input_path: "read", root: "unknown", location: "unknown",
};

/** Keys whose values are URLs the tool will contact. */
export const URL_KEYS = new Set(["url", "uri", "endpoint", "href", "link", "webhook", "webhook_url", "callback", "callback_url", "base_url", "host", "server", "address", "target_url", "image_url"]);

export function toolSpec(tool: string): ToolSpec {
  // Own properties only: a tool called "constructor" or "__proto__" is a third-party tool.
  const known = Object.hasOwn(KNOWN_TOOLS, tool) ? KNOWN_TOOLS[tool] : undefined;
  return known ?? { kind: "third-party", paths: GENERIC_PATH_KEYS, modelFacing: [], outgoing: [] };
}
