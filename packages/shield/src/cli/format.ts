/** How a verdict is shown: the text and JSON forms of `palisade shield check` and `eval`. */
import type { Verdict } from "../types.js";

/** Where `runEval` writes: verdict lines to stdout, the summary to stderr. */
export interface CliIO {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
  stdin?: AsyncIterable<string | Buffer>;
  env?: Record<string, string | undefined>;
}

export function verdictJson(v: Verdict): string {
  return JSON.stringify({
    decision: v.decision,
    tier: v.tier,
    confidence: v.confidence,
    reason: v.reason,
    rules: v.rules,
    evaluation_us: v.evaluationUs,
    cached: v.cached,
    policy_version: v.policyVersion,
  });
}

export function verdictText(v: Verdict): string {
  return [
    `${v.decision.toUpperCase()} (tier ${v.tier}, confidence ${v.confidence.toFixed(2)}, ${v.evaluationUs} µs)`,
    `reason: ${v.reason}`,
    `rules: ${v.rules.length > 0 ? v.rules.join(", ") : "-"}`,
    `policy: ${v.policyVersion}`,
    "",
  ].join("\n");
}
