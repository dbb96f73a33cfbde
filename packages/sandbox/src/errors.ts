/** String codes of sandbox failures. */
export type SandboxErrorCode = "invalid_spec" | "unavailable" | "launch" | "proxy";

/** Base class of the family: a code, a message saying what and how to fix, and the cause. */
export class SandboxError extends Error {
  readonly code: SandboxErrorCode;

  constructor(code: SandboxErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
  }
}
