// Typed errors of the Engine. Codes are strings locally and gRPC statuses on the wire.

export class EngineError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
  }
}

export interface ConfigIssue {
  file: string;
  /** Dotted path of the field, e.g. `model.base_url` or `capabilities[2].id`. */
  path: string;
  message: string;
}

/** Invalid configuration: every problem, each with its file and field. */
export class ConfigError extends EngineError {
  readonly issues: readonly ConfigIssue[];
  constructor(issues: readonly ConfigIssue[]) {
    const lines = issues.map((i) => `  ${i.file}: ${i.path || "(root)"}: ${i.message}`);
    super(
      "CONFIG_INVALID",
      `invalid configuration (${issues.length} problem${issues.length === 1 ? "" : "s"}):\n${lines.join("\n")}`,
    );
    this.issues = issues;
  }
}

export class AgentUnavailableError extends EngineError {
  constructor(message: string) {
    super("AGENT_UNAVAILABLE", message);
  }
}
