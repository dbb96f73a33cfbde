import { PipelineEventType as T } from "@palisade/protocol/pipeline";
import { visible, visibleJson } from "../adapters/shield.js";
import { approvalToProto } from "../convert.js";
import type { ElicitAnswer, ElicitHandler, ElicitQuestion } from "../ports.js";
import type { CallRecord } from "./record.js";

/** The fields a form asks for, each at its default; undefined when a required one has none. */
function defaults(schema: Record<string, unknown>): Record<string, string | number | boolean | string[]> | undefined {
  const props = (schema.properties ?? {}) as Record<string, { default?: unknown }>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const out: Record<string, string | number | boolean | string[]> = {};
  for (const [name, field] of Object.entries(props)) {
    const d = field?.default;
    if (
      typeof d === "string" ||
      typeof d === "number" ||
      typeof d === "boolean" ||
      (Array.isArray(d) && d.every((x) => typeof x === "string"))
    )
      out[name] = d;
    else if (required.has(name)) return undefined;
  }
  return out;
}

/**
 * An MCP server's question during a call (elicitation, form mode) goes to the session's
 * clients as an approval of that call: the server's message quoted as its own (not checked by
 * Palisade), the form's values as the arguments. Allow answers with those values; deny, the
 * deadline, or no one to ask (`palisade run` without a terminal) declines; a cancelled turn
 * cancels. A form with a required field that has no default is declined without asking: the
 * approval view cannot take typed values.
 */
export function elicitThroughApproval(call: CallRecord, callId: string, toolName: string): ElicitHandler {
  const { turn } = call;
  const { env } = call.scope;
  return async (q: ElicitQuestion, signal: AbortSignal): Promise<ElicitAnswer> => {
    const content = defaults(q.requestedSchema);
    if (content === undefined) return { action: "decline" };
    const ticket = env.approvals.open({
      sessionId: turn.session.id,
      callId,
      toolName,
      signal: AbortSignal.any([turn.signal, signal]),
    });
    call.emit({
      eventType: T.APPROVAL_NEEDED,
      approvalNeeded: {
        approvalId: ticket.approvalId,
        callId,
        toolName,
        argumentsJson: visibleJson(JSON.stringify(content)),
        reason: visible(
          `MCP server ${q.capabilityId} asks during ${toolName}, in its own words (not checked by Palisade): ${JSON.stringify(q.message)}. Allow answers with the values shown; deny declines.`,
        ),
        deadlineUnixMs: BigInt(ticket.deadline),
        tier: 3,
        ruleIds: ["mcp:elicitation"],
      },
    });
    const outcome = await ticket.outcome;
    const resolvedBy = outcome === "timeout" || outcome === "cancelled" || outcome === "unattended" ? outcome : "user";
    if (turn.state !== "done")
      call.emit({
        eventType: T.APPROVAL_RESOLVED,
        approvalResolved: { approvalId: ticket.approvalId, callId, decision: approvalToProto(outcome), resolvedBy },
      });
    if (outcome === "allow_once" || outcome === "allow_session") return { action: "accept", content };
    return outcome === "cancelled" ? { action: "cancel" } : { action: "decline" };
  };
}
