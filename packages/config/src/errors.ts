// Invalid configuration, reported whole: every problem with its file and field path.

export interface ConfigIssue {
  file: string;
  /** Dotted path of the field, e.g. `model.base_url` or `capabilities[2].id`. */
  path: string;
  message: string;
}

/** Invalid configuration: every problem, each with its file and field. */
export class ConfigError extends Error {
  readonly code = "CONFIG_INVALID";
  readonly issues: readonly ConfigIssue[];
  constructor(issues: readonly ConfigIssue[]) {
    const lines = issues.map((i) => `  ${i.file}: ${i.path || "(root)"}: ${i.message}`);
    super(`invalid configuration (${issues.length} problem${issues.length === 1 ? "" : "s"}):\n${lines.join("\n")}`);
    this.name = new.target.name;
    this.issues = issues;
  }
}
