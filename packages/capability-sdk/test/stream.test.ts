import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolError, defineCapability } from "@palisade/capability-sdk";
import type { InvokeChunk } from "@palisade/protocol/capability";
import { dec, enc, json, parse, start } from "./helpers.js";
import type { Harness } from "./helpers.js";

const words = {
  type: "object",
  properties: { words: { type: "array", items: { type: "string" } } },
  required: ["words"],
};

const cap = defineCapability({
  id: "streamer",
  tools: [
    {
      name: "say",
      description: "Streams each word, then a summary object.",
      inputSchema: words,
      handler: async (args: { words: string[] }) => ({ count: args.words.length }),
      async *stream(args: { words: string[] }) {
        for (const w of args.words) yield w;
        yield enc.encode("|raw|");
        yield { count: args.words.length };
      },
    },
    {
      name: "count",
      description: "No stream function: StreamInvoke sends the handler's result as one chunk.",
      inputSchema: words,
      handler: async (args: { words: string[] }) => ({ count: args.words.length }),
    },
    {
      name: "fail_midway",
      description: "Streams one chunk, then fails.",
      inputSchema: { type: "object" },
      handler: async () => null,
      async *stream() {
        yield "partial";
        throw new ToolError("upstream went away");
      },
    },
    {
      name: "crash",
      description: "Fails before streaming anything.",
      inputSchema: { type: "object" },
      handler: async () => {
        throw new TypeError("x is undefined");
      },
    },
  ],
});

let h: Harness;
beforeAll(async () => {
  h = await start(cap);
});
afterAll(async () => {
  await h.stop();
});

async function collect(toolName: string, args: unknown): Promise<InvokeChunk[]> {
  const chunks: InvokeChunk[] = [];
  for await (const c of h.client.streamInvoke({ toolName, argsJson: json(args) })) chunks.push(c);
  return chunks;
}

describe("StreamInvoke", () => {
  it("sends each yielded item as a chunk, then a final done chunk", async () => {
    const chunks = await collect("say", { words: ["a", "b"] });
    expect(chunks.map((c) => dec.decode(c.data))).toEqual(["a", "b", "|raw|", '{"count":2}', ""]);
    expect(chunks.map((c) => c.done)).toEqual([false, false, false, false, true]);
    expect(chunks.every((c) => c.error === "")).toBe(true);
  });

  it("runs the handler when the tool has no stream function and sends one done chunk", async () => {
    const chunks = await collect("count", { words: ["a", "b", "c"] });
    expect(chunks).toHaveLength(1);
    expect(chunks[0]?.done).toBe(true);
    expect(parse(chunks[0]?.data ?? new Uint8Array())).toEqual({ count: 3 });
  });

  it("ends with an error chunk when the stream fails midway", async () => {
    const chunks = await collect("fail_midway", {});
    expect(chunks.map((c) => [dec.decode(c.data), c.done, c.error])).toEqual([
      ["partial", false, ""],
      ["", true, "upstream went away"],
    ]);
  });

  it("reports an unexpected handler exception as an error chunk", async () => {
    const chunks = await collect("crash", {});
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toMatchObject({ done: true, error: "tool crash failed: x is undefined" });
  });

  it("validates arguments before streaming, naming the field", async () => {
    const chunks = await collect("say", { words: [1] });
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toMatchObject({
      done: true,
      error: "invalid arguments: say: arguments.words[0]: must be a string, got number 1",
    });
  });

  it("reports an unknown tool as an error chunk listing the known tools", async () => {
    const chunks = await collect("shout", {});
    expect(chunks[0]?.error).toBe(
      'unknown tool "shout" for capability streamer; known tools: say, count, fail_midway, crash',
    );
  });
});
