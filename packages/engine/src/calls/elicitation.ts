import { PipelineEventType as T } from "@palisade/protocol/pipeline";
import { formDefaults, formErrors, formFields } from "@palisade/capabilities/elicitation-form";
import type { FormValue } from "@palisade/capabilities/elicitation-form";
import { visible, visibleJson } from "../adapters/shield.js";
import { approvalToProto } from "../history/convert.js";
import type { ElicitAnswer, ElicitHandler, ElicitQuestion } from "../ports.js";
import type { CallRecord } from "./record.js";

/** The form's values the client sent with accept, or its defaults when it sent none; undefined when they do not fit the form. */
function answered(
  fields: ReturnType<typeof formFields>["fields"],
  contentJson: string | undefined,
): Record<string, FormValue> | undefined {
  let content: unknown = formDefaults(fields);
  if (contentJson !== undefined) {
    try {
      content = JSON.parse(contentJson);
    } catch {
      return undefined;
    }
  }
  if (typeof content !== "object" || content === null || Array.isArray(content)) return undefined;
  return Object.keys(formErrors(fields, content as Record<string, unknown>)).length === 0
    ? (content as Record<string, FormValue>)
    : undefined;
}

/**
 * An MCP server's question during a call (elicitation, form mode) goes to the session's
 * clients as an approval of that call carrying the form: the server's message and schema quoted
 * as its own (not checked by Palisade, control characters made visible), the fields' defaults
 * as the arguments. A client that shows the form answers allow with the values the user
 * entered (accept), or deny with decline or cancel; a client that does not, allow (the
 * defaults) or deny. The Engine checks the values against the schema again: values that do not
 * fit (a required field left empty, a number out of range, a field the form has not) decline.
 * The deadline, or no one to ask (`palisade run` without a terminal), declines; a cancelled turn
 * cancels. A schema with a field a form cannot take is declined without asking.
 */
export function elicitThroughApproval(call: CallRecord, callId: string, toolName: string): ElicitHandler {
  const { turn } = call;
  const { env } = call.scope;
  return async (q: ElicitQuestion, signal: AbortSignal): Promise<ElicitAnswer> => {
    const { fields, problem } = formFields(q.requestedSchema);
    if (problem !== undefined) return { action: "decline" };
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
        argumentsJson: visibleJson(JSON.stringify(formDefaults(fields))),
        reason: visible(
          `MCP server ${q.capabilityId} asks during ${toolName}, in its own words (not checked by Palisade): ${JSON.stringify(q.message)}. Allow answers with the values shown; deny declines.`,
        ),
        deadlineUnixMs: BigInt(ticket.deadline),
        tier: 3,
        ruleIds: ["mcp:elicitation"],
        elicitation: {
          capabilityId: q.capabilityId,
          message: visible(q.message),
          requestedSchemaJson: visibleJson(JSON.stringify(q.requestedSchema)),
        },
      },
    });
    const outcome = await ticket.outcome;
    const resolvedBy = outcome === "timeout" || outcome === "cancelled" || outcome === "unattended" ? outcome : "user";
    if (turn.state !== "done")
      call.emit({
        eventType: T.APPROVAL_RESOLVED,
        approvalResolved: { approvalId: ticket.approvalId, callId, decision: approvalToProto(outcome), resolvedBy },
      });
    if (outcome === "cancelled" || ticket.form?.action === "cancel") return { action: "cancel" };
    if (outcome !== "allow_once" && outcome !== "allow_session") return { action: "decline" };
    if (ticket.form !== undefined && ticket.form.action !== "accept") return { action: "decline" };
    const content = answered(fields, ticket.form?.contentJson);
    return content === undefined ? { action: "decline" } : { action: "accept", content };
  };
}
