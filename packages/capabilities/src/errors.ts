import { formatProblem } from "@palisade/schema";

/** String codes for every capability failure the Engine may see. */
export type CapabilityErrorCode =
  | "invalid_manifest"
  | "invalid_config"
  | "unknown_tool"
  | "ambiguous_tool"
  | "not_ready"
  | "invalid_arguments"
  | "missing_credential"
  | "artifact_not_found"
  | "artifact_too_large"
  | "artifact_transfer"
  | "timeout"
  | "cancelled"
  | "restarted"
  | "tool_error"
  | "transport"
  | "discovery"
  | "launch";

/** Base class of the family: a code, a message saying what and how to fix, and the cause. */
export class CapabilityError extends Error {
  readonly code: CapabilityErrorCode;

  constructor(code: CapabilityErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
  }
}

/** One problem found in a manifest or a config, located by file and field path. */
export interface Problem {
  file: string;
  /** Field path such as `tools[1].input_schema`; empty for the whole document. */
  path: string;
  message: string;
  /** Where in the file (1-based), when the problem came from a YAML file. */
  line?: number;
  col?: number;
}

/** `manifest.yaml: tools[0].name: … (line 3, column 5)`: @palisade/schema's wording, as config.yaml and policies. */
export { formatProblem };

/** Raised when a manifest or config is refused; lists every problem, not just the first. */
export class ValidationError extends CapabilityError {
  readonly problems: Problem[];

  constructor(code: "invalid_manifest" | "invalid_config", what: string, problems: Problem[]) {
    const lines = problems.map((p) => `  - ${formatProblem(p)}`).join("\n");
    super(code, `${what} is invalid (${problems.length} problem${problems.length === 1 ? "" : "s"}):\n${lines}`);
    this.problems = problems;
  }
}
