import { describe, expect, it } from "vitest";
import { Conversation, toContextMessages, withInjected } from "@palisade/subagent";
import type { ChatMessage, PollResult } from "@palisade/subagent";
import type { ModelRequest, ModelResult } from "@palisade/agent";

const user = (content: string): ChatMessage => ({ role: "user", content });
const result: ModelResult = {
  content: "ok",
  reasoning: "",
  toolCalls: [],
  finishReason: "stop",
  usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0 },
};

describe("withInjected", () => {
  it.each([
    { name: "nothing injected", base: ["a", "b"], injected: [], want: ["a", "b"] },
    { name: "at the end", base: ["a", "b"], injected: [{ at: 2, text: "x" }], want: ["a", "b", "x"] },
    {
      name: "kept in place as the base grows",
      base: ["a", "b", "c", "d"],
      injected: [{ at: 2, text: "x" }],
      want: ["a", "b", "x", "c", "d"],
    },
    {
      name: "several at one point, in order",
      base: ["a"],
      injected: [
        { at: 1, text: "x" },
        { at: 1, text: "y" },
      ],
      want: ["a", "x", "y"],
    },
    { name: "at the start", base: ["a"], injected: [{ at: 0, text: "x" }], want: ["x", "a"] },
  ])("$name", ({ base, injected, want }) => {
    const out = withInjected(
      base.map(user),
      injected.map((i) => ({ at: i.at, message: user(i.text) })),
    );
    expect(out.map((m) => m.content)).toEqual(want);
  });
});

describe("Conversation", () => {
  function setup(polls: PollResult[]) {
    const seen: ModelRequest[] = [];
    const reported: number[] = [];
    let cancelled = false;
    const conv = new Conversation(
      async (req) => {
        seen.push(req);
        return result;
      },
      async (llmCalls) => {
        reported.push(llmCalls);
        return polls.shift() ?? { messages: [], cancelled: false };
      },
      3,
      () => (cancelled = true),
    );
    return { conv, seen, reported, wasCancelled: () => cancelled };
  }
  const req = (messages: ChatMessage[]): ModelRequest => ({
    model: "m",
    messages,
    tools: [],
    signal: new AbortController().signal,
    onToken: () => undefined,
  });

  it("polls before each model call, reporting calls so far, and places follow-ups where they arrived", async () => {
    const { conv, seen, reported } = setup([
      { messages: [], cancelled: false },
      { messages: ["also do Y"], cancelled: false },
    ]);
    const loop = [user("task")];
    await conv.callModel(req(loop));
    loop.push({ role: "assistant", content: "calling" });
    await conv.callModel(req(loop));
    loop.push({ role: "assistant", content: "more" });
    await conv.callModel(req(loop));
    expect(reported).toEqual([3, 4, 5]);
    expect(seen[1]?.messages.map((m) => m.content)).toEqual(["task", "calling", "also do Y"]);
    expect(seen[2]?.messages.map((m) => m.content)).toEqual(["task", "calling", "also do Y", "more"]);
    expect(conv.transcript().map((m) => m.content)).toEqual(["task", "calling", "also do Y", "more"]);
  });

  it("stops with CANCELLED when the Engine says so", async () => {
    const { conv, seen, wasCancelled } = setup([{ messages: [], cancelled: true }]);
    await expect(conv.callModel(req([user("task")]))).rejects.toMatchObject({ code: "CANCELLED" });
    expect(seen).toHaveLength(0);
    expect(wasCancelled()).toBe(true);
  });

  it("passes internal calls (no token callback) straight through", async () => {
    const { conv, seen, reported } = setup([]);
    await conv.callModel({
      model: "m",
      messages: [user("summarize")],
      tools: [],
      signal: new AbortController().signal,
    });
    expect(reported).toEqual([]);
    expect(seen).toHaveLength(1);
  });
});

describe("toContextMessages", () => {
  it("keeps users, assistants with calls and tool results; drops system prompts", () => {
    const out = toContextMessages([
      { role: "system", content: "sys" },
      user("task"),
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "t", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "c1", content: "r" },
      { role: "assistant", content: "done" },
    ]);
    expect(out.map((m) => [m.role, m.content, m.toolCallId, m.toolCalls.map((c) => c.name)])).toEqual([
      ["user", "task", "", []],
      ["assistant", "", "", ["t"]],
      ["tool", "r", "c1", []],
      ["assistant", "done", "", []],
    ]);
  });
});
