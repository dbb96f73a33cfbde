import { afterEach, describe, expect, it } from "vitest";
import { ApprovalDecision, SessionMode, VerdictDecision } from "@palisade/protocol/types";
import { PipelineEventType as T } from "@palisade/protocol/pipeline";
import type { PipelineEvent } from "@palisade/protocol/pipeline";
import { collect, startHarness } from "./helpers/setup.js";
import type { Harness } from "./helpers/setup.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const types = (evs: PipelineEvent[]): string[] => evs.map((e) => T[e.eventType]);

describe("turn pipeline", () => {
  it("answers a tool call, streams tokens and commits before RESPONSE_COMPLETE", async () => {
    h = await startHarness();
    const { client, agent, store } = h;
    const done = collect(client.sendMessage({ content: "echo hi" }));
    const p = await agent.next("process");
    expect(p.content).toBe("echo hi");
    expect(p.systemPrompt).toContain("Palisade");
    await agent.token(p.sessionId, p.messageId, "Let me ");
    await agent.propose(p.sessionId, p.messageId, "c1", "demo__echo", { text: "hi" });
    const r = await agent.next("toolResult");
    expect(r).toMatchObject({ callId: "c1", isError: false, sessionId: p.sessionId, messageId: p.messageId });
    expect(r.content).toBe('demo__echo:{"text":"hi"}');
    await agent.complete(p.sessionId, p.messageId, "Let me check. Done.");
    const evs = await done;
    expect(types(evs)).toEqual([
      "MESSAGE_ACCEPTED",
      "LLM_TOKEN",
      "ACTION_PROPOSED",
      "SHIELD_VERDICT",
      "ACTION_STARTED",
      "ACTION_COMPLETED",
      "RESPONSE_COMPLETE",
    ]);
    const seqs = evs.map((e) => Number(e.seq));
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(evs.every((e) => e.timestampUnixMs > 0n)).toBe(true);
    expect(evs.at(-1)?.responseComplete?.content).toBe("Let me check. Done.");
    const hist = await client.getHistory({ sessionId: p.sessionId });
    expect(hist.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(hist.messages[1]?.toolCalls[0]).toMatchObject({ callId: "c1", toolName: "demo__echo", isError: false });
    expect(hist.messages[1]?.toolCalls[0]?.verdict?.decision).toBe(VerdictDecision.ALLOW);
    expect(store.storedEvents(p.sessionId).map((e) => e.type)).toContain("RESPONSE_COMPLETE");

    // Second turn carries the history.
    const done2 = collect(client.sendMessage({ content: "again", sessionId: p.sessionId }));
    const p2 = await agent.next("process");
    expect(p2.history.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(p2.history[1]?.toolCalls[0]?.name).toBe("demo__echo");
    await agent.complete(p2.sessionId, p2.messageId, "ok");
    await done2;
  });

  it("the last burst of tokens that comes with AgentResponseComplete reaches clients as the turn's last token", async () => {
    h = await startHarness();
    const { client, agent } = h;
    const done = collect(client.sendMessage({ content: "say hello" }));
    const p = await agent.next("process");
    await agent.token(p.sessionId, p.messageId, "Hel");
    await agent.send({
      event: {
        case: "responseComplete",
        value: { sessionId: p.sessionId, messageId: p.messageId, content: "Hello there", lastText: "lo there" },
      },
    });
    const evs = await done;
    expect(types(evs)).toEqual(["MESSAGE_ACCEPTED", "LLM_TOKEN", "LLM_TOKEN", "RESPONSE_COMPLETE"]);
    expect(evs.filter((e) => e.eventType === T.LLM_TOKEN).map((e) => e.llmToken?.text)).toEqual(["Hel", "lo there"]);
    expect(evs.at(-1)?.responseComplete?.content).toBe("Hello there");
  });

  it("returns validation, unknown-tool and blocked errors to the model as tool errors", async () => {
    h = await startHarness();
    const { client, agent } = h;
    const done = collect(client.sendMessage({ content: "x" }));
    const p = await agent.next("process");
    await agent.propose(p.sessionId, p.messageId, "bad", "demo__echo", { nope: 1 });
    const bad = await agent.next("toolResult");
    expect(bad.isError).toBe(true);
    expect(bad.content).toBe(
      "Invalid arguments: demo__echo: arguments.text: is required; demo__echo: arguments.nope: unknown key; allowed here: text. Fix them and call the tool again.",
    );
    await agent.propose(p.sessionId, p.messageId, "unk", "nosuch", {});
    expect((await agent.next("toolResult")).content).toMatch(/Unknown tool nosuch/);
    await agent.propose(p.sessionId, p.messageId, "blk", "demo__nuke", {});
    const blk = await agent.next("toolResult");
    expect(blk.isError).toBe(true);
    expect(blk.content).toMatch(/Shield blocked/);
    await agent.propose(p.sessionId, p.messageId, "json", "demo__echo", "{not json");
    expect((await agent.next("toolResult")).content).toMatch(/not valid JSON/);
    await agent.complete(p.sessionId, p.messageId, "sorry");
    const evs = await done;
    const verdicts = evs.filter((e) => e.eventType === T.SHIELD_VERDICT);
    expect(verdicts.map((v) => v.shieldVerdict?.decision)).toEqual([VerdictDecision.BLOCK]);
    expect(h.host.invocations).toEqual([]);
  });

  it("escalations: allow once, allow for session, deny, timeout", async () => {
    h = await startHarness({ limits: { approvalTimeoutMs: 300 } });
    const { client, agent } = h;
    const stream = client.sendMessage({ content: "danger" });
    const evs: PipelineEvent[] = [];
    const approvals: PipelineEvent[] = [];
    const reader = (async () => {
      for await (const ev of stream) {
        evs.push(ev);
        if (ev.eventType === T.APPROVAL_NEEDED) approvals.push(ev);
      }
    })();
    const p = await agent.next("process");
    const waitApproval = async (n: number) => {
      while (approvals.length < n) await new Promise((r) => setTimeout(r, 5));
      return approvals[n - 1]!.approvalNeeded!;
    };
    await agent.propose(p.sessionId, p.messageId, "a1", "demo__danger", { what: "1" });
    const a1 = await waitApproval(1);
    expect(a1).toMatchObject({ callId: "a1", toolName: "demo__danger" });
    expect(Number(a1.deadlineUnixMs)).toBeGreaterThan(Date.now());
    expect(
      (await client.resolveApproval({ approvalId: a1.approvalId, decision: ApprovalDecision.ALLOW_ONCE })).accepted,
    ).toBe(true);
    expect(
      (await client.resolveApproval({ approvalId: a1.approvalId, decision: ApprovalDecision.DENY })).accepted,
    ).toBe(false);
    expect((await agent.next("toolResult")).isError).toBe(false);

    await agent.propose(p.sessionId, p.messageId, "a2", "demo__danger", { what: "2" });
    const a2 = await waitApproval(2);
    await client.resolveApproval({ approvalId: a2.approvalId, decision: ApprovalDecision.DENY });
    const denied = await agent.next("toolResult");
    expect(denied.isError).toBe(true);
    expect(denied.content).toMatch(/user declined/);

    await agent.propose(p.sessionId, p.messageId, "a3", "demo__danger", { what: "3" });
    await waitApproval(3);
    const timedOut = await agent.next("toolResult");
    expect(timedOut.isError).toBe(true);
    expect(timedOut.content).toMatch(/did not answer .* in time/);

    await agent.propose(p.sessionId, p.messageId, "a4", "demo__danger", { what: "4" });
    const a4 = await waitApproval(4);
    await client.resolveApproval({ approvalId: a4.approvalId, decision: ApprovalDecision.ALLOW_SESSION });
    expect((await agent.next("toolResult")).isError).toBe(false);
    // the grant covers the action's class; this Shield gives none, so only the identical call
    await agent.propose(p.sessionId, p.messageId, "a5", "demo__danger", { what: "4" });
    expect((await agent.next("toolResult")).isError).toBe(false);
    expect(approvals.length).toBe(4); // a5 was allowed by the session grant

    await agent.complete(p.sessionId, p.messageId, "done");
    await reader;
    const resolved = evs.filter((e) => e.eventType === T.APPROVAL_RESOLVED).map((e) => e.approvalResolved?.resolvedBy);
    expect(resolved).toEqual(["user", "user", "timeout", "user", "session"]);
    const hist = await client.getHistory({ sessionId: p.sessionId });
    expect(hist.messages[1]?.toolCalls.map((c) => c.approval)).toEqual([
      "allow_once",
      "deny",
      "timeout",
      "allow_session",
      "session",
    ]);
  });

  it("an unattended escalation is recorded as such and the model hears no one could approve; a deny reason reaches the model", async () => {
    h = await startHarness();
    const { client, agent } = h;
    const approvals: PipelineEvent[] = [];
    const evs: PipelineEvent[] = [];
    const reader = (async () => {
      for await (const ev of client.sendMessage({ content: "danger" })) {
        evs.push(ev);
        if (ev.eventType === T.APPROVAL_NEEDED) approvals.push(ev);
      }
    })();
    const p = await agent.next("process");
    const waitApproval = async (n: number) => {
      while (approvals.length < n) await new Promise((r) => setTimeout(r, 5));
      return approvals[n - 1]!.approvalNeeded!;
    };
    await agent.propose(p.sessionId, p.messageId, "u1", "demo__danger", { what: "1" });
    const u1 = await waitApproval(1);
    expect(
      (
        await client.resolveApproval({
          approvalId: u1.approvalId,
          decision: ApprovalDecision.UNATTENDED,
          reason: "no terminal",
        })
      ).accepted,
    ).toBe(true);
    const unattended = await agent.next("toolResult");
    expect(unattended.isError).toBe(true);
    expect(unattended.content).toMatch(/^No one could approve this call \(no terminal\), so it did not run/);
    expect(unattended.content).not.toMatch(/declined/);

    await agent.propose(p.sessionId, p.messageId, "d1", "demo__danger", { what: "2" });
    const d1 = await waitApproval(2);
    await client.resolveApproval({
      approvalId: d1.approvalId,
      decision: ApprovalDecision.DENY,
      reason: "use the staging bucket instead",
    });
    expect((await agent.next("toolResult")).content).toMatch(
      /declined this tool call, saying: "use the staging bucket instead"/,
    );
    await agent.complete(p.sessionId, p.messageId, "done");
    await reader;
    expect(h.host.invocations).toEqual([]);
    const resolved = evs
      .filter((e) => e.eventType === T.APPROVAL_RESOLVED)
      .map((e) => [e.approvalResolved?.resolvedBy, e.approvalResolved?.decision]);
    expect(resolved).toEqual([
      ["unattended", ApprovalDecision.UNATTENDED],
      ["user", ApprovalDecision.DENY],
    ]);
    const hist = await client.getHistory({ sessionId: p.sessionId });
    expect(hist.messages[1]?.toolCalls.map((c) => c.approval)).toEqual(["unattended", "deny"]);
  });

  it("a new session's workspace that does not exist is refused when the session is created", async () => {
    h = await startHarness();
    const missing = "/nonexistent/palisade-workspace";
    await expect(h.client.createSession({ mode: SessionMode.NORMAL, workspace: missing })).rejects.toThrow(
      /the workspace \/nonexistent\/palisade-workspace does not exist or is not a directory/,
    );
    await expect(collect(h.client.sendMessage({ content: "hi", workspace: missing }))).rejects.toThrow(
      /does not exist or is not a directory/,
    );
    expect((await h.client.listSessions({})).sessions).toEqual([]);
  });

  it("runs proposals of one turn concurrently and answers by call_id", async () => {
    h = await startHarness();
    const { client, agent } = h;
    const done = collect(client.sendMessage({ content: "par" }));
    const p = await agent.next("process");
    await agent.propose(p.sessionId, p.messageId, "slow", "demo__slow", { ms: 300 });
    await agent.propose(p.sessionId, p.messageId, "fast", "demo__slow", { ms: 1 });
    const first = await agent.next("toolResult");
    const second = await agent.next("toolResult");
    expect([first.callId, second.callId]).toEqual(["fast", "slow"]);
    await agent.complete(p.sessionId, p.messageId, "both");
    await done;
  });

  it("off the record: nothing stored, non-allow tools refused with OTR_BLOCKED", async () => {
    h = await startHarness();
    const { client, agent, store } = h;
    const done = collect(client.sendMessage({ content: "secret", mode: SessionMode.OTR }));
    const p = await agent.next("process");
    await agent.propose(p.sessionId, p.messageId, "d", "demo__danger", {});
    const r = await agent.next("toolResult");
    expect(r.isError).toBe(true);
    expect(r.content).toMatch(/off the record/);
    await agent.propose(p.sessionId, p.messageId, "e", "demo__echo", { text: "ok" });
    expect((await agent.next("toolResult")).isError).toBe(false);
    await agent.send({
      event: { case: "memoryFlush", value: { sessionId: p.sessionId, messageId: p.messageId, content: "fact" } },
    });
    await agent.complete(p.sessionId, p.messageId, "shh");
    const evs = await done;
    expect(types(evs)).toContain("OTR_BLOCKED");
    expect(await store.countSessions()).toBe(0);
    expect(await store.getSession(p.sessionId)).toBeUndefined();
    expect((await store.memory(p.sessionId)).facts).toEqual([]);
    // The conversation continues in memory.
    const done2 = collect(client.sendMessage({ content: "more", sessionId: p.sessionId }));
    const p2 = await agent.next("process");
    expect(p2.history.map((m) => m.content)).toContain("secret");
    await agent.complete(p2.sessionId, p2.messageId, "ok");
    await done2;
    expect(await store.countSessions()).toBe(0);
  });

  it("a client that disconnects does not lose the turn; cancel stops one", async () => {
    h = await startHarness();
    const { client, agent } = h;
    const ac = new AbortController();
    const stream = client.sendMessage({ content: "long" }, { signal: ac.signal });
    const it = stream[Symbol.asyncIterator]();
    const accepted = (await it.next()).value as PipelineEvent;
    const p = await agent.next("process");
    ac.abort();
    await new Promise((r) => setTimeout(r, 50));
    await agent.complete(p.sessionId, p.messageId, "finished anyway");
    await new Promise((r) => setTimeout(r, 50));
    const hist = await client.getHistory({ sessionId: accepted.sessionId });
    expect(hist.messages.map((m) => m.content)).toEqual(["long", "finished anyway"]);

    const done = collect(client.sendMessage({ content: "stop me", sessionId: accepted.sessionId }));
    const p2 = await agent.next("process");
    await agent.propose(p2.sessionId, p2.messageId, "s", "demo__slow", { ms: 10_000 });
    await new Promise((r) => setTimeout(r, 50));
    expect((await client.cancelMessage({ sessionId: p2.sessionId, messageId: p2.messageId })).cancelled).toBe(true);
    const cancel = await agent.next("cancel");
    expect(cancel.messageId).toBe(p2.messageId);
    const evs = await done;
    expect(types(evs).at(-1)).toBe("TURN_CANCELLED");
  });

  it("an Agent that goes away ends in-flight turns with a recoverable ERROR", async () => {
    h = await startHarness();
    const { client, agent } = h;
    const done = collect(client.sendMessage({ content: "crash" }));
    await agent.next("process");
    agent.cancel();
    const evs = await done;
    const last = evs.at(-1);
    expect(last?.eventType).toBe(T.ERROR);
    expect(last?.pipelineError).toMatchObject({ code: "AGENT_CRASHED", recoverable: true });
  });

  it("GetStatus, ListTools, sessions RPCs", async () => {
    h = await startHarness();
    const { client, agent } = h;
    const s = await client.getStatus({});
    expect(s).toMatchObject({
      agentConnected: true,
      agentId: "test-agent",
      modelConfigured: true,
      version: "0.1.0",
      dataDir: h.dir,
    });
    expect(s.capabilities[0]?.id).toBe("demo");
    expect(s.sandbox?.permissionModel).toBe(true);
    const tools = await client.listTools({});
    expect(tools.tools.find((t) => t.def?.name === "demo__danger")?.policy).toBe("ask");
    const created = await client.createSession({ title: "Mine" });
    const done = collect(client.sendMessage({ content: "hello", sessionId: created.session!.id }));
    const p = await agent.next("process");
    await agent.complete(p.sessionId, p.messageId, "hi");
    await done;
    const list = await client.listSessions({ limit: 10 });
    expect(list.total).toBe(1);
    expect(list.sessions[0]?.title).toBe("Mine");
    const renamed = await client.renameSession({ sessionId: created.session!.id, title: "Yours" });
    expect(renamed.session?.title).toBe("Yours");
    const exp = await client.exportSession({ sessionId: created.session!.id, format: "md" });
    expect(exp.content).toContain("hello");
    expect((await client.deleteSession({ sessionId: created.session!.id })).deleted).toBe(true);
    await expect(client.getHistory({ sessionId: created.session!.id })).rejects.toThrow(/does not exist/);
    await expect(
      client.sendMessage({ content: "x", sessionId: "nope" })[Symbol.asyncIterator]().next(),
    ).rejects.toThrow(/does not exist/);
  });
});
