/** Exit codes of the `palisade` command. */
export const ExitCode = {
  OK: 0,
  FAILURE: 1,
  /** Bad usage, or a command that is not available in this build. */
  USAGE: 2,
  /** Interrupted by the user (Ctrl+C). */
  INTERRUPTED: 130,
} as const;

/** An error the CLI reports as one line (plus an optional hint) and turns into an exit code. */
export class CliError extends Error {
  readonly exitCode: number;
  readonly hint: string | undefined;

  constructor(message: string, options: { exitCode?: number; hint?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.exitCode = options.exitCode ?? ExitCode.FAILURE;
    this.hint = options.hint;
  }
}

/** A usage error: unknown command or flag, missing argument. */
export class UsageError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, { exitCode: ExitCode.USAGE, ...(hint === undefined ? {} : { hint }) });
  }
}
