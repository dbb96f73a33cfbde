// The Engine sends the Agent only the messages it lacks; whatever happened between turns (a
// cancelled or failed turn, a replayed message, the Agent killed, the Engine restarted), the model
// still sees exactly the stored conversation. The reference is built here from GetHistory, the
// transcript clients see, independently of the Engine's and the Agent's code.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SessionMode } from "@palisade/protocol/types";
import type { ChatMessage } from "@palisade/protocol/types";
import type { ProcessRequest } from "@palisade/protocol/pipeline";
import { PipelineEventType as T } from "@palisade/protocol/pipeline";
import { waitFor } from "@palisade/testing";
import { built, collect, final, kind, loadFiles, startE2E } from "./helpers.js";
import type { E2E } from "./helpers.js";

const skip = built();
let h: E2E;
const sent: ProcessRequest[] = [];
const tap = (): void => {
  h.engine.tapDirectives((d) => {
    if (d.directive.case === "process") sent.push(d.directive.value);
  });
};
beforeAll(async () => {
  if (skip) return;
  h = await startE2E();
  tap();
}, 60_000);
afterAll(async () => {
  await h?.close();
});

/** What the model must be shown for a stored transcript (OpenAI chat messages). */
function reference(messages: readonly ChatMessage[]): unknown[] {
  const out: unknown[] = [];
  for (const m of messages) {
    if (m.role === "assistant" && m.toolCalls.length > 0) {
      out.push({
        role: "assistant",
        content: null,
        tool_calls: m.toolCalls.map((c) => ({
          id: c.callId,
          type: "function",
          function: { name: c.toolName, arguments: c.argumentsJson || "{}" },
        })),
      });
      for (const c of m.toolCalls) out.push({ role: "tool", tool_call_id: c.callId, content: c.result });
      if (m.content) out.push({ role: "assistant", content: m.content });
    } else {
      out.push({ role: m.role, content: m.content });
    }
  }
  return out;
}

/**
 * Sends `content` in `sessionId`, checks that the turn's first model call carried the stored
 * conversation (and the new message) exactly, and returns the turn's events and ProcessRequests.
 */
async function turnSeeing(
  sessionId: string,
  content: string,
  clientMessageId = "",
  mode = SessionMode.NORMAL,
): Promise<{
  evs: Awaited<ReturnType<typeof collect>>;
  requests: ProcessRequest[];
  shown: ReturnType<typeof h.model.chatRequests>[number];
}> {
  const before = sessionId ? (await h.client.getHistory({ sessionId, limit: 1000 })).messages : [];
  const calls = h.model.chatRequests().length;
  const sentBefore = sent.length;
  const evs = await collect(h.client.sendMessage({ content, sessionId, clientMessageId, mode }));
  const first = h.model.chatRequests()[calls];
  expect(first, "the turn called the model").toBeDefined();
  expect(first?.messages.slice(1, -1)).toEqual(reference(before));
  expect(first?.messages.at(-1)).toEqual({ role: "user", content });
  return { evs, requests: sent.slice(sentBefore), shown: first! };
}

const readHello = { toolCalls: [{ name: "files__read_file", arguments: { path: "hello.txt" } }] };

