import { describe, expect, it } from "vitest";
import { StreamAccumulator, StreamErrorEvent, TextToolCalls, normalizeErrorBody } from "@palisade/agent";
import { streamChunks } from "@palisade/testing";
import type { ScriptedReply, StreamQuirks } from "@palisade/testing";

const meta = { id: "chatcmpl-1", created: 0, model: "m" };
const calls = [
  { id: "call_a", name: "files__read_file", arguments: '{"path":"a-rather-long-file-name.txt"}' },
  { id: "call_b", name: "files__read_file", arguments: '{"path":"b-rather-long-file-name.txt"}' },
];
const usage = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };

function fold(quirks: StreamQuirks, extra: Partial<ScriptedReply> = {}): StreamAccumulator {
  const acc = new StreamAccumulator();
  for (const chunk of streamChunks(meta, { quirks, ...extra }, calls, usage))
    acc.add(JSON.parse(JSON.stringify(chunk)) as unknown);
  return acc;
}

describe("StreamAccumulator: tool calls as servers really stream them", () => {
  const parsed = (acc: StreamAccumulator) =>
    acc.result().toolCalls.map((c) => [c.name, JSON.parse(c.arguments) as unknown]);
  const want = [
    ["files__read_file", { path: "a-rather-long-file-name.txt" }],
    ["files__read_file", { path: "b-rather-long-file-name.txt" }],
  ];
  it.each<[string, StreamQuirks]>([
    ["OpenAI's own shape", {}],
    ["no index (split by id)", { noIndex: true }],
    ["every call at index 0 (split by id)", { sameIndex: true }],
    ["no index and no ids (split by the name after complete arguments)", { noIndex: true, noIds: true }],
    ["index 0 and no ids", { sameIndex: true, noIds: true }],
    ["the name repeated in every delta", { repeatName: true }],
    ["the name repeated, no index, no ids", { repeatName: true, noIndex: true, noIds: true }],
    ["cumulative arguments", { cumulativeArgs: true }],
    ["cumulative arguments, index 0 for all", { cumulativeArgs: true, sameIndex: true }],
    ["arguments as a JSON object", { objectArgs: true }],
    ["arguments as an object, no index", { objectArgs: true, noIndex: true }],
    ["one id reused for every call", { reusedIds: true }],
    ["no ids", { noIds: true }],
    ["no finish_reason", { noFinishReason: true }],
    ["usage on every chunk", { usageEveryChunk: true }],
    ["empty choices between chunks", { emptyChoices: true }],
  ])("%s", (_name, quirks) => {
    const acc = fold(quirks);
    expect(parsed(acc)).toEqual(want);
    const ids = acc.result().toolCalls.map((c) => c.id);
    if (!quirks.noIds && !quirks.reusedIds) expect(ids).toEqual(["call_a", "call_b"]);
  });

  it("never concatenates two calls into one name", () => {
    for (const quirks of [{ noIndex: true }, { sameIndex: true }, { repeatName: true, sameIndex: true }]) {
      for (const c of fold(quirks).result().toolCalls) expect(c.name).toBe("files__read_file");
    }
  });

  it("keeps the last usage of servers that send it on every chunk", () => {
    expect(fold({ usageEveryChunk: true }).result().usage).toEqual({
      inputTokens: 11,
      outputTokens: 7,
      cacheReadTokens: 0,
    });
  });

  it("streams reasoning_content and reasoning deltas to the sink and remembers the field", () => {
    for (const field of ["reasoning_content", "reasoning"] as const) {
      const seen: string[] = [];
      const acc = new StreamAccumulator({ onReasoning: (t) => seen.push(t) });
      for (const chunk of streamChunks(
        meta,
        { reasoning: "First I think, then I answer.", reasoningField: field, content: "Answer." },
        [],
        undefined,
      ))
        acc.add(chunk);
      expect(seen.join("")).toBe("First I think, then I answer.");
      expect(acc.result()).toMatchObject({
        reasoning: "First I think, then I answer.",
        reasoningField: field,
        content: "Answer.",
      });
    }
  });

  it("throws the server's message for error events in the stream", () => {
    const acc = new StreamAccumulator();
    expect(() => acc.add({ error: { message: "upstream overloaded" } })).toThrow(
      new StreamErrorEvent("upstream overloaded"),
    );
    expect(() => acc.add({ object: "error", message: "vLLM says no" })).toThrow("vLLM says no");
    expect(() =>
      acc.add({ choices: [{ index: 0, delta: {}, finish_reason: "error" }], error: { message: "provider died" } }),
    ).toThrow("provider died");
    expect(() => acc.add({ choices: [{ index: 0, delta: {}, finish_reason: "error" }] })).toThrow(
      'finish_reason "error"',
    );
  });

  it("reads a whole chat.completion object (a server that ignored stream: true)", () => {
    const acc = new StreamAccumulator();
    acc.add({
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: "hi",
            tool_calls: [{ id: "x", type: "function", function: { name: "t", arguments: "{}" } }],
          },
          finish_reason: "tool_calls",
        },
      ],
    });
    expect(acc.result()).toMatchObject({
      content: "hi",
      toolCalls: [{ id: "x", name: "t", arguments: "{}" }],
      finishReason: "tool_calls",
    });
  });
});

