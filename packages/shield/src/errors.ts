/** Base class of every error the Shield raises (outside `evaluate`, which never throws). */
export class ShieldError extends Error {
  constructor(
    message: string,
    readonly code: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

export interface PolicyProblem {
  file: string;
  line: number;
  col: number;
  message: string;
}

/** A policy file that cannot be loaded; lists every problem found, each with file:line:col. */
export class PolicyError extends ShieldError {
  constructor(readonly problems: PolicyProblem[]) {
    super(problems.map((p) => `${p.file}:${p.line}:${p.col}: ${p.message}`).join("\n"), "POLICY_INVALID");
  }
}
