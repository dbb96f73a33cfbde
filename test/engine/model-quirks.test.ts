// Model servers as they really are: every quirk the scripted server can reproduce, each through a
// real turn (Engine, sandboxed Agent, Shield, the files capability): load_tools → read_file →
// answer, then two parallel calls. Plus refusals, errors, retries and stalls.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PipelineEventType as T } from "@palisade/protocol/pipeline";
import type { PipelineEvent } from "@palisade/protocol/pipeline";
import { messageText } from "@palisade/testing";
import type { ChatRequest, ScriptedReply, ScriptedToolCall, ServerRefusals } from "@palisade/testing";
import { built, collect, final, kind, loadFiles, startE2E } from "./helpers.js";
import type { E2E } from "./helpers.js";

const skip = built();
const IDLE_S = 2;
const REQUEST_S = 3;
let h: E2E;
beforeAll(async () => {
  if (!skip) {
    h = await startE2E({
      modelConfig: [
        "  text_tool_calls: auto",
        `  idle_timeout_s: ${IDLE_S}`,
        `  request_timeout_s: ${REQUEST_S}`,
        "  max_retries: 2",
        "  max_retry_wait_s: 5",
      ],
    });
  }
}, 60_000);
afterAll(async () => {
  await h?.close();
});
// One installation for the file: a test that failed halfway must not leave replies to the next.
beforeEach(() => {
  h?.model.clearTurns();
});

const tokens = (evs: PipelineEvent[]): string =>
  evs
    .filter((e) => e.eventType === T.LLM_TOKEN)
    .map((e) => e.llmToken?.text ?? "")
    .join("");
const thoughts = (evs: PipelineEvent[], stage: string): string =>
  evs
    .filter((e) => e.eventType === T.THOUGHT && e.thought?.stage === stage)
    .map((e) => e.thought?.text ?? "")
    .join("");

async function send(
  content: string,
  model?: string,
): Promise<{ evs: PipelineEvent[]; requests: ChatRequest[]; ms: number }> {
  const b = h.model.chatRequests().length;
  const t0 = Date.now();
  const evs = await collect(h.client.sendMessage({ content, ...(model ? { model } : {}) }));
  return { evs, requests: h.model.chatRequests().slice(b), ms: Date.now() - t0 };
}

interface Row {
  quirk: string;
  server: string;
  reply: Partial<ScriptedReply>;
  /** A model name of its own, for rows whose server refuses something (remembered per model). */
  model?: string;
  refuse?: ServerRefusals;
}

const ROWS: Row[] = [
  {
    quirk: "tool-call deltas without index",
    server: "Gemini-compatible proxies",
    reply: { quirks: { noIndex: true } },
  },
  { quirk: "every tool call at index 0", server: "Ollama 0.20, LM Studio", reply: { quirks: { sameIndex: true } } },
  {
    quirk: "no index and no ids",
    server: "proxies that strip both",
    reply: { quirks: { noIndex: true, noIds: true } },
  },
  {
    quirk: "function name repeated in every delta",
    server: "older llama.cpp server",
    reply: { quirks: { repeatName: true } },
  },
  {
    quirk: "cumulative arguments",
    server: "proxies re-sending the arguments so far",
    reply: { quirks: { cumulativeArgs: true } },
  },
  { quirk: "arguments as a JSON object", server: "Ollama-style proxies", reply: { quirks: { objectArgs: true } } },
  { quirk: "tool calls without ids", server: "llama.cpp, LocalAI", reply: { quirks: { noIds: true } } },
  {
    quirk: "one id reused for every call",
    server: "Ollama (call_0 / index ids)",
    reply: { quirks: { reusedIds: true } },
  },
  { quirk: "no finish_reason", server: "LM Studio, some proxies", reply: { quirks: { noFinishReason: true } } },
  { quirk: "no [DONE]", server: "Ollama before 0.5, proxies", reply: { quirks: { noDone: true } } },
  {
    quirk: "usage on every chunk",
    server: "vLLM (continuous usage), Groq",
    reply: { quirks: { usageEveryChunk: true } },
  },
  { quirk: "empty choices", server: "Azure OpenAI (filter results)", reply: { quirks: { emptyChoices: true } } },
  { quirk: "SSE comments", server: "OpenRouter", reply: { quirks: { comments: true } } },
  {
    quirk: "a JSON body although stream: true",
    server: "non-streaming proxies",
    reply: { quirks: { ignoreStream: true } },
  },
  {
    quirk: "tool calls as <tool_call> text",
    server: "Qwen/Hermes on vLLM or llama.cpp without a tool parser",
    reply: { quirks: { textToolCalls: "hermes" } },
  },
  {
    quirk: "tool calls as a bare JSON object",
    server: "Llama 3 on Ollama/LM Studio without a tool template",
    reply: { quirks: { textToolCalls: "json" } },
  },
  {
    quirk: "reasoning_content deltas",
    server: "DeepSeek, vLLM reasoning parser",
    reply: { reasoning: "Thinking it over.", reasoningField: "reasoning_content" },
  },
  {
    quirk: "reasoning deltas",
    server: "Ollama, OpenRouter",
    reply: { reasoning: "Thinking it over.", reasoningField: "reasoning" },
  },
  {
    quirk: "reasoning required back in tool loops",
    server: "DeepSeek thinking mode (also via OpenRouter)",
    reply: { reasoning: "Thinking it over.", reasoningField: "reasoning_content" },
    model: "deepseek-quirk",
    refuse: { missingReasoning: true },
  },
  {
    quirk: "reasoning refused when sent back",
    server: "DeepSeek R1-style endpoints",
    reply: { reasoning: "Thinking it over.", reasoningField: "reasoning_content" },
    model: "r1-quirk",
    refuse: { reasoningEcho: true },
  },
  {
    quirk: "stream_options rejected",
    server: "Mistral, Groq",
    reply: {},
    model: "mistral-quirk",
    refuse: { streamOptions: true },
  },
];

