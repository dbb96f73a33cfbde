// A session continued after the Engine restarted (or after its provenance was dropped) gets its
// labels back from what the store holds: the user's messages and every tool result, labelled as
// when they were delivered (the same semantics and trust rules). The latest REPLAYED messages
// are read; the Shield's bound then applies as for a live session.
import type { TurnEnv } from "./env.js";

const REPLAYED = 200;

export async function replayProvenance(env: TurnEnv, sessionId: string, workspace: string): Promise<void> {
  const shield = env.shield;
  if (!shield.observe || !shield.knowsProvenance || shield.knowsProvenance(sessionId)) return;
  const { messages } = await env.store.history(sessionId, { limit: REPLAYED });
  for (const m of messages) {
    if (m.role === "user") shield.observe({ sessionId, kind: "user-message", text: m.content });
    for (const c of m.toolCalls) {
      if (c.isError || c.result === "") continue;
      const resolved = env.host.resolve(c.toolName);
      const tool = "tool" in resolved ? resolved.tool : undefined;
      shield.observe({
        sessionId,
        kind: "tool-result",
        text: c.result,
        callId: c.callId,
        toolName: c.toolName,
        capabilityId: tool?.capabilityId ?? "",
        ...(tool?.builtin === true ? { builtin: true } : {}),
        argumentsJson: c.argumentsJson,
        ...(tool ? { toolSchema: tool.parameters } : {}),
        ...(tool?.description ? { toolDescription: tool.description } : {}),
        ...(tool?.semantics ? { toolSemantics: tool.semantics } : {}),
        workspace,
        credentialPath: c.verdict?.ruleIds.some((r) => r.startsWith("cred.")) ?? false,
        ...(c.resultTrust ? { trust: c.resultTrust } : {}),
      });
    }
  }
}
