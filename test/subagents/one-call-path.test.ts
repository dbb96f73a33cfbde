// A tool call takes one path in the Engine whoever makes it: the main Agent in a chat turn, a
// sub-agent, or a client asking directly (ClientService.CallTool, what `palisade capability call`
// sends). The same calls get the same verdicts and leave the same audit steps on all three.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Store } from "@palisade/store";
import { waitFor } from "@palisade/testing";
import type { ChatRequest, ScriptRule, ScriptedReply } from "@palisade/testing";
import type { CallToolResult } from "@palisade/protocol/pipeline";
import { VerdictDecision } from "@palisade/protocol/types";
import { T, ask, fromAgent, fromSubAgent, startLab } from "./harness.js";
import type { Lab } from "./harness.js";

const CALLS = [
  { name: "lab__note", arguments: { text: "same note" } },
  { name: "lab__wipe", arguments: { target: "everything" } },
] as const;

const toolsThisTurn = (req: ChatRequest): number =>
  req.messages.slice(req.messages.findLastIndex((m) => m.role === "user")).filter((m) => m.role === "tool").length;
const call = (name: string, args: Record<string, unknown>): ScriptedReply => ({
  toolCalls: [{ name, arguments: args }],
});
const firstUser = (req: ChatRequest): string => {
  const m = req.messages.find((x) => x.role === "user");
  return typeof m?.content === "string" ? m.content : "";
};

/** Both calls one after the other, then an answer. */
const both = (req: ChatRequest): ScriptedReply => {
  const n = toolsThisTurn(req);
  const next = CALLS[n];
  return next ? call(next.name, next.arguments) : { content: "done" };
};

const rules: ScriptRule[] = [
  { match: { when: (r) => fromAgent(r) && firstUser(r).includes("[chat]") }, reply: both },
  {
    match: { when: (r) => fromAgent(r) && firstUser(r).includes("[delegate]") },
    reply: (req) => {
      const n = toolsThisTurn(req);
      if (n === 0) return call("load_tools", { groups: ["agents"] });
      if (n === 1) return call("spawn_agent", { task: "[sub] note and wipe", tool_groups: ["lab"], wait: true });
      return { content: "delegated" };
    },
  },
  { match: { when: fromSubAgent }, reply: both },
];

interface Step {
  kind: string;
  actor: string;
  toolName: unknown;
  decision: unknown;
  tier: unknown;
  ruleIds: unknown;
  ok: unknown;
  argumentsJson: unknown;
}

/** The audit steps of the lab calls of a session, without what differs by nature (ids, times). */
function steps(lab: Lab, sessionId: string): Step[] {
  const store = Store.open(join(lab.dir.path, "data", "palisade.db"), { readonly: true });
  try {
    return store
      .listAudit({ sessionId, limit: 1000 })
      .map((r) => ({ r, p: JSON.parse(r.payload) as Record<string, unknown> }))
      .filter(({ p }) => typeof p.toolName === "string" && p.toolName.startsWith("lab__"))
      .map(({ r, p }) => ({
        kind: r.kind,
        actor: r.actor,
        toolName: p.toolName,
        decision: p.decision,
        tier: p.tier,
        ruleIds: p.ruleIds,
        ok: p.ok,
        argumentsJson: p.argumentsJson,
      }));
  } finally {
    store.close();
  }
}