describe.skipIf(skip)("engine end to end: the Agent is sent only what it lacks", () => {
  it("sends only new messages after the first exchanges, and the model sees the whole conversation each turn", async () => {
    h.model.enqueue(loadFiles, readHello, { content: "It says hello world." });
    const t1 = await turnSeeing("", "What is in hello.txt?");
    const sessionId = t1.evs[0]!.sessionId;
    h.model.enqueue({ content: "Sure." });
    const t2 = await turnSeeing(sessionId, "Thanks.");
    h.model.enqueue(readHello, { content: "Still hello world." });
    const t3 = await turnSeeing(sessionId, "Read it again.");
    h.model.enqueue({ content: "Bye." });
    const t4 = await turnSeeing(sessionId, "Bye.");
    for (const t of [t1, t2, t3, t4]) expect(kind(final(t.evs))).toBe("RESPONSE_COMPLETE");
    expect(t1.requests.map((r) => [r.historyBase, r.history.length])).toEqual([[0, 0]]);
    // The first exchange: user, assistant call, tool result, assistant text.
    expect(t2.requests.map((r) => [r.historyBase, r.history.length])).toEqual([[0, 4]]);
    expect(t3.requests.map((r) => [r.historyBase, r.history.length])).toEqual([[4, 2]]);
    expect(t4.requests.map((r) => [r.historyBase, r.history.length])).toEqual([[6, 4]]);
    expect(new Set([t2, t3, t4].map((t) => t.requests[0]!.historyGeneration)).size).toBe(1);
    // The system prompt and the files tools (loaded in t1) go with t1 and t2, then the Agent keeps
    // them; the model is shown the same ones every turn.
    expect([t1, t2, t3, t4].map((t) => t.requests[0]!.sameDefinitions)).toEqual([false, false, true, true]);
    expect(t2.requests[0]!.tools.map((t) => t.name)).toContain("files__read_file");
    expect(t3.requests[0]!.systemPrompt).toBe("");
    expect(t3.requests[0]!.tools).toEqual([]);
    for (const t of [t3, t4]) {
      expect(t.shown.messages[0]).toEqual(t2.shown.messages[0]);
      expect(t.shown.tools).toEqual(t2.shown.tools);
    }
    expect(t2.shown.messages[0]).toEqual({ role: "system", content: t2.requests[0]!.systemPrompt });
  });

  it("an off-the-record session (kept in the Engine's memory only) gets its additions too", async () => {
    h.model.enqueue({ content: "one" });
    const sessionId = (await turnSeeing("", "First.", "", SessionMode.OTR)).evs[0]!.sessionId;
    for (const [i, word] of ["two", "three", "four"].entries()) {
      h.model.enqueue({ content: word });
      const t = await turnSeeing(sessionId, `Turn ${String(i + 2)}.`);
      expect(kind(final(t.evs))).toBe("RESPONSE_COMPLETE");
      if (i > 0) expect(t.requests[0]!.historyBase).toBeGreaterThan(0);
    }
  });

  it("after a turn cancelled mid-stream, a failed turn and a replayed message, the model sees what was stored", async () => {
    h.model.enqueue({ content: "Hello." });
    const sessionId = (await turnSeeing("", "Hi.")).evs[0]!.sessionId;
    h.model.enqueue({ content: "Hi." });
    await turnSeeing(sessionId, "Hi again.");

    // Cancelled while the answer streams: the words streamed so far are stored.
    h.model.enqueue({ content: "one two three four five six seven eight nine ten", tokenDelayMs: 150 });
    let cancelled = false;
    const evs = [];
    for await (const ev of h.client.sendMessage({ content: "Count to ten slowly.", sessionId })) {
      evs.push(ev);
      if (ev.eventType === T.LLM_TOKEN && !cancelled) {
        cancelled = true;
        expect((await h.client.cancelMessage({ sessionId, messageId: ev.messageId })).cancelled).toBe(true);
      }
    }
    expect(kind(final(evs))).toBe("TURN_CANCELLED");
    const partial = (await h.client.getHistory({ sessionId, limit: 1000 })).messages.at(-1);
    expect(partial?.role).toBe("assistant");
    expect(partial?.content.length).toBeGreaterThan(0);
    expect(partial?.content).not.toContain("ten");

    // A model error that is not retried fails the turn; its message is stored without an answer.
    h.model.enqueue({ content: "after the cancel" });
    await turnSeeing(sessionId, "Go on.");
    h.model.enqueue({ status: 400, errorMessage: "scripted bad request" });
    const failed = await turnSeeing(sessionId, "This one fails.");
    expect(final(failed.evs).pipelineError?.code).toBeTruthy();

    // The same client message id again replays the turn: no new ProcessRequest.
    h.model.enqueue({ content: "once" });
    const once = await turnSeeing(sessionId, "Say once.", "cm-1");
    const sentBefore = sent.length;
    const calls = h.model.chatRequests().length;
    const again = await collect(h.client.sendMessage({ content: "Say once.", sessionId, clientMessageId: "cm-1" }));
    expect(sent.length).toBe(sentBefore);
    expect(h.model.chatRequests().length).toBe(calls);
    expect(final(again).messageId).toBe(final(once.evs).messageId);

    h.model.enqueue({ content: "all there" });
    const last = await turnSeeing(sessionId, "Is everything there?");
    expect(final(last.evs).responseComplete?.content).toBe("all there");
    // All of it went as additions to one generation.
    expect([once, last].every((t) => t.requests[0]!.historyBase > 0)).toBe(true);
    expect(failed.requests[0]!.historyBase).toBeGreaterThan(0);
  });

  it("an Agent killed between turns and an Engine restarted get the whole conversation", async () => {
    h.model.enqueue(loadFiles, readHello, { content: "hello world, it says." });
    const sessionId = (await turnSeeing("", "Read hello.txt.")).evs[0]!.sessionId;
    h.model.enqueue({ content: "noted" });
    const kept = await turnSeeing(sessionId, "Note it.");
    h.model.enqueue({ content: "noted again" });
    const delta = await turnSeeing(sessionId, "And again.");
    expect(delta.requests[0]!.historyBase).toBeGreaterThan(0);

    const pid = h.engine.agentPid()!;
    process.kill(pid, "SIGKILL");
    await waitFor(async () => {
      const s = await h.client.getStatus({});
      return s.agentConnected && h.engine.agentPid() !== pid;
    }, 20_000);
    h.model.enqueue({ content: "back" });
    const afterKill = await turnSeeing(sessionId, "Still there?");
    expect(afterKill.requests.map((r) => r.historyBase)).toEqual([0]);
    expect(afterKill.requests[0]!.historyGeneration).not.toBe(kept.requests[0]!.historyGeneration);
    h.model.enqueue({ content: "yes" });
    expect((await turnSeeing(sessionId, "Sure?")).requests[0]!.historyBase).toBeGreaterThan(0);

    await h.restart();
    tap();
    h.model.enqueue({ content: "resumed" });
    const resumed = await turnSeeing(sessionId, "After the restart?");
    expect(resumed.requests.map((r) => r.historyBase)).toEqual([0]);
    expect(final(resumed.evs).responseComplete?.content).toBe("resumed");
  });
});
