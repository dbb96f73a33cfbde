/**
 * Tier 3: human approval, run by the Engine. The Shield returns ESCALATE; the Engine emits
 * ApprovalNeeded to the session's clients with an ApprovalRequest, waits for ResolveApproval
 * (or its timeout) and turns the outcome into the final verdict with resolveApproval().
 * A timeout, a cancellation or a missing answer is a denial.
 */
import type { Action, ShieldContext, Verdict } from "./types.js";

export interface ApprovalRequest {
  action: Action;
  context: ShieldContext;
  /** The escalating verdict: why a human is asked. */
  verdict: Verdict;
}

export type ApprovalOutcome =
  | { kind: "approved"; by?: string; note?: string }
  | { kind: "denied"; by?: string; note?: string }
  | { kind: "timeout"; afterMs: number }
  | { kind: "cancelled" };

/** What the Engine implements to ask a person; must settle (deny) when `signal` aborts. */
export type Approver = (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalOutcome>;

/** Final tier-3 verdict for an escalated action. Only an explicit approval allows. */
export function resolveApproval(escalated: Verdict, outcome: ApprovalOutcome, evaluationUs = 0): Verdict {
  const base = { ...escalated, tier: 3 as const, cached: false, evaluationUs: escalated.evaluationUs + evaluationUs };
  switch (outcome.kind) {
    case "approved":
      return {
        ...base,
        decision: "allow",
        confidence: 1,
        reason: `approved${outcome.by ? ` by ${outcome.by}` : ""}${outcome.note ? `: ${outcome.note}` : ""} (was: ${escalated.reason})`,
        rules: [...escalated.rules, "human:approved"],
      };
    case "denied":
      return {
        ...base,
        decision: "block",
        confidence: 1,
        reason: `denied${outcome.by ? ` by ${outcome.by}` : ""}${outcome.note ? `: ${outcome.note}` : ""}`,
        rules: [...escalated.rules, "human:denied"],
      };
    case "timeout":
      return {
        ...base,
        decision: "block",
        confidence: 1,
        reason: `no approval within ${outcome.afterMs} ms (denied)`,
        rules: [...escalated.rules, "human:timeout"],
      };
    default:
      return {
        ...base,
        decision: "block",
        confidence: 1,
        reason: "approval cancelled (denied)",
        rules: [...escalated.rules, "human:cancelled"],
      };
  }
}

/** Runs the whole chain: evaluate, and on ESCALATE ask the approver. Convenience for the Engine. */
export async function evaluateWithApproval(
  evaluate: (action: Action, context: ShieldContext, signal?: AbortSignal) => Promise<Verdict>,
  approver: Approver,
  action: Action,
  context: ShieldContext,
  signal: AbortSignal,
): Promise<Verdict> {
  const v = await evaluate(action, context, signal);
  if (v.decision !== "escalate") return v;
  try {
    const outcome = await approver({ action, context, verdict: v }, signal);
    return resolveApproval(v, outcome);
  } catch {
    return resolveApproval(v, { kind: "cancelled" });
  }
}
