// The Shield's decision and a person's approval between the wire's enums and the words shown:
// the one place the CLI maps VerdictDecision and ApprovalDecision.
import { ApprovalDecision, VerdictDecision } from "@palisade/protocol/types";
import type { Decision } from "@palisade/shield";
import { DECISION_WORD } from "@palisade/shield/words";
import type { ApprovalChoice } from "@palisade/shield/words";

/** A verdict's decision from the wire; one the CLI does not know is treated as escalate. */
export function decisionOf(d: VerdictDecision): Decision {
  return d === VerdictDecision.ALLOW ? "allow" : d === VerdictDecision.BLOCK ? "block" : "escalate";
}

export function decisionToProto(d: Decision): VerdictDecision {
  return d === "allow" ? VerdictDecision.ALLOW : d === "block" ? VerdictDecision.BLOCK : VerdictDecision.ESCALATE;
}

/** A decision from the wire as printed (`ALLOW`), `?` for none. */
export function decisionWord(d: VerdictDecision): string {
  return d === VerdictDecision.UNSPECIFIED ? "?" : DECISION_WORD[decisionOf(d)];
}

export function choiceOf(d: ApprovalDecision): ApprovalChoice {
  return d === ApprovalDecision.ALLOW_ONCE
    ? "allow_once"
    : d === ApprovalDecision.ALLOW_SESSION
      ? "allow_session"
      : "deny";
}

export function choiceToProto(c: ApprovalChoice): ApprovalDecision {
  return c === "allow_once"
    ? ApprovalDecision.ALLOW_ONCE
    : c === "allow_session"
      ? ApprovalDecision.ALLOW_SESSION
      : ApprovalDecision.DENY;
}