describe("TextToolCalls: tool calls written as text", () => {
  const offered = new Set(["files__read_file"]);
  const feed = (text: string, pieces = 5): { shown: string; out: ReturnType<TextToolCalls["finish"]> } => {
    const t = new TextToolCalls(offered);
    let shown = "";
    for (let i = 0; i < text.length; i += pieces) shown += t.push(text.slice(i, i + pieces));
    return { shown, out: t.finish() };
  };

  it("recognizes Hermes/Qwen <tool_call> blocks and never shows them", () => {
    const text =
      'Let me read both.\n<tool_call>\n{"name": "files__read_file", "arguments": {"path": "a.txt"}}\n</tool_call>\n<tool_call>\n{"name": "files__read_file", "arguments": {"path": "b.txt"}}\n</tool_call>';
    const { shown, out } = feed(text);
    expect(shown).toBe("Let me read both.\n");
    expect(shown + out.release).not.toContain("tool_call");
    expect(out.calls.map((c) => JSON.parse(c.arguments) as unknown)).toEqual([{ path: "a.txt" }, { path: "b.txt" }]);
    expect(out.content).toBe("Let me read both.");
  });

  it("recognizes a bare JSON object naming an offered tool (parameters or arguments)", () => {
    const { shown, out } = feed('{"name": "files__read_file", "parameters": {"path": "a.txt"}}');
    expect(shown).toBe("");
    expect(out).toMatchObject({
      content: "",
      release: "",
      calls: [{ name: "files__read_file", arguments: '{"path":"a.txt"}' }],
    });
  });

  it("shows JSON that names no offered tool, and ordinary text, as the answer", () => {
    const json = feed('{"name": "rm_rf", "arguments": {}}');
    expect(json.out.calls).toEqual([]);
    expect(json.shown + json.out.release).toBe('{"name": "rm_rf", "arguments": {}}');
    const plain = feed("Use <b>bold</b> and a < b comparisons.");
    expect(plain.out.calls).toEqual([]);
    expect(plain.shown + plain.out.release).toBe("Use <b>bold</b> and a < b comparisons.");
  });
});

describe("error bodies are never lost", () => {
  const msg = (body: string) => (JSON.parse(body) as { error: { message: string } }).error.message;
  it.each([
    [
      "OpenAI",
      400,
      '{"error":{"message":"bad thing","type":"invalid_request_error","code":"context_length_exceeded"}}',
      "bad thing",
    ],
    [
      "vLLM",
      400,
      '{"object":"error","message":"This model\'s maximum context length is 4096 tokens","type":"BadRequestError","code":400}',
      "This model's maximum context length is 4096 tokens",
    ],
    ["Ollama", 400, '{"error":"llama3 does not support tools"}', "llama3 does not support tools"],
    [
      "FastAPI",
      422,
      '{"detail":[{"loc":["body","stream_options"],"msg":"Extra inputs are not permitted"}]}',
      "stream_options",
    ],
    ["plain text", 502, "Bad Gateway from nginx", "Bad Gateway from nginx"],
    ["empty", 500, "", "HTTP 500 Internal Server Error with an empty body"],
  ])("%s", (_name, status, body, want) => {
    expect(msg(normalizeErrorBody(status, "Internal Server Error", body))).toContain(want);
  });
});
