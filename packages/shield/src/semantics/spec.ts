// What a tool's arguments mean to the Shield: its kind, and which arguments hold paths, commands,
// URLs, recipients and text that leaves the machine (tools.ts reads it from data).

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
  /** Argument keys holding e-mail recipients. */
  recipients?: string[];
  /** Argument keys holding URLs or hosts the tool contacts. */
  urls?: string[];
  /** Argument keys holding shell command lines. */
  commands?: string[];
  /** Argument key holding the HTTP method (default `method`). */
  method?: string;
  /**
   * The method when the call names none: `POST` for a tool whose arguments carry content out
   * (`post_webpage {url, content}`), else `GET`.
   */
  defaultMethod?: "GET" | "POST";
  /** Where the semantics came from. */
  source?: "declared" | "inferred" | "builtin" | "none";
}
