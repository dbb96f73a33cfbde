// ProcessRequest carries only what the Agent lacks; the Engine decides what that is, and an Agent
// that says it lacks the base gets the whole conversation once — never more, never a skipped check.
import { toBinary } from "@bufbuild/protobuf";
import { afterEach, describe, expect, it } from "vitest";
import { chainHistoryDigest } from "@palisade/protocol";
import { ProcessRequestSchema } from "@palisade/protocol/pipeline";
import type { ProcessRequest } from "@palisade/protocol/pipeline";
import { AgentHistory } from "../src/turns/history-sync.js";
import type { MessageRecord } from "../src/ports.js";
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

describe("system prompt and tools sent to the Agent", () => {
  const bytes = (p: ProcessRequest): number => toBinary(ProcessRequestSchema, p).length;
  const defs = (p: ProcessRequest) => ({
    same: p.sameDefinitions,
    prompt: p.systemPrompt.length > 0,
    groups: p.loadedGroups,
    tools: p.tools.map((t) => t.name),
  });

  it("go once per conversation; again when the tool set changes (load_tools) and when the Agent lacks its copy", async () => {
    h = await startHarness();
    const t1 = await turn(h, "one", "first");
    const sessionId = t1.sessionId;
    const t2 = await turn(h, "two", "second", sessionId);
    const t3 = await turn(h, "three", "third", sessionId);
    expect(defs(t1.req)).toEqual({ same: false, prompt: true, groups: [], tools: [] });
    expect(defs(t2.req)).toEqual({ same: false, prompt: true, groups: [], tools: [] });
    // The conversation builds on the Agent's copy and nothing else changed: no prompt, no tools.
    expect(defs(t3.req)).toEqual({ same: true, prompt: false, groups: [], tools: [] });
    expect(t3.req.historyBase).toBe(2);
    // (the prompt is most of a request here: 507 of 693 bytes; with the files tools, ~6 KB)
    expect(bytes(t3.req)).toBeLessThan(bytes(t2.req) / 2);

    // The model loads a group: the next request carries the new definitions, once.
    const stream = collect(h.client.sendMessage({ content: "four", sessionId }));
    const p4 = await h.agent.next("process");
    expect(p4.sameDefinitions).toBe(true);
    await h.agent.send({
      event: {
        case: "toolDefsRequest",
        value: { sessionId, messageId: p4.messageId, requestId: "r1", groups: ["demo"] },
      },
    });
    const delivered = await h.agent.next("toolDefs");
    expect(delivered.loadedGroups).toEqual(["demo"]);
    await h.agent.complete(sessionId, p4.messageId, "fourth");
    await stream;
    const t5 = await turn(h, "five", "fifth", sessionId);
    expect(defs(t5.req)).toMatchObject({ same: false, prompt: true, groups: ["demo"] });
    expect(t5.req.tools.map((t) => t.name)).toEqual(delivered.tools.map((t) => t.name));
    expect(t5.req.tools.length).toBeGreaterThan(0);
    const t6 = await turn(h, "six", "sixth", sessionId);
    expect(defs(t6.req)).toEqual({ same: true, prompt: false, groups: [], tools: [] });
    expect(bytes(t6.req)).toBeLessThan(bytes(t5.req) / 2);

    // An Agent that lost its copy gets everything again: conversation, prompt and tools.
    const s7 = collect(h.client.sendMessage({ content: "seven", sessionId }));
    const p7 = await h.agent.next("process");
    expect(p7.sameDefinitions).toBe(true);
    await h.agent.send({
      event: { case: "historyNeeded", value: { sessionId, messageId: p7.messageId, reason: "test: dropped" } },
    });
    const whole = await h.agent.next("process");
    expect(whole.historyBase).toBe(0);
    expect(defs(whole)).toEqual({
      same: false,
      prompt: true,
      groups: ["demo"],
      tools: t5.req.tools.map((t) => t.name),
    });
    expect(whole.systemPrompt).toBe(t5.req.systemPrompt);
    await h.agent.complete(sessionId, whole.messageId, "seventh");
    await s7;
  });
});

describe("AgentHistory: definitions follow the Agent connection", () => {
  const record = (id: string, role: "user" | "assistant", content: string, seq: number): MessageRecord => ({
    id,
    sessionId: "s",
    role,
    content,
    createdAt: seq,
    toolCalls: [],
    seq,
  });
  const memory = { summary: "", compactedMessages: 0 };
  const definitions = { systemPrompt: "You are Ada.", loadedGroups: ["demo"], tools: [{ name: "demo__echo" }] };

  it("a new Agent connection, or a changed prompt, gets the definitions again", () => {
    const history = new AgentHistory();
    history.connected();
    const a = [record("1", "user", "one", 1), record("2", "assistant", "first", 2)];
    const b = [...a, record("3", "user", "two", 3), record("4", "assistant", "second", 4)];
    expect(history.next("s", a, memory, definitions)).toMatchObject({
      sameDefinitions: false,
      systemPrompt: "You are Ada.",
    });
    expect(history.next("s", b, memory, { ...definitions, tools: [{ name: "demo__echo" }] })).toMatchObject({
      historyBase: 2,
      sameDefinitions: true,
      systemPrompt: "",
      tools: [],
    });
    expect(history.next("s", b, memory, { ...definitions, systemPrompt: "You are Bea." })).toMatchObject({
      historyBase: 4,
      sameDefinitions: false,
      systemPrompt: "You are Bea.",
    });
    history.connected();
    expect(history.next("s", b, memory, { ...definitions, systemPrompt: "You are Bea." })).toMatchObject({
      historyBase: 0,
      sameDefinitions: false,
      systemPrompt: "You are Bea.",
      loadedGroups: ["demo"],
      tools: [{ name: "demo__echo" }],
    });
  });
});
