// ProcessRequest carries only what the Agent lacks; the Engine decides what that is, and an Agent
// that says it lacks the base gets the whole conversation once — never more, never a skipped check.
import { afterEach, describe, expect, it } from "vitest";
import { chainHistoryDigest } from "@palisade/protocol";
import type { ProcessRequest } from "@palisade/protocol/pipeline";
import { collect, startHarness } from "./helpers/setup.js";
import type { Harness } from "./helpers/setup.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const summary = (p: ProcessRequest) => ({
  base: p.historyBase,
  roles: p.history.map((m) => m.role),
  contents: p.history.map((m) => m.content),
});

/** One turn answered by the scripted Agent with `reply`; returns the ProcessRequest it got. */
async function turn(
  h: Harness,
  content: string,
  reply: string,
  sessionId = "",
): Promise<{ req: ProcessRequest; sessionId: string }> {
  const stream = collect(h.client.sendMessage({ content, sessionId }));
  const req = await h.agent.next("process");
  await h.agent.complete(req.sessionId, req.messageId, reply);
  const evs = await stream;
  expect(evs.at(-1)?.responseComplete?.content).toBe(reply);
  return { req, sessionId: req.sessionId };
}

describe("history sent to the Agent", () => {
  it("after the first exchange, a ProcessRequest carries only the new messages, with the base and digest of the rest", async () => {
    h = await startHarness();
    const t1 = await turn(h, "one", "first");
    const t2 = await turn(h, "two", "second", t1.sessionId);
    const t3 = await turn(h, "three", "third", t1.sessionId);
    expect(summary(t1.req)).toEqual({ base: 0, roles: [], contents: [] });
    expect(summary(t2.req)).toEqual({ base: 0, roles: ["user", "assistant"], contents: ["one", "first"] });
    expect(summary(t3.req)).toEqual({ base: 2, roles: ["user", "assistant"], contents: ["two", "second"] });
    expect(t3.req.historyGeneration).toBe(t2.req.historyGeneration);
    expect(t3.req.historyDigest).toBe(chainHistoryDigest("", t2.req.history));
    expect(t1.req.content).toBe("one");
    expect(t3.req.content).toBe("three");
  });

  it("an Agent that lacks the base gets the turn again with the whole conversation; asking twice fails the turn", async () => {
    h = await startHarness();
    const t1 = await turn(h, "one", "first");
    await turn(h, "two", "second", t1.sessionId);

    const stream = collect(h.client.sendMessage({ content: "three", sessionId: t1.sessionId }));
    const delta = await h.agent.next("process");
    expect(delta.historyBase).toBe(2);
    await h.agent.send({
      event: {
        case: "historyNeeded",
        value: { sessionId: delta.sessionId, messageId: delta.messageId, reason: "test: dropped" },
      },
    });
    const whole = await h.agent.next("process");
    expect(whole.messageId).toBe(delta.messageId);
    expect(summary(whole)).toEqual({
      base: 0,
      roles: ["user", "assistant", "user", "assistant"],
      contents: ["one", "first", "two", "second"],
    });
    expect(whole.historyGeneration).not.toBe(delta.historyGeneration);
    await h.agent.complete(whole.sessionId, whole.messageId, "third");
    expect((await stream).at(-1)?.responseComplete?.content).toBe("third");

    // The next turn builds on the generation the whole conversation started.
    const t4 = collect(h.client.sendMessage({ content: "four", sessionId: t1.sessionId }));
    const next = await h.agent.next("process");
    expect(summary(next)).toEqual({ base: 4, roles: ["user", "assistant"], contents: ["three", "third"] });
    expect(next.historyGeneration).toBe(whole.historyGeneration);
    await h.agent.send({
      event: { case: "historyNeeded", value: { sessionId: next.sessionId, messageId: next.messageId, reason: "test" } },
    });
    const again = await h.agent.next("process");
    expect(again.historyBase).toBe(0);
    await h.agent.send({
      event: {
        case: "historyNeeded",
        value: { sessionId: again.sessionId, messageId: again.messageId, reason: "test: again" },
      },
    });
    const evs = await t4;
    expect(evs.at(-1)?.pipelineError).toMatchObject({ code: "AGENT_ERROR", recoverable: true });
    expect(evs.at(-1)?.pipelineError?.message).toContain("asked for the conversation again");
    // Only the turn the Engine knows about is answered: a HistoryNeeded for another turn changes nothing.
    await h.agent.send({
      event: { case: "historyNeeded", value: { sessionId: next.sessionId, messageId: "msg_unknown", reason: "test" } },
    });
    // The failed turn's message is stored, and follows the whole conversation sent last.
    const t5 = await turn(h, "five", "fifth", t1.sessionId);
    expect(summary(t5.req)).toEqual({ base: 6, roles: ["user"], contents: ["four"] });
    expect(t5.req.historyGeneration).toBe(again.historyGeneration);
  });

  it("a compaction changes the conversation: the next request carries it whole, summary first", async () => {
    h = await startHarness();
    const t1 = await turn(h, "one", "first");
    await turn(h, "two", "second", t1.sessionId);
    const stream = collect(h.client.sendMessage({ content: "three", sessionId: t1.sessionId }));
    const req = await h.agent.next("process");
    expect(req.historyBase).toBe(2);
    await h.agent.send({
      event: {
        case: "memoryFlush",
        value: {
          sessionId: req.sessionId,
          messageId: req.messageId,
          content: "",
          summary: "they counted",
          compactedMessages: 2,
        },
      },
    });
    await new Promise((r) => setTimeout(r, 100));
    await h.agent.complete(req.sessionId, req.messageId, "third");
    await stream;
    const t4 = await turn(h, "four", "fourth", t1.sessionId);
    expect(summary(t4.req)).toEqual({
      base: 0,
      roles: ["system", "user", "assistant", "user", "assistant"],
      contents: ["Summary of the earlier conversation:\nthey counted", "two", "second", "three", "third"],
    });
    expect(t4.req.historyGeneration).not.toBe(req.historyGeneration);
    const t5 = await turn(h, "five", "fifth", t1.sessionId);
    expect(summary(t5.req)).toEqual({ base: 5, roles: ["user", "assistant"], contents: ["four", "fourth"] });
  });
});
