// Invalid configuration, reported whole: every problem with its file, field path and, where the
// YAML says, its line and column.
import { formatProblem } from "@palisade/schema";

export interface ConfigIssue {
  file: string;
  /** Dotted path of the field, e.g. `model.base_url` or `capabilities[2].id`; empty for the whole file. */
  path: string;
  message: string;
  /** Where in the file (1-based), when the problem came from a YAML file. */
  line?: number;
  col?: number;
}

/** `config.yaml: store.pool: must be an integer >= 1, got "ten" (line 4, column 9)` (@palisade/schema's wording). */
export function formatIssue(i: ConfigIssue): string {
  return formatProblem(i);
}

/** Invalid configuration: every problem, each with its file and field. */
export class ConfigError extends Error {
  readonly code = "CONFIG_INVALID";
  readonly issues: readonly ConfigIssue[];
  constructor(issues: readonly ConfigIssue[]) {
    const lines = issues.map((i) => `  ${formatIssue(i)}`);
    super(`invalid configuration (${issues.length} problem${issues.length === 1 ? "" : "s"}):\n${lines.join("\n")}`);
    this.name = new.target.name;
    this.issues = issues;
  }
}
