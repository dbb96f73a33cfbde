import { afterEach, describe, expect, it } from "vitest";
import { reply, waitFor } from "@palisade/testing";
import type { ScriptedServerOptions } from "@palisade/testing";
import type { ToolCallProposed } from "@palisade/protocol/pipeline";
import { SessionMode } from "@palisade/protocol/types";
import type { FakeEngineOptions } from "./fake-engine.js";
import { startRig } from "./setup.js";
import type { Rig } from "./setup.js";

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.stop();
  rig = undefined;
});

async function start(
  engine: FakeEngineOptions = {},
  model: ScriptedServerOptions = {},
  contextWindow?: number,
): Promise<Rig> {
  rig = await startRig(engine, model, contextWindow ? { contextWindow } : {});
  return rig;
}

const readFile = {
  name: "files__read_file",
  description: "Read a file",
  parametersJson: '{"type":"object","properties":{"path":{"type":"string"}}}',
  group: "files",
};

describe("Agent over RunSession (fake Engine, scripted model, real openai SDK)", () => {
  it("announces itself and answers a text turn with streamed tokens", async () => {
    // Tokens 15 ms apart arrive in separate reads: each is its own event.
    const { engine, model } = await start({}, { turns: [reply.text("Hello from the model", { tokenDelayMs: 15 })] });
    const ready = engine.events[0]?.event;
    expect(ready?.case).toBe("ready");
    if (ready?.case === "ready") {
      // The token is the call's credential, in its metadata; AgentReady does not repeat it.
      expect(ready.value).toMatchObject({ agentId: "test-agent", token: "", pid: process.pid, version: "0.1.0" });
      expect(engine.credentials).toEqual(["Bearer spawn-token"]);
      expect(ready.value.sandbox?.permissionModel).toBe(true);
    }
    const out = await engine.turn({
      sessionId: "s1",
      messageId: "m1",
      content: "hi",
      systemPrompt: "You are terse.",
      history: [
        { role: "user", content: "earlier" },
        { role: "assistant", content: "earlier answer" },
      ],
    });
    expect(out.error).toBeUndefined();
    expect(out.tokens).toBe("Hello from the model");
    expect(
      out.events
        .filter((e) => e.event.case === "llmTokenEmitted")
        .map((e) => (e.event.case === "llmTokenEmitted" ? e.event.value.text : "")),
    ).toEqual(["Hello ", "from ", "the ", "model"]);
    expect(out.complete).toMatchObject({
      sessionId: "s1",
      messageId: "m1",
      content: "Hello from the model",
      llmCalls: 1,
      toolRounds: 0,
    });
    expect(out.complete?.usage?.inputTokens).toBeGreaterThan(0);
    expect(out.complete?.usage?.outputTokens).toBeGreaterThan(0);
    const sent = model.chatRequests()[0];
    expect(sent?.model).toBe("scripted-model");
    expect(sent?.stream).toBe(true);
    expect(sent?.messages).toEqual([
      { role: "system", content: "You are terse." },
      { role: "user", content: "earlier" },
      { role: "assistant", content: "earlier answer" },
      { role: "user", content: "hi" },
    ]);
    expect(model.requests[0]?.headers.authorization).toBe("Bearer sk-test");
  });

  it("proposes a tool call, feeds the result back and finishes", async () => {
    const { engine, model } = await start(
      { tools: { files__read_file: { content: (a) => `contents of ${(a as { path: string }).path}: hi` } } },
      {
        turns: [
          reply.toolCalls([{ id: "call_x", name: "files__read_file", arguments: { path: "a.txt" } }]),
          reply.text("The file says hi"),
        ],
      },
    );
    const out = await engine.turn({ sessionId: "s1", messageId: "m1", content: "read a.txt", tools: [readFile] });
    expect(out.error).toBeUndefined();
    expect(engine.proposals).toHaveLength(1);
    expect(engine.proposals[0]).toMatchObject({
      sessionId: "s1",
      messageId: "m1",
      callId: "call_x",
      toolName: "files__read_file",
    });
    expect(JSON.parse(engine.proposals[0]?.argumentsJson ?? "")).toEqual({ path: "a.txt" });
    const second = model.chatRequests()[1];
    expect(second?.messages.slice(-2)).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_x", type: "function", function: { name: "files__read_file", arguments: '{"path":"a.txt"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_x", content: "contents of a.txt: hi" },
    ]);
    expect(model.chatRequests()[0]?.tools?.map((t) => t.function.name)).toEqual(["files__read_file"]);
    expect(out.complete).toMatchObject({ content: "The file says hi", llmCalls: 2, toolRounds: 1 });
    const thought = out.complete?.thoughts.find((t) => t.stage === "tool_call");
    expect(thought?.summary).toContain("files__read_file");
    expect(JSON.parse(thought?.detailJson ?? "{}")).toMatchObject({ call_id: "call_x", is_error: false });
  });

  it("runs parallel tool calls concurrently and returns results in the model's order", async () => {
    const { engine, model } = await start(
      { tools: { slow: { content: "slow done", delayMs: 150 }, fast: { content: "fast done", delayMs: 5 } } },
      {
        turns: [
          reply.toolCalls([{ name: "slow" }, { name: "fast" }, { name: "missing_tool" }]),
          reply.text("both done"),
        ],
      },
    );
    const out = await engine.turn({ sessionId: "s1", messageId: "m1", content: "go" });
    expect(out.complete?.content).toBe("both done");
    // All three were proposed before the Engine answered any of them.
    expect(Math.max(...engine.proposalTimes)).toBeLessThanOrEqual(Math.min(...engine.resultTimes));
    const ids = engine.proposals.map((p) => p.callId);
    expect(new Set(ids).size).toBe(3);
    const tools = model.chatRequests()[1]?.messages.filter((m) => m.role === "tool");
    expect(tools?.map((m) => [m.tool_call_id, m.content])).toEqual([
      [ids[0], "slow done"],
      [ids[1], "fast done"],
      [ids[2], "unknown tool missing_tool"],
    ]);
    // The fast call's proposal did not wait for the slow call's result.
    const order = engine.events.flatMap((e) => (e.event.case === "toolProposal" ? [e.event.value.toolName] : []));
    expect(order).toEqual(["slow", "fast", "missing_tool"]);
  });

  it("serves two sessions at once; a slow one does not block a fast one", async () => {
    const { engine } = await start(
      {},
      {
        rules: [
          { match: { content: "slow" }, reply: reply.text("one two three four five six", { tokenDelayMs: 60 }) },
          { match: { content: "fast" }, reply: reply.text("quick answer here", { tokenDelayMs: 5 }) },
        ],
      },
    );
    engine.send({ directive: { case: "process", value: { sessionId: "A", messageId: "a1", content: "slow" } } });
    await waitFor(() => engine.ofMessage("a1").some((e) => e.event.case === "llmTokenEmitted"));
    engine.send({ directive: { case: "process", value: { sessionId: "B", messageId: "b1", content: "fast" } } });
    const [a, b] = await Promise.all([engine.outcome("a1"), engine.outcome("b1")]);
    expect(a.tokens).toBe("one two three four five six");
    expect(b.tokens).toBe("quick answer here");
    const idx = (pred: (i: number) => boolean): number => engine.events.findIndex((_, i) => pred(i));
    const doneA = idx(
      (i) => engine.events[i]?.event.case === "responseComplete" && engine.events[i]?.event.value?.sessionId === "A",
    );
    const doneB = idx(
      (i) => engine.events[i]?.event.case === "responseComplete" && engine.events[i]?.event.value?.sessionId === "B",
    );
    expect(doneB).toBeLessThan(doneA);
    const sessions = engine.events.flatMap((e) =>
      e.event.case === "llmTokenEmitted" ? [e.event.value.sessionId] : [],
    );
    expect(sessions.join("")).toMatch(/A+B+A+/);
  });

  it("cancels a turn mid-stream: the model request is aborted and the turn ends CANCELLED", async () => {
    const { engine, model } = await start(
      {},
      { turns: [reply.text("a b c d e f g h i j k l m n o p", { tokenDelayMs: 100 })] },
    );
    engine.send({ directive: { case: "process", value: { sessionId: "s1", messageId: "m1", content: "long" } } });
    await waitFor(() => engine.ofMessage("m1").some((e) => e.event.case === "llmTokenEmitted"));
    const at = Date.now();
    engine.send({
      directive: { case: "cancel", value: { sessionId: "s1", messageId: "m1", reason: "user pressed Esc" } },
    });
    const out = await engine.outcome("m1");
    expect(Date.now() - at).toBeLessThan(1000); // the full stream would take 1.5 s
    expect(out.complete).toBeUndefined();
    expect(out.error).toMatchObject({ code: "CANCELLED", recoverable: true });
    expect(out.error?.message).toContain("user pressed Esc");
    await waitFor(() => model.requests[0]?.aborted, { message: "model request aborted" });
    expect(out.tokens.length).toBeLessThan("a b c d e f g h i j k l m n o p".length);
  });

  it("cancels a turn waiting for a tool result", async () => {
    const { engine } = await start(
      { tools: { never: { delayMs: 60_000 } } },
      { turns: [reply.toolCalls([{ name: "never" }])] },
    );
    engine.send({ directive: { case: "process", value: { sessionId: "s1", messageId: "m1", content: "x" } } });
    await waitFor(() => engine.proposals.length === 1);
    engine.send({ directive: { case: "cancel", value: { sessionId: "s1" } } });
    const out = await engine.outcome("m1");
    expect(out.error?.code).toBe("CANCELLED");
  });

  it("retries a 429 (honouring retry-after) and then succeeds", async () => {
    const { engine, model } = await start(
      {},
      { turns: [reply.error(429, { retryAfter: 0.2 }), reply.text("after retry")] },
    );
    const out = await engine.turn({ sessionId: "s1", messageId: "m1", content: "x" });
    expect(out.complete?.content).toBe("after retry");
    expect(model.chatRequests()).toHaveLength(2);
    const gap = (model.requests[1]?.receivedAt ?? 0) - (model.requests[0]?.receivedAt ?? 0);
    expect(gap).toBeGreaterThanOrEqual(180);
  });

  it("gives up on repeated 500s with LLM_CALL_FAILED saying what happened", async () => {
    const { engine, model } = await start({}, { fallback: reply.error(500, { errorMessage: "upstream exploded" }) });
    const out = await engine.turn({ sessionId: "s1", messageId: "m1", content: "x" });
    expect(out.error).toMatchObject({ code: "LLM_CALL_FAILED", recoverable: true });
    expect(out.error?.message).toMatch(/HTTP 500.*upstream exploded.*gave up after 4 attempt/);
    expect(model.chatRequests()).toHaveLength(4);
  });

  it("does not retry a 401 and points at OPENAI_API_KEY", async () => {
    const { engine, model } = await start({}, { fallback: reply.error(401, { errorMessage: "bad key" }) });
    const out = await engine.turn({ sessionId: "s1", messageId: "m1", content: "x" });
    expect(out.error?.code).toBe("LLM_CALL_FAILED");
    expect(out.error?.message).toContain("OPENAI_API_KEY");
    expect(model.chatRequests()).toHaveLength(1);
  });

  it("retries a stream that fails before any token, but not one that already streamed text", async () => {
    const { engine, model } = await start({}, { turns: [{ content: "x y", failAfterChunks: 1 }, reply.text("clean")] });
    const ok = await engine.turn({ sessionId: "s1", messageId: "m1", content: "x" });
    expect(ok.complete?.content).toBe("clean");
    model.enqueue({ content: "partial words here", failAfterChunks: 3, errorMessage: "stream broke" });
    const bad = await engine.turn({ sessionId: "s1", messageId: "m2", content: "y" });
    expect(bad.error).toMatchObject({ code: "STREAM_ERROR" });
    expect(bad.error?.message).toContain("stream broke");
    expect(model.chatRequests()).toHaveLength(3);
  });

  it("stops after 25 tool rounds with a clear message (and honours max_tool_rounds)", async () => {
    const { engine, model } = await start({ tools: { noop: {} } }, { fallback: reply.toolCalls([{ name: "noop" }]) });
    const out = await engine.turn({ sessionId: "s1", messageId: "m1", content: "loop" });
    expect(out.complete?.toolRounds).toBe(25);
    expect(out.complete?.llmCalls).toBe(25);
    expect(out.complete?.content).toContain("Stopped after 25 tool rounds");
    expect(out.tokens).toContain("Stopped after 25 tool rounds");
    expect(new Set(engine.proposals.map((p) => p.callId)).size).toBe(25);
    const before = model.chatRequests().length;
    const capped = await engine.turn({ sessionId: "s1", messageId: "m2", content: "loop", maxToolRounds: 3 });
    expect(capped.complete?.toolRounds).toBe(3);
    expect(model.chatRequests().length - before).toBe(3);
  });

  it("ends the turn after a terminal tool result without another model call", async () => {
    const { engine, model } = await start(
      { tools: { send_email: { content: "sent", terminal: true } } },
      { turns: [reply.toolCalls([{ name: "send_email" }], { content: "Sending now." })] },
    );
    const out = await engine.turn({ sessionId: "s1", messageId: "m1", content: "mail it" });
    expect(out.complete).toMatchObject({ content: "Sending now.", toolRounds: 1, llmCalls: 1 });
    expect(model.chatRequests()).toHaveLength(1);
  });

  it("load_tools: requests tool defs from the Engine and offers them for the rest of the turn", async () => {
    const loadTools = {
      name: "load_tools",
      description: "Load tool groups.",
      parametersJson: '{"type":"object","properties":{"groups":{"type":"array","items":{"type":"string"}}}}',
    };
    const { engine, model } = await start(
      {
        initial: {
          tools: [loadTools],
          groups: [
            { name: "files", description: "Read and write files", toolCount: 1 },
            { name: "agents", toolCount: 3 },
          ],
        },
        groups: { files: [readFile] },
        tools: { files__read_file: { content: "hi" } },
      },
      {
        turns: [
          reply.toolCalls([{ id: "lt1", name: "load_tools", arguments: { groups: ["files", "nope"] } }]),
          reply.toolCalls([{ id: "rf1", name: "files__read_file", arguments: { path: "a" } }]),
          reply.text("done"),
        ],
      },
    );
    const out = await engine.turn({ sessionId: "s1", messageId: "m1", content: "read a" });
    expect(out.complete?.content).toBe("done");
    const req = out.events.find((e) => e.event.case === "toolDefsRequest")?.event.value as
      { groups: string[]; requestId: string } | undefined;
    expect(req?.groups).toEqual(["files", "nope"]);
    expect(req?.requestId).not.toBe("");
    expect(engine.proposals.map((p: ToolCallProposed) => p.toolName)).toEqual(["files__read_file"]);
    const [first, second] = model.chatRequests();
    expect(first?.tools?.map((t) => t.function.name)).toEqual(["load_tools"]);
    expect(first?.tools?.[0]?.function.description).toMatch(
      /files \(1 tools\): Read and write files[\s\S]*agents \(3 tools\)/,
    );
    expect(second?.tools?.map((t) => t.function.name)).toEqual(["load_tools", "files__read_file"]);
    const loadResult = second?.messages.find((m) => m.role === "tool");
    expect(loadResult?.content).toMatch(/Loaded 1 tools: files__read_file\. Unknown groups: nope\./);

    // The Engine remembers loaded groups: the next turn brings them in ProcessRequest.tools.
    model.enqueue(reply.text("again"));
    await engine.turn({
      sessionId: "s1",
      messageId: "m2",
      content: "more",
      loadedGroups: ["files"],
      tools: [readFile],
    });
    expect(model.chatRequests()[3]?.tools?.map((t) => t.function.name)).toEqual(["load_tools", "files__read_file"]);
  });

  it("compacts a long history: one summary call, MemoryFlush, then summary + recent turns", async () => {
    const history = Array.from({ length: 12 }, (_, i) => [
      { role: "user", content: `question ${String(i)} ${"lorem ipsum ".repeat(30)}` },
      { role: "assistant", content: `answer ${String(i)} ${"dolor sit amet ".repeat(25)}` },
    ]).flat();
    const { engine, model } = await start(
      {},
      {
        rules: [
          {
            match: { when: (r) => String(r.messages[0]?.content).includes("You compact") },
            reply: reply.text("FACTS:\n- the user likes tea\nSUMMARY:\nThey discussed lorem ipsum."),
          },
          { match: { role: "user" }, reply: reply.text("final answer") },
        ],
      },
      2000,
    );
    const out = await engine.turn({
      sessionId: "s1",
      messageId: "m1",
      content: "and now?",
      systemPrompt: "SYS",
      history,
    });
    expect(out.complete?.content).toBe("final answer");
    expect(out.complete?.llmCalls).toBe(2);
    const flush = out.events.find((e) => e.event.case === "memoryFlush")?.event.value as
      { content: string; summary: string; compactedMessages: number; sessionId: string } | undefined;
    expect(flush).toMatchObject({
      sessionId: "s1",
      content: "- the user likes tea",
      summary: "They discussed lorem ipsum.",
    });
    expect(flush?.compactedMessages).toBeGreaterThan(0);
    expect(flush?.compactedMessages).toBeLessThan(history.length);
    // The split falls on a user message, so whole exchanges are compacted.
    expect((flush?.compactedMessages ?? 1) % 2).toBe(0);
    const final = model.chatRequests()[1];
    expect(final?.messages[0]).toEqual({ role: "system", content: "SYS" });
    expect(String(final?.messages[1]?.content)).toContain("They discussed lorem ipsum.");
    expect(final?.messages.length).toBe(2 + (history.length - (flush?.compactedMessages ?? 0)) + 1);
    expect(final?.messages.at(-1)).toEqual({ role: "user", content: "and now?" });
    // Only streamed tokens of the real answer reach the client.
    expect(out.tokens).toBe("final answer");

    // Off the record: the summary is still used, but no durable facts leave the turn.
    const otr = await engine.turn({ sessionId: "s2", messageId: "m2", content: "otr", history, mode: SessionMode.OTR });
    const otrFlush = otr.events.find((e) => e.event.case === "memoryFlush")?.event.value as
      { content: string; summary: string } | undefined;
    expect(otrFlush).toMatchObject({ content: "", summary: "They discussed lorem ipsum." });
  });

  it("does not compact a history that fits", async () => {
    const { engine, model } = await start({}, { turns: [reply.text("ok")] }, 2000);
    const out = await engine.turn({
      sessionId: "s1",
      messageId: "m1",
      content: "hi",
      history: [
        { role: "user", content: "short" },
        { role: "assistant", content: "short" },
      ],
    });
    expect(out.events.some((e) => e.event.case === "memoryFlush")).toBe(false);
    expect(model.chatRequests()).toHaveLength(1);
  });

  it("exits with a clear message when no InitialToolDefs arrive", async () => {
    rig = await startRig({ initial: false }, {}, { initialToolDefsTimeoutMs: 300 });
    const exit = await rig.exit;
    expect(exit.code).toBe(3);
    expect(exit.reason).toMatch(/no InitialToolDefs .* within 0.3 s/);
  });

  it("on ShutdownDirective cancels running turns, reports them and exits 0", async () => {
    const { engine, exit } = await start({}, { turns: [reply.text("a b c d e f g", { tokenDelayMs: 200 })] });
    engine.send({ directive: { case: "process", value: { sessionId: "s1", messageId: "m1", content: "x" } } });
    await waitFor(() => engine.ofMessage("m1").some((e) => e.event.case === "llmTokenEmitted"));
    engine.send({ directive: { case: "shutdown", value: { reason: "engine stopping" } } });
    const result = await exit;
    expect(result).toEqual({ code: 0, reason: "shut down by the Engine: engine stopping" });
    const out = await engine.outcome("m1");
    expect(out.error?.code).toBe("CANCELLED");
  });
});
