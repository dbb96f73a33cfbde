/** Codes an Agent turn can end with (AgentError.code on the wire). */
export type AgentErrorCode =
  | "LLM_CALL_FAILED"
  | "LLM_TIMEOUT"
  | "RATE_LIMITED"
  | "CONTEXT_TOO_LONG"
  | "STREAM_ERROR"
  | "CONTEXT_FAILED"
  | "CANCELLED"
  | "PROTOCOL_ERROR"
  | "INTERNAL";

/** A failure that ends a turn; becomes AgentError{code, message, recoverable}. */
export class AgentFailure extends Error {
  readonly code: AgentErrorCode;
  readonly recoverable: boolean;

  constructor(code: AgentErrorCode, message: string, options: { recoverable?: boolean; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.recoverable = options.recoverable ?? true;
  }
}

/** Invalid Agent settings (environment); the process refuses to start. */
export class AgentConfigError extends Error {
  readonly problems: string[];

  constructor(problems: string[]) {
    super(`invalid Agent settings:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = new.target.name;
    this.problems = problems;
  }
}
