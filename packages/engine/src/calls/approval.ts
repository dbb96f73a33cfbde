// Asking a person about a call the Shield escalated, unless a session grant already answers it.
import { PipelineEventType } from "@palisade/protocol/pipeline";
import { visible, visibleJson } from "../adapters/shield.js";
import { approvalToProto } from "../history/convert.js";
import type { ActionClassInfo, ApprovalOutcome, ToolSpec, VerdictRecord } from "../ports.js";
import { shieldInput } from "./context.js";
import type { CallRecord } from "./record.js";

const T = PipelineEventType;

export interface ApprovalAnswer {
  outcome: ApprovalOutcome | "session";
  by?: string;
  reason?: string;
}

const grantKey = (scope: string, cls: string): string => `${scope}\u0000${cls}`;

/**
 * What "allow for this session" grants: the action's effect class (same tool, program, options and
 * operands, path scope or host, from the Shield), for the main agent or for one sub-agent; without
 * a class from the Shield only the identical call. A destructive action gets no grant at all
 * (`key` undefined): "a" then allows this call only.
 */
function grantOf(call: CallRecord, tool: ToolSpec): { key: string | undefined; label: string; cls: string } {
  const { env } = call.scope;
  let cls: ActionClassInfo = { key: "", label: "" };
  try {
    cls = env.shield.actionClass?.(shieldInput(call.scope, call.record, tool)) ?? cls;
  } catch {
    cls = { key: "", label: "" };
  }
  if (cls.askEveryTime !== undefined)
    return { key: undefined, label: `this call only (${cls.askEveryTime}: asked every time)`, cls: "" };
  if (cls.key === "")
    cls = {
      key: `${call.record.toolName}\u0000${call.record.argumentsJson}`,
      label: `${call.record.toolName} with exactly these arguments`,
    };
  return { key: grantKey(call.scope.grantScope ?? "main", cls.key), label: cls.label, cls: cls.key };
}

/**
 * Who granted this class for the session: "session" (this agent's own grant), "session
 * (inherited from …)" (a parent's, when the user chose that sub-agents inherit grants), or
 * undefined.
 */
function grantedBy(call: CallRecord, key: string, cls: string): string | undefined {
  const { env } = call.scope;
  const sessionId = call.turn.session.id;
  if (env.approvals.isGrantedForSession(sessionId, key)) return "session";
  for (const scope of call.scope.inheritedGrantScopes ?? []) {
    if (env.approvals.isGrantedForSession(sessionId, grantKey(scope, cls)))
      return `session (inherited from ${scope === "main" ? "the main agent" : scope.replace(/^sub-agent:/, "sub-agent ")})`;
  }
  return undefined;
}

export async function askUser(call: CallRecord, verdict: VerdictRecord, tool: ToolSpec): Promise<ApprovalAnswer> {
  const { turn, record } = call;
  const { env } = call.scope;
  const sessionId = turn.session.id;
  const { key, label, cls } = grantOf(call, tool);
  // a grant answers the policy's question again; a detector's or the judge's concern is asked every time
  const granted = verdict.tier === 0 && key !== undefined ? grantedBy(call, key, cls) : undefined;
  if (granted !== undefined) {
    call.emit({
      eventType: T.APPROVAL_RESOLVED,
      approvalResolved: {
        approvalId: "",
        callId: record.callId,
        decision: approvalToProto("session"),
        resolvedBy: granted,
      },
    });
    return { outcome: "session", ...(granted !== "session" ? { by: granted } : {}) };
  }
  const ticket = env.approvals.open({
    sessionId,
    callId: record.callId,
    toolName: record.toolName,
    ...(key !== undefined ? { grantKey: key } : {}),
    signal: turn.signal,
  });
  call.emit({
    eventType: T.APPROVAL_NEEDED,
    approvalNeeded: {
      approvalId: ticket.approvalId,
      callId: record.callId,
      toolName: record.toolName,
      argumentsJson: visibleJson(record.argumentsJson),
      reason: visible(verdict.reason),
      deadlineUnixMs: BigInt(ticket.deadline),
      tier: verdict.tier,
      ruleIds: verdict.ruleIds,
      grantScope: visible(label),
      preview: call.preview,
    },
  });
  const outcome = await ticket.outcome;
  const resolvedBy = outcome === "timeout" || outcome === "cancelled" || outcome === "unattended" ? outcome : "user";
  if (turn.state !== "done") {
    call.emit({
      eventType: T.APPROVAL_RESOLVED,
      approvalResolved: {
        approvalId: ticket.approvalId,
        callId: record.callId,
        decision: approvalToProto(outcome),
        resolvedBy,
      },
    });
  }
  return {
    outcome,
    ...(ticket.answeredBy ? { by: ticket.answeredBy } : {}),
    ...(ticket.reason ? { reason: ticket.reason } : {}),
  };
}

/** The audit actor of an answer: the client credential that gave it (token id and transport). */
export function approvalActor({ outcome, by }: ApprovalAnswer): string {
  const answered =
    outcome === "allow_once" || outcome === "allow_session" || outcome === "deny" || outcome === "unattended";
  // `unattended` is that client saying no person could be asked.
  return !answered
    ? outcome
    : outcome === "unattended"
      ? `client (${by ?? "unknown client"})`
      : `user (${by ?? "unknown client"})`;
}

/** Why a call the person did not allow did not run, for the model; undefined when it may run. */
export function refusalOf({ outcome, reason }: ApprovalAnswer): string | undefined {
  if (outcome === "allow_once" || outcome === "allow_session" || outcome === "session") return undefined;
  if (outcome === "timeout") return "The user did not answer the approval request in time, so the call was declined";
  if (outcome === "cancelled") return "The approval request was cancelled";
  if (outcome === "unattended")
    return `No one could approve this call (${reason ?? "the client has no one to ask"}), so it did not run`;
  return `The user declined this tool call${reason ? `, saying: "${reason}"` : ""}`;
}
