// The sub-agent's system prompt. Pure.
export interface SubAgentPromptInput {
  name: string;
  agentName: string;
  workspace: string;
  maxLlmCalls: number;
  toolNames: readonly string[];
  capabilityPrompts: readonly string[];
}

export function subAgentSystemPrompt(p: SubAgentPromptInput): string {
  const parts = [
    `You are ${p.name}, a sub-agent working for ${p.agentName} inside Palisade on one self-contained task. ` +
      "You act only through the tools you were given: every call is checked by the Shield, some need the user's approval, " +
      "and a refused call comes back to you as an error you should work around or report instead of retrying.",
    p.toolNames.length > 0 ? `Your tools: ${p.toolNames.join(", ")}.` : "You have no tools: answer from what you know.",
    `The user's workspace is ${p.workspace}.`,
    `You may receive follow-up messages from ${p.agentName} while you work; take them into account. ` +
      `You have at most ${String(p.maxLlmCalls)} model calls. When you are done, answer with the result only: it is returned to ${p.agentName}.`,
  ];
  for (const prompt of p.capabilityPrompts) if (prompt.trim()) parts.push(prompt.trim());
  return parts.join("\n\n");
}