describe("one path for a tool call", () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab(
      rules,
      { limits: { subAgents: { maxConcurrent: 10, maxLlmCalls: 20, timeoutMs: 30_000, maxDepth: 1 } } },
      (config) => {
        // lab__slow has a deadline of its own, shorter than the Engine's tool time limit
        const entry = config.capabilities.find((c) => c.id === "lab");
        if (entry) Object.assign(entry, { perToolTimeoutMs: { slow: 300 } });
      },
    );
  });
  afterAll(async () => lab?.close());

  it("the chat, a sub-agent and CallTool get the same verdicts and leave the same audit steps", async () => {
    // 1. The main Agent's calls in a chat turn.
    const chat = await ask(lab, "[chat] note, then wipe");
    const chatSession = chat[0]?.sessionId ?? "";
    const verdicts = (events: typeof chat) =>
      events
        .filter((e) => e.eventType === T.SHIELD_VERDICT && e.shieldVerdict?.toolName.startsWith("lab__"))
        .map((e) => ({
          tool: e.shieldVerdict?.toolName,
          decision: VerdictDecision[e.shieldVerdict?.decision ?? 0],
          ruleIds: e.shieldVerdict?.ruleIds,
        }));
    const chatVerdicts = verdicts(chat);
    expect(chatVerdicts.map((v) => v.decision)).toEqual(["ALLOW", "BLOCK"]);

    // 2. A sub-agent's calls, in the parent's session.
    const delegated = await ask(lab, "[delegate] have a sub-agent note, then wipe");
    const subSession = delegated[0]?.sessionId ?? "";
    expect(subSession).not.toBe(chatSession);
    const subEvents = delegated.filter((e) => e.actionCompleted?.subAgentName);
    expect(subEvents.length).toBeGreaterThan(0);
    expect(verdicts(delegated)).toEqual(chatVerdicts);

    // 3. The same calls asked for directly, as `palisade capability call` does.
    const direct: CallToolResult[] = [];
    let directSession = "";
    for (const c of CALLS) {
      const events = [];
      for await (const r of lab.client.callTool(
        { sessionId: directSession, toolName: c.name, argumentsJson: JSON.stringify(c.arguments) },
        { timeoutMs: 30_000 },
      )) {
        if (r.payload.case === "event") events.push(r.payload.value);
        else if (r.payload.case === "result") direct.push(r.payload.value);
      }
      directSession = direct.at(-1)?.sessionId ?? "";
      expect(verdicts(events)).toEqual(chatVerdicts.filter((v) => v.tool === c.name));
    }
    expect(direct.map((r) => [r.toolName, r.ran, r.isError, r.errorCode])).toEqual([
      ["lab__note", true, false, ""],
      ["lab__wipe", false, true, "blocked"],
    ]);
    expect(JSON.parse(direct[0]?.content ?? "{}")).toMatchObject({ noted: "same note" });
    expect(directSession).not.toBe(chatSession);

    // The audit trail: the same steps, actors, verdicts and outcomes for each path.
    const chatSteps = await waitFor(() => {
      const s = steps(lab, chatSession);
      return s.length >= 5 ? s : undefined;
    });
    expect(chatSteps.map((s) => `${s.kind}:${String(s.toolName)}`)).toEqual([
      "proposal:lab__note",
      "verdict:lab__note",
      "execution:lab__note",
      "proposal:lab__wipe",
      "verdict:lab__wipe",
    ]);
    expect(steps(lab, subSession)).toEqual(chatSteps);
    // The proposer is named as it was: a model for the first two, the client's credential here.
    const directSteps = steps(lab, directSession);
    const proposers = directSteps.filter((s) => s.kind === "proposal").map((s) => s.actor);
    expect(proposers).toEqual([
      expect.stringMatching(/^client \(client-token:[0-9a-f]{12} via /),
      expect.stringMatching(/^client \(client-token:/),
    ]);
    const asAgent = directSteps.map((s) => (s.kind === "proposal" ? { ...s, actor: "agent" } : s));
    expect(asAgent).toEqual(chatSteps);
  }, 90_000);

  it("a capability's failure keeps its own code (the call ran past the tool's deadline: timeout)", async () => {
    let result: CallToolResult | undefined;
    let completedError = "";
    for await (const r of lab.client.callTool(
      { toolName: "lab__slow", argumentsJson: JSON.stringify({ ms: 5000 }) },
      { timeoutMs: 30_000 },
    )) {
      if (r.payload.case === "result") result = r.payload.value;
      else if (r.payload.value?.actionCompleted) completedError = r.payload.value.actionCompleted.error;
    }
    expect(result).toMatchObject({ toolName: "lab__slow", ran: true, isError: true, errorCode: "timeout" });
    expect(result?.errorMessage).toMatch(/^timeout: lab__slow did not finish within 300 ms/);
    expect(completedError).toBe(result?.errorMessage);
  }, 60_000);
});
