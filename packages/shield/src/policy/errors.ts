// Kept apart from ../errors.ts, which the semantics modules load in the client commands: this
// one brings @palisade/schema (and yaml) along.
import { formatProblem } from "@palisade/schema";
import { ShieldError } from "../errors.js";

export interface PolicyProblem {
  file: string;
  /** Dotted path of the field, e.g. `rules[2].decision`; empty for the whole file. */
  path: string;
  line: number;
  col: number;
  message: string;
}

/**
 * A policy file that cannot be loaded; lists every problem found, each as config.yaml's and
 * manifests' are: `policy.yaml: rules[0].decision: must be … (line 5, column 15)`.
 */
export class PolicyError extends ShieldError {
  constructor(readonly problems: PolicyProblem[]) {
    super(problems.map((p) => formatProblem(p)).join("\n"), "POLICY_INVALID");
  }
}
