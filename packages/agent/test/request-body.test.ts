// The model request body: the bytes JSON.stringify would give, with the conversation's messages
// serialized once and their bytes reused by later calls.
import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { ContextMessageSchema } from "@palisade/protocol/pipeline";
import { encodeRequestBody, fitToolResults, systemMessage, toChatMessages } from "@palisade/agent";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";

const same = (body: Record<string, unknown>): void => {
  expect(encodeRequestBody(body).toString("utf8")).toBe(JSON.stringify(body));
  expect(encodeRequestBody(body).equals(Buffer.from(JSON.stringify(body)))).toBe(true);
};

/** A message that counts how often it is serialized (JSON.stringify calls toJSON each time). */
function counted(content: string): { message: object; serialized: () => number } {
  let n = 0;
  const message = {
    toJSON: () => {
      n++;
      return { role: "user", content };
    },
  };
  return { message, serialized: () => n };
}

describe("encodeRequestBody", () => {
  it.each([
    [
      "a plain body",
      {
        model: "m",
        messages: [{ role: "user", content: "hi" }],
        stream: true,
        stream_options: { include_usage: true },
      },
    ],
    [
      "extra_body keys first and a key overridden in place",
      { temperature: 0.2, model: "m", options: { num_ctx: 8192 }, messages: [], stream: true },
    ],
    ["no messages key", { model: "m", stream: true }],
    ["messages first", { messages: [{ role: "user", content: "x" }], model: "m" }],
    [
      "undefined, function and symbol values left out",
      {
        a: undefined,
        model: "m",
        f: () => 1,
        s: Symbol("x"),
        messages: [{ role: "user", content: "x" }],
        z: undefined,
      },
    ],
    ["elements that are not objects", { messages: [null, undefined, "text", 3, { role: "user", content: "x" }] }],
    [
      "text outside ASCII and characters JSON escapes",
      {
        model: "m",
        messages: [
          { role: "system", content: 'tools… “quoted” \u2028 é 𝄞 😀 "\\\n\t\u0001' },
          { role: "user", content: "lone \ud800 surrogate" },
        ],
      },
    ],
    ["a messages value that is not an array", { model: "m", messages: "not a list" }],
  ])("gives the bytes of JSON.stringify: %s", (_name, body) => {
    same(body);
  });

  it("stays byte-equal while a conversation grows, shrinks, and has a message replaced", () => {
    const sys = systemMessage("You are a test. …");
    const history: ChatCompletionMessageParam[] = Array.from({ length: 30 }, (_, i) => ({
      role: i % 2 ? "assistant" : "user",
      content: `m${String(i)} é`,
    }));
    const tools = [{ type: "function", function: { name: "t", description: "d", parameters: { type: "object" } } }];
    const body = (messages: ChatCompletionMessageParam[]) => ({ model: "m", messages, tools, stream: true });
    const first = [sys, ...history, { role: "user" as const, content: "now" }];
    same(body(first));
    // The turn's second call: the same objects plus the tool round.
    const second = [
      ...first,
      {
        role: "assistant" as const,
        content: null,
        tool_calls: [{ id: "c", type: "function" as const, function: { name: "t", arguments: "{}" } }],
      },
      { role: "tool" as const, tool_call_id: "c", content: "x".repeat(3000) },
    ];
    same(body(second));
    // A result shortened in place (a new object at the same index).
    fitToolResults(second, [], 10, 100);
    same(body(second));
    // The next turn: the history as the Engine sends it (new objects after the kept ones).
    same(
      body([
        sys,
        ...history,
        { role: "user", content: "now" },
        { role: "assistant", content: "done" },
        { role: "user", content: "again" },
      ]),
    );
    // Fewer messages than before, another system prompt, an empty list.
    same(body([sys, ...history.slice(0, 3)]));
    same(body([systemMessage("another prompt"), ...history]));
    same(body([]));
  });

  it("serializes a message once however many calls send it", () => {
    const kept = [counted("a"), counted("b"), counted("c")];
    const sys = systemMessage("prompt");
    const history = kept.map((k) => k.message);
    const user = counted("question");
    encodeRequestBody({ model: "m", messages: [sys, ...history, user.message] });
    encodeRequestBody({
      model: "m",
      messages: [
        sys,
        ...history,
        user.message,
        { role: "assistant", content: "x" },
        { role: "tool", tool_call_id: "c", content: "r" },
      ],
    });
    encodeRequestBody({
      model: "m",
      messages: [
        sys,
        ...history,
        { role: "user", content: "q" },
        { role: "assistant", content: "done" },
        { role: "user", content: "next" },
      ],
    });
    expect(kept.map((k) => k.serialized())).toEqual([1, 1, 1]);
    expect(user.serialized()).toBe(1);
    // A message that moved is serialized again (the bytes before it differ).
    encodeRequestBody({ model: "m", messages: [sys, history[0], history[2]] });
    expect(kept.map((k) => k.serialized())).toEqual([1, 1, 2]);
  });
});

describe("the messages kept between turns", () => {
  it("toChatMessages gives the same frozen object for the same history message, and systemMessage for the same prompt", () => {
    const history = [
      create(ContextMessageSchema, { role: "user", content: "q" }),
      create(ContextMessageSchema, {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "a", name: "t", argumentsJson: "{}" }],
      }),
      create(ContextMessageSchema, { role: "tool", content: "r", toolCallId: "a" }),
    ];
    const one = toChatMessages(history);
    const two = toChatMessages(history);
    expect(two).toEqual(one);
    one.forEach((m, i) => expect(two[i]).toBe(m));
    expect(one.every((m) => Object.isFrozen(m))).toBe(true);
    expect(() => {
      (one[0] as { content: string }).content = "changed";
    }).toThrow(TypeError);
    expect(systemMessage("p")).toBe(systemMessage("p"));
    expect(Object.isFrozen(systemMessage("p"))).toBe(true);
  });
});
