// "Allow for this session" given to the main agent reaches its sub-agents only when the user chose
// that (`sub_agents.inherit_grants: true`); a detector's escalation is asked even then. A real
// Engine, Shield (default policy), Agent, sub-agent processes and the lab capability.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApprovalDecision } from "@palisade/protocol/types";
import type { PipelineEvent } from "@palisade/protocol/pipeline";
import type { ChatRequest, ScriptRule, ScriptedReply } from "@palisade/testing";
import { T, fromAgent, fromSubAgent, startLab } from "./harness.js";
import type { Lab } from "./harness.js";

const turnTools = (req: ChatRequest): number =>
  req.messages.slice(req.messages.findLastIndex((m) => m.role === "user")).filter((m) => m.role === "tool").length;
const call = (name: string, args: Record<string, unknown>): ScriptedReply => ({
  toolCalls: [{ name, arguments: args }],
});

// Main agent: one push (the user allows its class for the session), then a sub-agent.
// Sub-agent: a push of the same class, then a forced push of the same class (a detector asks).
const rules: ScriptRule[] = [
  {
    match: { when: fromAgent },
    reply: (req) => {
      const n = turnTools(req);
      if (n === 0) return call("load_tools", { groups: ["agents", "lab"] });
      if (n === 1) return call("lab__run", { command: "git push origin feature/a" });
      if (n === 2)
        return call("spawn_agent", { task: "push the other feature branch", tool_groups: ["lab"], wait: true });
      return { content: "done" };
    },
  },
  {
    match: { when: fromSubAgent },
    reply: (req) => {
      const n = req.messages.filter((m) => m.role === "tool").length;
      if (n === 0) return call("lab__run", { command: "git push origin feature/b" });
      if (n === 1) return call("lab__run", { command: "git push --force origin feature/c" });
      return { content: "sub-agent done" };
    },
  },
];

interface Run {
  events: PipelineEvent[];
  /** Commands the user was asked about, with who asked ("main" or the sub-agent's name). */
  asked: { by: string; command: string; tier: number }[];
}

/** One turn; the main agent's approval is answered "allow for this session", a sub-agent's "deny". */
async function turn(lab: Lab): Promise<Run> {
  const events: PipelineEvent[] = [];
  const asked: Run["asked"] = [];
  for await (const ev of lab.client.sendMessage({ content: "push both feature branches" }, { timeoutMs: 90_000 })) {
    events.push(ev);
    const a = ev.approvalNeeded;
    if (ev.eventType !== T.APPROVAL_NEEDED || !a) continue;
    const by = a.subAgentName || "main";
    asked.push({ by, command: String((JSON.parse(a.argumentsJson) as { command?: string }).command), tier: a.tier });
    const decision = by === "main" ? ApprovalDecision.ALLOW_SESSION : ApprovalDecision.DENY;
    await lab.client.resolveApproval({ approvalId: a.approvalId, decision, sessionId: ev.sessionId });
  }
  return { events, asked };
}

const ranBySubAgent = (r: Run, command: string): boolean =>
  r.events.some(
    (e) =>
      e.eventType === T.ACTION_COMPLETED &&
      e.actionCompleted?.subAgentName &&
      e.actionCompleted.success &&
      e.actionCompleted.argumentsJson.includes(command),
  );

describe("sub-agents and the main agent's session grants", () => {
  describe("by default (sub_agents.inherit_grants: false)", () => {
    let lab: Lab;
    beforeAll(async () => {
      lab = await startLab(rules);
    }, 60_000);
    afterAll(async () => lab?.close());

    it("a sub-agent is asked again for the class the user allowed the main agent", async () => {
      const r = await turn(lab);
      expect(r.asked.map((a) => [a.by === "main" ? "main" : "sub", a.command])).toEqual([
        ["main", "git push origin feature/a"],
        ["sub", "git push origin feature/b"],
        ["sub", "git push --force origin feature/c"],
      ]);
      expect(ranBySubAgent(r, "feature/b")).toBe(false);
      expect(r.events.some((e) => e.eventType === T.RESPONSE_COMPLETE)).toBe(true);
    }, 90_000);
  });

  describe("when the user chose it (sub_agents.inherit_grants: true)", () => {
    let lab: Lab;
    beforeAll(async () => {
      lab = await startLab(rules, {}, (config) => {
        config.subAgents.inheritGrants = true;
      });
    }, 60_000);
    afterAll(async () => lab?.close());

    it("the grant covers the same class in the sub-agent; the detector's escalation is still asked", async () => {
      const r = await turn(lab);
      expect(r.asked.map((a) => [a.by === "main" ? "main" : "sub", a.command, a.tier])).toEqual([
        ["main", "git push origin feature/a", 0],
        ["sub", "git push --force origin feature/c", 1],
      ]);
      expect(ranBySubAgent(r, "feature/b")).toBe(true);
      const resolved = r.events.find(
        (e) => e.eventType === T.APPROVAL_RESOLVED && e.approvalResolved?.resolvedBy.startsWith("session"),
      );
      expect(resolved?.approvalResolved?.resolvedBy).toBe("session (inherited from the main agent)");
      expect(ranBySubAgent(r, "feature/c")).toBe(false);
    }, 90_000);
  });
});
