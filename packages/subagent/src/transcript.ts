// Chat messages back into the wire's ContextMessage, so a finished exchange can be the history
// of the next one (a follow-up that arrived after the final answer).
import { create } from "@bufbuild/protobuf";
import { ContextMessageSchema } from "@palisade/protocol/pipeline";
import type { ContextMessage } from "@palisade/protocol/pipeline";
import type { ChatMessage } from "./conversation.js";

function text(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((p: unknown) => (p && typeof p === "object" && "text" in p && typeof p.text === "string" ? p.text : ""))
      .join("");
  }
  return "";
}

/** Converts the transcript, leaving out system messages (the system prompt is sent again). Pure. */
export function toContextMessages(messages: readonly ChatMessage[]): ContextMessage[] {
  const out: ContextMessage[] = [];
  for (const m of messages) {
    if (m.role === "system" || m.role === "developer") continue;
    if (m.role === "tool") {
      out.push(create(ContextMessageSchema, { role: "tool", content: text(m.content), toolCallId: m.tool_call_id }));
    } else if (m.role === "assistant") {
      const calls = (m.tool_calls ?? []).flatMap((c) =>
        c.type === "function" ? [{ id: c.id, name: c.function.name, argumentsJson: c.function.arguments }] : [],
      );
      out.push(create(ContextMessageSchema, { role: "assistant", content: text(m.content), toolCalls: calls }));
    } else if (m.role === "user") {
      out.push(create(ContextMessageSchema, { role: "user", content: text(m.content) }));
    }
  }
  return out;
}
