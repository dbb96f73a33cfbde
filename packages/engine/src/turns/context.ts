// What the Agent is told with each ProcessRequest: the conversation as OpenAI chat messages and
// the system prompt. Pure.
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ContextMessageSchema } from "@palisade/protocol/pipeline";
import type { MessageRecord, Mode, ToolGroupInfo } from "../ports.js";

export type ContextInit = MessageInitShape<typeof ContextMessageSchema>;

/**
 * Stored messages → chat context. An assistant message with tool calls becomes the assistant's
 * call message, one `tool` message per result, then its final text (when it has any).
 * The oldest `compacted` messages are replaced by the compaction summary.
 */
export function buildContext(
  messages: readonly MessageRecord[],
  memory?: { summary: string; compactedMessages: number },
): ContextInit[] {
  const skip = memory && memory.summary ? Math.min(memory.compactedMessages, messages.length) : 0;
  const out: ContextInit[] = [];
  if (skip > 0 && memory)
    out.push({ role: "system", content: `Summary of the earlier conversation:\n${memory.summary}` });
  for (let i = skip; i < messages.length; i++) out.push(...contextOf(messages[i] as MessageRecord));
  return out;
}

/** The context messages of one stored message (none for a role the model is not shown). */
export function contextOf(m: MessageRecord): ContextInit[] {
  if (m.role === "assistant" && m.toolCalls.length > 0) {
    const out: ContextInit[] = [
      {
        role: "assistant",
        content: "",
        toolCalls: m.toolCalls.map((c) => ({ id: c.callId, name: c.toolName, argumentsJson: c.argumentsJson })),
      },
    ];
    for (const c of m.toolCalls) out.push({ role: "tool", toolCallId: c.callId, content: c.result });
    if (m.content) out.push({ role: "assistant", content: m.content });
    return out;
  }
  if (m.role === "user" || m.role === "assistant" || m.role === "system") return [{ role: m.role, content: m.content }];
  return [];
}

export interface PromptInput {
  agentName: string;
  workspace: string;
  mode: Mode;
  groups: readonly ToolGroupInfo[];
  capabilityPrompts: readonly string[];
  facts: readonly string[];
  now?: Date;
}

export function buildSystemPrompt(p: PromptInput): string {
  const parts = [
    `You are ${p.agentName}, an assistant running inside Palisade. You act only through tools: every call you propose is checked by the Shield, some need the user's approval, and a refused call comes back to you as an error you should explain instead of retrying.`,
    `The user's workspace is ${p.workspace}. File and shell tools act inside it.`,
    `Today is ${(p.now ?? new Date()).toISOString().slice(0, 10)}.`,
  ];
  if (p.groups.length > 0) {
    parts.push(
      `Tool groups you can load with load_tools: ${p.groups.map((g) => `${g.name} (${g.down ?? (g.description || `${g.toolCount} tools`)})`).join("; ")}.`,
    );
  }
  if (p.mode === "otr") {
    parts.push(
      "This session is off the record: nothing is stored, and tools that are not allowed by default are refused.",
    );
  }
  for (const prompt of p.capabilityPrompts) if (prompt.trim()) parts.push(prompt.trim());
  if (p.facts.length > 0) parts.push(`Things to remember about this user:\n${p.facts.map((f) => `- ${f}`).join("\n")}`);
  return parts.join("\n\n");
}
