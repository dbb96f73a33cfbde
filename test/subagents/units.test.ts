// The pure parts of the Engine's sub-agent folder, table-tested.
import { describe, expect, it } from "vitest";
import { PipelineEventType } from "@palisade/protocol/pipeline";
import { NAME_POOL, NamePool } from "../../packages/engine/src/subagents/names.js";
import { TokenTable } from "../../packages/engine/src/subagents/tokens.js";
import { tagEvent } from "../../packages/engine/src/subagents/pipeline.js";
import { AGENT_TOOLS, agentTool } from "../../packages/engine/src/subagents/tools.js";
import { subAgentSystemPrompt } from "../../packages/engine/src/subagents/prompt.js";

describe("NamePool", () => {
  it("gives readable names, unique across rounds", () => {
    const pool = new NamePool(["ada", "bob"]);
    expect(Array.from({ length: 5 }, () => pool.take())).toEqual(["ada", "bob", "ada-2", "bob-2", "ada-3"]);
    const big = new NamePool();
    const names = Array.from({ length: NAME_POOL.length * 3 }, () => big.take());
    expect(new Set(names).size).toBe(names.length);
    expect(names.every((n) => /^[a-z]+(-\d+)?$/.test(n))).toBe(true);
  });
});

describe("TokenTable", () => {
  it("finds a run only by its exact token", () => {
    const t = new TokenTable<string>();
    t.add("secret-token-1", "ada");
    expect(t.find("secret-token-1")).toBe("ada");
    expect(t.find("secret-token-")).toBeUndefined();
    expect(t.find("secret-token-12")).toBeUndefined();
    expect(t.find("")).toBeUndefined();
    t.remove("secret-token-1");
    expect(t.find("secret-token-1")).toBeUndefined();
  });
});

describe("tagEvent", () => {
  const base = { sessionId: "s", messageId: "m" };
  it.each([
    ["actionProposed", { eventType: PipelineEventType.ACTION_PROPOSED, actionProposed: { callId: "c" } }],
    ["actionStarted", { eventType: PipelineEventType.ACTION_STARTED, actionStarted: { callId: "c" } }],
    ["actionCompleted", { eventType: PipelineEventType.ACTION_COMPLETED, actionCompleted: { callId: "c" } }],
    ["approvalNeeded", { eventType: PipelineEventType.APPROVAL_NEEDED, approvalNeeded: { approvalId: "a" } }],
  ] as const)("names the sub-agent in %s", (field, init) => {
    const out = tagEvent({ ...base, ...init }, "ada") as Record<string, unknown>;
    expect(out[field]).toMatchObject({ subAgentName: "ada" });
  });
  it("leaves payloads without the field alone", () => {
    const init = { ...base, eventType: PipelineEventType.SHIELD_VERDICT, shieldVerdict: { callId: "c" } };
    expect(tagEvent(init, "ada")).toEqual(init);
  });
});

describe("agents tools", () => {
  it("declares a JSON Schema for each tool and resolves bare and qualified names", () => {
    expect(AGENT_TOOLS.map((t) => t.name)).toEqual([
      "spawn_agent",
      "agent_status",
      "agent_result",
      "agent_message",
      "cancel_agent",
      "list_agents",
    ]);
    for (const t of AGENT_TOOLS) expect(t.parameters).toMatchObject({ type: "object", additionalProperties: false });
    expect(agentTool("agents__spawn_agent")?.name).toBe("spawn_agent");
    expect(agentTool("spawn_agent")?.capabilityId).toBe("agents");
    expect(agentTool("lab__note")).toBeUndefined();
  });
});

describe("subAgentSystemPrompt", () => {
  it("names the sub-agent, its tools, its budget and the capability prompts", () => {
    const p = subAgentSystemPrompt({
      name: "ada",
      agentName: "Palisade",
      workspace: "/w",
      maxLlmCalls: 20,
      toolNames: ["lab__note"],
      capabilityPrompts: ["Use notes wisely."],
    });
    expect(p).toContain("You are ada, a sub-agent working for Palisade");
    expect(p).toContain("Your tools: lab__note.");
    expect(p).toContain("at most 20 model calls");
    expect(p).toContain("Use notes wisely.");
  });
});
