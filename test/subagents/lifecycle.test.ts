// The sub-agent lifecycle end to end: real Engine, real sandboxed Agent and sub-agent processes,
// the Shield, the capability host with a credentialed capability, the scripted model.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Store } from "@palisade/store";
import { ApprovalDecision } from "@palisade/protocol/types";
import type { PipelineEvent } from "@palisade/protocol/pipeline";
import { waitFor } from "@palisade/testing";
import { LAB_SECRET, MODEL_KEY, T, ask, fromSubAgent, startLab, subAgentEvents } from "./harness.js";
import type { Lab } from "./harness.js";
import { rules } from "./script.js";

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const json = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) =>
    typeof x === "bigint" ? x.toString() : x instanceof Uint8Array ? Buffer.from(x).toString("utf8") : x,
  );

describe("sub-agents end to end", () => {
  let lab: Lab;
  const sent: { what: string; message: unknown }[] = [];
  const pids = new Map<string, number>();

  beforeAll(async () => {
    lab = await startLab(rules, { subAgents: { limits: { maxDepth: 2 } } });
    lab.engine.tapSubAgents((what, message) => {
      sent.push({ what, message });
      if (what === "spawned") {
        const m = message as { name: string; pid: number };
        pids.set(m.name, m.pid);
      }
    });
  });
  afterAll(async () => lab?.close());

  const endOf = (events: PipelineEvent[], type: number) => subAgentEvents(events, type)[0]?.subAgent;

  it("spawn_agent with wait returns the result in the same call, reports lifecycle events and stores the run", async () => {
    const events = await ask(lab, "[wait] delegate counting");
    const done = events.at(-1);
    expect(done?.eventType).toBe(T.RESPONSE_COMPLETE);
    expect(done?.responseComplete?.content).toContain('"state":"completed"');
    const sessionId = done?.sessionId ?? "";

    expect(events.find((e) => e.actionCompleted?.toolName === "spawn_agent")?.actionCompleted?.success).toBe(true);
    const sub = subAgentEvents(events);
    expect(sub[0]?.eventType).toBe(T.SUB_AGENT_SPAWNED);
    const name = sub[0]?.subAgent?.name ?? "";
    expect(name).toMatch(/^[a-z]+$/);
    expect(sub.some((e) => e.eventType === T.SUB_AGENT_PROGRESS)).toBe(true);
    const completed = endOf(events, T.SUB_AGENT_COMPLETED);
    expect(completed).toMatchObject({
      name,
      state: "completed",
      resultExcerpt: "one, two, three",
      toolCalls: 1,
      llmCalls: 2,
    });

    // The sub-agent's call went through the Shield and the capability, tagged with its name.
    const note = events.find((e) => e.actionCompleted?.toolName === "lab__note")?.actionCompleted;
    expect(note).toMatchObject({ success: true, subAgentName: name });
    expect(note?.resultSummary).toContain('"key_present":true');
    expect(events.some((e) => e.eventType === T.SHIELD_VERDICT && e.shieldVerdict?.toolName === "lab__note")).toBe(
      true,
    );
    const listed = await lab.client.listSubAgents({ sessionId });
    expect(listed.agents.map((a) => [a.name, a.state])).toEqual([[name, "completed"]]);

    // Stored with the turn: run row linked to the reply, transcript, tool call with its verdict.
    const store = Store.open(join(lab.engine.dataDir, "palisade.db"), { readonly: true });
    try {
      const runs = await waitFor(
        () => (store.listSubAgentRuns(sessionId).length > 0 ? store.listSubAgentRuns(sessionId) : undefined),
        5000,
      );
      expect(runs[0]).toMatchObject({
        name,
        state: "completed",
        result: "one, two, three",
        toolCalls: 1,
        parentMessageId: done?.messageId,
      });
      const transcript = store.getSubAgentTranscript(runs[0]?.id ?? "");
      expect(transcript.map((m) => m.role)).toEqual(["user", "assistant"]);
      expect(transcript.at(-1)?.toolCalls[0]).toMatchObject({
        toolName: "lab__note",
        subAgentName: name,
        verdict: { decision: "allow" },
      });
      // Sub-agent events are part of the session's stored event log.
      expect(store.listEvents(sessionId).map((e) => e.type)).toEqual(
        expect.arrayContaining(["SUB_AGENT_SPAWNED", "SUB_AGENT_COMPLETED"]),
      );
    } finally {
      store.close();
    }
  });

  it("spawn, poll its status, fetch its result", async () => {
    const events = await ask(lab, "[status] delegate counting");
    const names = events.filter((e) => e.eventType === T.ACTION_COMPLETED).map((e) => e.actionCompleted?.toolName);
    expect(names).toEqual(expect.arrayContaining(["spawn_agent", "agent_status", "agent_result", "lab__note"]));
    const status = events.find((e) => e.actionCompleted?.toolName === "agent_status")?.actionCompleted;
    expect(status?.success).toBe(true);
    expect(status?.resultSummary).toMatch(/"state":"(running|completed)"/);
    const reply = events.at(-1)?.responseComplete?.content ?? "";
    expect(reply).toContain('"state":"completed"');
    expect(reply).toContain("one, two, three");
  });

  it("delivers a follow-up message to a running sub-agent", async () => {
    const events = await ask(lab, "[follow] delegate counting");
    const msg = events.find((e) => e.actionCompleted?.toolName === "agent_message")?.actionCompleted;
    expect(msg?.success).toBe(true);
    expect(events.at(-1)?.responseComplete?.content).toContain("one, two, three, four");
    const seen = lab.model.chatRequests().filter((r) => fromSubAgent(r) && json(r.messages).includes("[follow]"));
    expect(
      seen.some((r) => r.messages.some((m) => m.role === "user" && json(m.content).includes("Also add four"))),
    ).toBe(true);
  });

  it("cancel_agent stops the sub-agent and its process", async () => {
    const events = await ask(lab, "[cancel] delegate waiting");
    const cancelled = endOf(events, T.SUB_AGENT_CANCELLED);
    expect(cancelled?.state).toBe("cancelled");
    expect(cancelled?.error).toContain("cancel_agent");
    const pid = pids.get(cancelled?.name ?? "") ?? 0;
    expect(pid).toBeGreaterThan(0);
    await waitFor(() => !alive(pid), { timeoutMs: 8000, message: "the cancelled sub-agent's process to exit" });
  });

  it("cancelling the parent turn cancels its sub-agents", async () => {
    const events: PipelineEvent[] = [];
    for await (const ev of lab.client.sendMessage(
      { content: "[parent-cancel] delegate waiting" },
      { timeoutMs: 60_000 },
    )) {
      events.push(ev);
      if (ev.eventType === T.ACTION_STARTED && ev.actionStarted?.toolName === "lab__slow") {
        expect((await lab.client.getStatus({})).runningSubAgents).toBe(1);
        await lab.client.cancelMessage({ sessionId: ev.sessionId, messageId: ev.messageId });
      }
    }
    expect(events.at(-1)?.eventType).toBe(T.TURN_CANCELLED);
    const name = subAgentEvents(events, T.SUB_AGENT_SPAWNED)[0]?.subAgent?.name ?? "";
    const ended = await waitFor(
      () => subAgentEvents(lab.events, T.SUB_AGENT_CANCELLED).find((e) => e.subAgent?.name === name),
      8000,
    );
    expect(ended.subAgent?.error).toContain("parent turn");
    await waitFor(() => !alive(pids.get(name) ?? 0), { timeoutMs: 8000, message: "the sub-agent process to exit" });
  });

  it("a crashed sub-agent is reported FAILED with the reason and the parent turn continues", async () => {
    const pending = ask(lab, "[crash] delegate thinking");
    const name = await waitFor(() => {
      const req = lab.model.chatRequests().find((r) => fromSubAgent(r) && json(r.messages).includes("[crash]"));
      if (!req) return undefined;
      return subAgentEvents(lab.events, T.SUB_AGENT_SPAWNED)
        .map((e) => e.subAgent?.name)
        .find((n) => n && pids.has(n) && json(req.messages).includes(`You are ${n},`));
    }, 15_000);
    process.kill(pids.get(name) ?? 0, "SIGKILL");
    const events = await pending;
    const failed = endOf(events, T.SUB_AGENT_FAILED);
    expect(failed?.name).toBe(name);
    expect(failed?.error).toMatch(/process exited \(SIGKILL\)/);
    expect(events.at(-1)?.eventType).toBe(T.RESPONSE_COMPLETE);
    expect(events.at(-1)?.responseComplete?.content).toContain('"state":"failed"');
  });

  it("the Shield blocks a sub-agent's call like the Agent's, and says so to the sub-agent", async () => {
    const events = await ask(lab, "[block] delegate wiping");
    const verdict = events.find(
      (e) => e.eventType === T.SHIELD_VERDICT && e.shieldVerdict?.toolName === "lab__wipe",
    )?.shieldVerdict;
    expect(verdict?.decision).toBe(2); // BLOCK
    const completed = events.find((e) => e.actionCompleted?.toolName === "lab__wipe")?.actionCompleted;
    expect(completed?.success).toBe(false);
    expect(completed?.subAgentName).toMatch(/^[a-z]+$/);
    expect(endOf(events, T.SUB_AGENT_COMPLETED)?.resultExcerpt).toContain("wipe was refused: The Shield blocked");
  });

  it("a sub-agent's approval reaches the parent session's client and is answered with ResolveApproval", async () => {
    const events: PipelineEvent[] = [];
    for await (const ev of lab.client.sendMessage({ content: "[approve] delegate deploying" }, { timeoutMs: 60_000 })) {
      events.push(ev);
      if (ev.eventType === T.APPROVAL_NEEDED) {
        const ack = await lab.client.resolveApproval({
          approvalId: ev.approvalNeeded?.approvalId ?? "",
          decision: ApprovalDecision.ALLOW_ONCE,
          sessionId: ev.sessionId,
        });
        expect(ack.accepted).toBe(true);
      }
    }
    const needed = events.find((e) => e.eventType === T.APPROVAL_NEEDED)?.approvalNeeded;
    expect(needed?.toolName).toBe("lab__approve_me");
    expect(needed?.subAgentName).toMatch(/^[a-z]+$/);
    expect(events.some((e) => e.eventType === T.APPROVAL_RESOLVED)).toBe(true);
    expect(endOf(events, T.SUB_AGENT_COMPLETED)?.resultExcerpt).toContain("approved_and_done");
    expect(events.at(-1)?.responseComplete?.content).toContain("deployed");
  });

  it("a background sub-agent's approval reaches the chat in the conversation's current turn", async () => {
    const first = await ask(lab, "[bgapprove] start a deployment in the background");
    expect(first.at(-1)?.responseComplete?.content).toBe("Started it.");
    const sessionId = first.at(-1)?.sessionId ?? "";
    const events: PipelineEvent[] = [];
    for await (const ev of lab.client.sendMessage(
      { content: "[bgapprove-2] is it done?", sessionId },
      { timeoutMs: 60_000 },
    )) {
      events.push(ev);
      if (ev.eventType === T.APPROVAL_NEEDED) {
        await lab.client.resolveApproval({
          approvalId: ev.approvalNeeded?.approvalId ?? "",
          decision: ApprovalDecision.ALLOW_ONCE,
          sessionId,
        });
      }
    }
    const turn2 = events.at(-1)?.messageId;
    const needed = events.find((e) => e.eventType === T.APPROVAL_NEEDED);
    expect(needed?.approvalNeeded?.toolName).toBe("lab__approve_me");
    expect(needed?.messageId).toBe(turn2);
    expect(subAgentEvents(events, T.SUB_AGENT_COMPLETED)[0]?.subAgent?.resultExcerpt).toContain("late deploy");
    expect(events.at(-1)?.responseComplete?.content).toContain('"state":"completed"');
  });

  it("judges spawn_agent like any tool: an injected task is blocked and nothing is spawned", async () => {
    const events = await ask(lab, "[inject] delegate this");
    const verdict = events.find(
      (e) => e.eventType === T.SHIELD_VERDICT && e.shieldVerdict?.toolName === "spawn_agent",
    )?.shieldVerdict;
    expect(verdict?.decision).toBe(2); // BLOCK
    expect(verdict?.ruleIds).toContain("injection.override");
    expect(subAgentEvents(events)).toHaveLength(0);
  });

  it("with nesting enabled (depth 2) a sub-agent spawns one more level, judged in its own context; the next level never gets agents", async () => {
    const events: PipelineEvent[] = [];
    for await (const ev of lab.client.sendMessage({ content: "[nest2] delegate organising" }, { timeoutMs: 60_000 })) {
      events.push(ev);
      if (ev.eventType === T.APPROVAL_NEEDED) {
        await lab.client.resolveApproval({
          approvalId: ev.approvalNeeded?.approvalId ?? "",
          decision: ApprovalDecision.ALLOW_ONCE,
          sessionId: ev.sessionId,
        });
      }
    }
    expect(subAgentEvents(events, T.SUB_AGENT_SPAWNED).map((e) => e.subAgent?.task)).toEqual([
      "[nest2] organise the work",
      "[nest2] leaf work",
    ]);
    const nested = events
      .filter((e) => e.actionCompleted?.toolName === "spawn_agent" && e.actionCompleted.subAgentName)
      .map((e) => e.actionCompleted);
    expect(nested[0]?.success).toBe(false);
    expect(nested[0]?.error).toContain('Sub-agents cannot get the "agents" group (nesting depth limit 2)');
    expect(nested[1]?.success).toBe(true);
    // The Shield saw who was delegating: a nested spawn needs the user's approval.
    const approval = events.find((e) => e.eventType === T.APPROVAL_NEEDED)?.approvalNeeded;
    expect(approval).toMatchObject({ toolName: "spawn_agent", subAgentName: nested[1]?.subAgentName });
    const leafRequest = lab.model
      .chatRequests()
      .find((r) => fromSubAgent(r) && r.messages.find((m) => m.role === "user")?.content === "[nest2] leaf work");
    expect(leafRequest?.tools?.map((t) => t.function.name).sort()).toEqual([
      "lab__approve_me",
      "lab__note",
      "lab__run",
      "lab__slow",
      "lab__wipe",
    ]);
    const organiser = subAgentEvents(events, T.SUB_AGENT_COMPLETED).find((e) => e.subAgent?.task.includes("organise"));
    expect(organiser?.subAgent?.resultExcerpt).toContain("leaf done");
  });

  it("never sends a capability credential or the model key to a sub-agent (environment, RPC answers, model requests)", () => {
    expect(sent.filter((s) => s.what === "launch").length).toBe(11);
    expect(sent.filter((s) => s.what === "registerSubAgent").length).toBeGreaterThanOrEqual(10);
    expect(sent.filter((s) => s.what === "subAgentExecuteTool").length).toBeGreaterThanOrEqual(4);
    for (const s of sent) expect(json(s.message), `${s.what} sent to a sub-agent`).not.toContain(LAB_SECRET);
    // The capability did get it (the lab tool reports key_present).
    expect(json(sent)).toContain('\\"key_present\\":true');
    // Nor does the model key reach a sub-agent (environment, RPC answers): the Engine's gateway adds it.
    for (const s of sent.filter((x) => x.what === "launch" || x.what === "registerSubAgent"))
      expect(json(s.message), s.what).not.toContain(MODEL_KEY);
    const subAgentCalls = lab.model.requests.filter((r) => r.body && fromSubAgent(r.body));
    expect(subAgentCalls.length).toBeGreaterThan(0);
    for (const r of subAgentCalls) expect(r.headers.authorization).toBe(`Bearer ${MODEL_KEY}`);
    for (const r of lab.model.chatRequests()) expect(json(r)).not.toContain(LAB_SECRET);
  });
});