async function quirkTurn(row: Row, content: string, calls: ScriptedToolCall[], answer: string): Promise<void> {
  const r = row.reply;
  h.model.enqueue({ ...loadFiles, ...r }, { toolCalls: calls, ...r }, { content: answer, ...r });
  const { evs, requests } = await send(content, row.model);
  expect(final(evs).pipelineError?.message ?? "").toBe("");
  expect(kind(final(evs))).toBe("RESPONSE_COMPLETE");
  expect(final(evs).responseComplete?.content).toBe(answer);
  // Only the answer is shown: no call written as text, no reasoning.
  expect(tokens(evs)).toBe(answer);
  // Parallel calls finish in any order.
  const done = evs.filter((e) => e.eventType === T.ACTION_COMPLETED).map((e) => e.actionCompleted!);
  const byArgs = (a: unknown[], b: unknown[]): number => JSON.stringify(a).localeCompare(JSON.stringify(b));
  expect(done.map((d) => [d.toolName, JSON.parse(d.argumentsJson) as unknown, d.success]).sort(byArgs)).toEqual(
    calls.map((c) => [c.name, c.arguments, true]).sort(byArgs),
  );
  // Each result went back to the model under its own call.
  const last = requests.at(-1)!;
  const asked = last.messages.findLast((m) => m.role === "assistant" && (m.tool_calls ?? []).length > 0);
  expect(asked?.tool_calls?.map((c) => [c.function.name, JSON.parse(c.function.arguments) as unknown])).toEqual(
    calls.map((c) => [c.name, c.arguments]),
  );
  const ids = asked?.tool_calls?.map((c) => c.id) ?? [];
  expect(new Set(ids).size).toBe(calls.length);
  const results = Object.fromEntries(
    last.messages.filter((m) => m.role === "tool").map((m) => [m.tool_call_id, messageText(m)]),
  );
  calls.forEach((c, i) =>
    expect(results[ids[i]!]).toContain((c.arguments as { path: string }).path === "a.txt" ? "alpha" : "beta"),
  );
  if (r.reasoning) {
    expect(thoughts(evs, "reasoning")).toContain(r.reasoning);
    // Sent back with the assistant's tool calls, in the field it came in; not to a server that refused it.
    const echoed = (asked as unknown as Record<string, unknown>)[r.reasoningField ?? "reasoning_content"];
    expect(echoed).toBe(row.refuse?.reasoningEcho ? undefined : r.reasoning);
  }
}

