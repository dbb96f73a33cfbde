// Limits end to end: the wall clock (short here) and the concurrency limit (the default, 10).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withoutNetwork } from "@palisade/engine";
import { subAgentLaunchSpec } from "@palisade/subagent";
import { T, ask, fromSubAgent, startLab, subAgentEvents } from "./harness.js";
import type { Lab } from "./harness.js";
import { rules } from "./script.js";

describe("sub-agent limits", () => {
  let lab: Lab;
  const pids: number[] = [];
  let sandboxed = true;
  beforeAll(async () => {
    lab = await startLab(rules, {
      limits: { subAgents: { maxConcurrent: 10, maxLlmCalls: 20, timeoutMs: 3000, maxDepth: 1 } },
      subAgents: {
        limits: { killGraceMs: 1000 },
        // The default launcher (its own network namespace), with the sandbox left out when a test asks for it.
        launcher: (req) => {
          const spec = subAgentLaunchSpec({
            engineAddress: req.engineAddress,
            modelGateway: req.modelGateway,
            sandbox: sandboxed,
          });
          const launch = { command: spec.command, args: spec.args, env: spec.env };
          return sandboxed ? withoutNetwork(launch) : launch;
        },
      },
    });
    lab.engine.tapSubAgents((what, m) => {
      if (what === "spawned") pids.push((m as { pid: number }).pid);
    });
  });
  afterAll(async () => lab?.close());

  it("stops a sub-agent at the wall-clock limit and reports it FAILED", async () => {
    const events = await ask(lab, "[timeout] delegate thinking");
    const failed = subAgentEvents(events, T.SUB_AGENT_FAILED)[0]?.subAgent;
    expect(failed?.error).toMatch(/timed out after 3 s/);
    expect(Number(failed?.elapsedMs)).toBeGreaterThanOrEqual(3000);
    expect(Number(failed?.elapsedMs)).toBeLessThan(6000);
    expect(events.at(-1)?.responseComplete?.content).toContain('"state":"failed"');
  });

  it("refuses a sub-agent whose sandbox self-probe shows it unconfined", async () => {
    sandboxed = false;
    try {
      const events = await ask(lab, "[unconfined] delegate");
      const failed = subAgentEvents(events, T.SUB_AGENT_FAILED)[0]?.subAgent;
      expect(failed?.error).toMatch(
        /^refusing an unconfined sub-agent: Node permission model is not active; it could write a file; it could spawn a process/,
      );
      expect(
        lab.model
          .chatRequests()
          .some((r) => fromSubAgent(r) && JSON.stringify(r.messages).includes("[unconfined] anything")),
      ).toBe(false);
    } finally {
      sandboxed = true;
    }
  });

  it("refuses the 11th concurrent sub-agent with a clear message", async () => {
    const events = await ask(lab, "[eleven] spawn eleven workers");
    const spawns = events
      .filter((e) => e.eventType === T.ACTION_COMPLETED && e.actionCompleted?.toolName === "spawn_agent")
      .map((e) => e.actionCompleted);
    expect(spawns).toHaveLength(11);
    expect(spawns.filter((s) => s?.success)).toHaveLength(10);
    const refused = spawns.find((s) => !s?.success);
    expect(refused?.error).toMatch(
      /^Refused: 10 sub-agents are already running, the limit \(limits\.sub_agents\.max_concurrent = 10\)/,
    );
    expect(refused?.error).toContain("cancel_agent");
    expect(subAgentEvents(events, T.SUB_AGENT_SPAWNED)).toHaveLength(10);
    // The ten named in the refusal are the ten this turn spawned (they may have timed out since: 3 s here).
    const listed = await lab.client.listSubAgents({ sessionId: events[0]?.sessionId ?? "" });
    expect(listed.agents).toHaveLength(10);
    for (const a of listed.agents) expect(refused?.error).toContain(a.name);
  });
});
