// Typed errors of the Engine. Codes are strings locally and gRPC statuses on the wire.

export class EngineError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
  }
}

export class AgentUnavailableError extends EngineError {
  constructor(message: string) {
    super("AGENT_UNAVAILABLE", message);
  }
}
