/**
 * A failure the model can act on: its message goes back in `InvokeResponse.error`
 * (or an error chunk) verbatim. Throw it from a handler for expected failures
 * ("file not found: a.txt"); any other exception is reported as `tool <name> failed: ...`.
 */
export class ToolError extends Error {
  readonly code: string;

  constructor(message: string, options?: { code?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options?.code ?? "tool_error";
  }
}

/** A capability definition that cannot be served; `problems` lists every issue with its path. */
export class CapabilityDefinitionError extends Error {
  readonly problems: readonly string[];

  constructor(capabilityId: string, problems: readonly string[]) {
    super(`invalid capability definition "${capabilityId}":\n  - ${problems.join("\n  - ")}`);
    this.name = new.target.name;
    this.problems = problems;
  }
}