describe.skipIf(skip)("engine end to end: model servers as they really are", () => {
  for (const row of ROWS) {
    it(`${row.quirk} (${row.server}): load_tools → read_file → answer, then two parallel calls`, async () => {
      if (row.refuse) h.model.refuse(row.refuse, row.model);
      await quirkTurn(
        row,
        "Read a.txt",
        [{ name: "files__read_file", arguments: { path: "a.txt" } }],
        "It says alpha.",
      );
      await quirkTurn(
        row,
        "Read a.txt and b.txt",
        [
          { name: "files__read_file", arguments: { path: "a.txt" } },
          { name: "files__read_file", arguments: { path: "b.txt" } },
        ],
        "alpha and beta",
      );
      if (row.refuse?.streamOptions) {
        const mine = h.model.chatRequests().filter((r) => r.model === row.model);
        expect(mine[0]?.stream_options).toBeDefined();
        // Refused once, then never sent again for this model.
        expect(mine.slice(1).every((r) => r.stream_options === undefined)).toBe(true);
      }
    });
  }

  it("a model without tool support still chats, and the user is told tools are unavailable", async () => {
    h.model.refuse({ tools: true }, "notools-quirk");
    h.model.enqueue({ content: "I can only talk." }, { content: "Still talking." });
    const first = await send("hello", "notools-quirk");
    expect(final(first.evs).responseComplete?.content).toBe("I can only talk.");
    expect(thoughts(first.evs, "notice")).toMatch(/Tools are unavailable with this model.*does not support tools/);
    expect(first.requests.map((r) => (r.tools ?? []).length > 0)).toEqual([true, false]);
    const second = await send("again", "notools-quirk");
    expect(final(second.evs).responseComplete?.content).toBe("Still talking.");
    expect(thoughts(second.evs, "notice")).toMatch(/Tools are unavailable/);
    expect(second.requests.map((r) => (r.tools ?? []).length)).toEqual([0]);
  });

  for (const style of ["openai", "vllm", "llamacpp"] as const) {
    it(`context too long (${style} body): compacts and retries once; else the server's own message`, async () => {
      const model = `ctx-${style}`;
      const long = (i: number): string => `message ${String(i)} ${"lorem ipsum dolor ".repeat(220)}`;
      h.model.enqueue({ content: "answer 0" });
      const first = await send(long(0), model);
      const sessionId = first.evs[0]!.sessionId;
      const base =
        Math.ceil(JSON.stringify(first.requests[0]!.messages).length / 4) +
        Math.ceil(JSON.stringify(first.requests[0]!.tools ?? []).length / 4);
      for (let i = 1; i <= 3; i++) {
        h.model.enqueue({ content: `answer ${String(i)}` });
        await collect(h.client.sendMessage({ content: long(i), sessionId, model }));
      }
      // The server's window holds about one long message: the history no longer fits.
      h.model.refuse({ contextTokens: base + 1400, contextStyle: style }, model);
      h.model.enqueue(
        { content: "FACTS:\n- the user sends lorem ipsum\nSUMMARY:\nFour long messages." },
        { content: "fits now" },
      );
      const b = h.model.chatRequests().length;
      const evs = await collect(h.client.sendMessage({ content: long(4), sessionId, model }));
      expect(final(evs).pipelineError?.message ?? "").toBe("");
      expect(final(evs).responseComplete?.content).toBe("fits now");
      expect(thoughts(evs, "notice")).toMatch(/too long/);
      const sent = h.model.chatRequests().slice(b);
      expect(sent).toHaveLength(3); // refused, the summary call, the retry
      expect(JSON.stringify(sent[2]!.messages)).toContain("Four long messages.");

      // A window too small for even one message: the user sees what the server said.
      h.model.refuse({ contextTokens: 50, contextStyle: style }, model);
      const { evs: failed } = await send("a new session", model);
      expect(kind(final(failed))).toBe("ERROR");
      expect(final(failed).pipelineError?.code).toBe("CONTEXT_TOO_LONG");
      expect(final(failed).pipelineError?.message).toMatch(
        style === "llamacpp" ? /exceeds the available context size/ : /maximum context length is 50 tokens/,
      );
    });
  }

  it("429 with Retry-After: the user sees the wait, the call is retried after it", async () => {
    h.model.enqueue(
      { status: 429, retryAfter: 1, errorMessage: "Rate limit reached for requests" },
      { content: "after the wait" },
    );
    const { evs, ms } = await send("hi");
    expect(final(evs).responseComplete?.content).toBe("after the wait");
    expect(thoughts(evs, "notice")).toContain("Rate limited by the model server, retrying in 1 s");
    expect(ms).toBeGreaterThanOrEqual(950);
  });

  it("429 asking for longer than max_retry_wait_s ends the turn at once as a rate limit; quota is named as such", async () => {
    h.model.enqueue({ status: 429, retryAfter: 60, errorMessage: "Rate limit reached" });
    const slow = await send("hi");
    expect(final(slow.evs).pipelineError).toMatchObject({ code: "RATE_LIMITED" });
    expect(final(slow.evs).pipelineError?.message).toMatch(/rate-limited.*Rate limit reached.*max_retry_wait_s/);
    expect(slow.ms).toBeLessThan(5000);
    expect(slow.requests).toHaveLength(1);
    h.model.enqueue({
      status: 429,
      errorMessage: "You exceeded your current quota, please check your plan and billing details.",
    });
    const quota = await send("hi");
    expect(final(quota.evs).pipelineError?.message).toMatch(/quota or billing.*exceeded your current quota/);
    expect(quota.requests).toHaveLength(1);
  });

  for (const [name, failMode, said] of [
    ['data: {"error": …}', "error", "upstream provider crashed"],
    ['finish_reason: "error" alone', "finish_error", 'finish_reason "error"'],
  ] as const) {
    it(`a mid-stream error event (${name}) ends the turn with what the server said`, async () => {
      h.model.enqueue({
        content: "partial words of an answer",
        failAfterChunks: 3,
        failMode,
        errorMessage: "upstream provider crashed",
      });
      const { evs } = await send("hi");
      expect(kind(final(evs))).toBe("ERROR");
      expect(final(evs).pipelineError?.code).toBe("STREAM_ERROR");
      expect(final(evs).pipelineError?.message).toContain(said);
      expect(final(evs).pipelineError?.message).toContain(h.model.baseURL);
    });
  }

  for (const [name, after] of [
    ["right after the headers", 0],
    ["between chunks", 3],
  ] as const) {
    it(`a stream that stalls ${name} ends within idle_timeout + 1 s, and the next message works`, async () => {
      h.model.enqueue({ content: "words that never all arrive", stallAfterChunks: after });
      const { evs, ms } = await send("hi");
      expect(final(evs).pipelineError?.code).toBe("LLM_TIMEOUT");
      expect(final(evs).pipelineError?.message).toMatch(
        new RegExp(`${h.model.baseURL}.*sent nothing for ${String(IDLE_S)} s \\(model.idle_timeout_s\\)`),
      );
      expect(ms).toBeLessThan((IDLE_S + 1) * 1000);
      expect(ms).toBeGreaterThanOrEqual(IDLE_S * 1000 - 100);
      h.model.enqueue({ content: "back to normal" });
      const next = await send("again");
      expect(final(next.evs).responseComplete?.content).toBe("back to normal");
    });
  }

  it("no response headers within request_timeout_s ends the turn naming the server", async () => {
    h.model.enqueue({ content: "too late", latencyMs: (REQUEST_S + 5) * 1000 });
    const { evs, ms } = await send("hi");
    expect(final(evs).pipelineError?.code).toBe("LLM_TIMEOUT");
    expect(final(evs).pipelineError?.message).toMatch(/sent no response within 3 s \(model.request_timeout_s\)/);
    expect(ms).toBeLessThan((REQUEST_S + 1.5) * 1000);
  });

  it("error bodies are never lost (vLLM's shape, an empty body)", async () => {
    h.model.enqueue({ status: 400, errorStyle: "vllm", errorMessage: "unknown sampling parameter 'foo'" });
    const vllm = await send("hi");
    expect(final(vllm.evs).pipelineError?.message).toMatch(/HTTP 400: unknown sampling parameter 'foo'/);
    h.model.enqueue(...Array.from({ length: 3 }, () => ({ status: 503, errorStyle: "empty" as const })));
    const empty = await send("hi");
    expect(final(empty.evs).pipelineError?.message).toMatch(/HTTP 503.*empty body.*gave up after 3 attempt/);
  });
});
