import type { ChatMessage, ToolCallRecord } from "@palisade/protocol/types";
import { inTextOrder } from "@palisade/store/text-order";
import { storedApproval } from "@palisade/shield/words";
import { decisionOf } from "../../format/decision.js";
import { artifactsOf } from "./events.js";
import type { Entry, ToolCardEntry } from "./types.js";

/** The card of a stored tool call (the same rendering as a live one). */
function toolCard(messageId: string, c: ToolCallRecord): ToolCardEntry {
  const verdict = c.verdict
    ? {
        decision: decisionOf(c.verdict.decision),
        tier: c.verdict.tier,
        reason: c.verdict.reason,
        confidence: c.verdict.confidence,
        ruleIds: c.verdict.ruleIds,
      }
    : undefined;
  const approval = storedApproval(c.approval);
  const phase: ToolCardEntry["phase"] =
    verdict?.decision === "block" ? "blocked" : approval?.choice === "deny" ? "denied" : c.isError ? "failed" : "done";
  return {
    kind: "tool",
    id: `h-${messageId}-${c.callId}`,
    callId: c.callId,
    toolName: c.toolName,
    argumentsJson: c.argumentsJson,
    subAgent: c.subAgentName || undefined,
    phase,
    verdict,
    approval,
    progress: "",
    resultSummary: c.isError ? undefined : c.result,
    error: c.isError ? c.result : undefined,
    durationMs: Number(c.durationMs),
    artifacts: artifactsOf(c.artifacts),
  };
}

/** Turns stored messages into transcript entries (same rendering as a live conversation). */
export function messagesToEntries(messages: ChatMessage[]): Entry[] {
  const out: Entry[] = [];
  for (const m of messages) {
    if (m.role === "user") out.push({ kind: "user", id: `h-${m.id}`, text: m.content });
    else if (m.role === "assistant") {
      // One stored assistant message holds a turn's text and its tool calls, each call with the
      // length of the text before it: they show in the order they happened.
      let piece = 0;
      for (const p of inTextOrder(m.content, m.toolCalls)) {
        if (p.kind === "call") {
          out.push(toolCard(m.id, p.call));
          continue;
        }
        const text = p.text.trim();
        if (!text) continue;
        out.push({
          kind: "assistant",
          id: piece === 0 ? `h-${m.id}` : `h-${m.id}.${String(piece)}`,
          text,
          streaming: false,
          continuation: false,
        });
        piece++;
      }
    } else if (m.role === "system" && m.content) {
      out.push({ kind: "notice", id: `h-${m.id}`, level: "info", text: m.content });
    }
  }
  return out;
}
