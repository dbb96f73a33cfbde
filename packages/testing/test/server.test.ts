import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { makeTempDir, reply, splitWords, startScriptedServer, waitFor } from "@palisade/testing";
import type { ScriptedServer } from "@palisade/testing";
import { existsSync } from "node:fs";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function client(s: ScriptedServer, maxRetries = 0): OpenAI {
  return new OpenAI({ baseURL: s.baseURL, apiKey: "sk-test", maxRetries, timeout: 5000 });
}

async function collect(stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>) {
  const deltas: string[] = [];
  const calls = new Map<number, { id: string; name: string; args: string }>();
  let finish: string | null = null;
  let usage: OpenAI.CompletionUsage | undefined;
  for await (const chunk of stream) {
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices[0];
    if (!choice) continue;
    if (choice.delta.content) deltas.push(choice.delta.content);
    for (const tc of choice.delta.tool_calls ?? []) {
      const cur = calls.get(tc.index) ?? { id: "", name: "", args: "" };
      cur.id ||= tc.id ?? "";
      cur.name ||= tc.function?.name ?? "";
      cur.args += tc.function?.arguments ?? "";
      calls.set(tc.index, cur);
    }
    finish = choice.finish_reason ?? finish;
  }
  return { deltas, calls: [...calls.values()], finish, usage };
}

describe("scripted OpenAI-compatible server with the real openai SDK", () => {
  it("streams text word by word, with role first, finish_reason and a usage chunk", async () => {
    server = await startScriptedServer({ turns: [reply.text("Hello there, brave new world")] });
    const stream = await client(server).chat.completions.create({
      model: "m1",
      messages: [{ role: "user", content: "hi" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const out = await collect(stream);
    expect(out.deltas).toEqual(["Hello ", "there, ", "brave ", "new ", "world"]);
    expect(out.finish).toBe("stop");
    expect(out.usage?.completion_tokens).toBeGreaterThan(0);
    expect(out.usage?.total_tokens).toBe((out.usage?.prompt_tokens ?? 0) + (out.usage?.completion_tokens ?? 0));
    expect(server.chatRequests()[0]?.messages).toEqual([{ role: "user", content: "hi" }]);
    expect(server.requests[0]?.headers.authorization).toBe("Bearer sk-test");
  });

  it("streams parallel tool calls that the SDK's stream helper assembles", async () => {
    server = await startScriptedServer({
      turns: [
        reply.toolCalls([
          { id: "call_a", name: "read_file", arguments: { path: "/tmp/a-rather-long-path/file.txt" } },
          { name: "list_dir", arguments: '{"path":"."}' },
        ]),
      ],
    });
    const runner = client(server).chat.completions.stream({
      model: "m1",
      messages: [{ role: "user", content: "read" }],
      tools: [{ type: "function", function: { name: "read_file", parameters: { type: "object" } } }],
    });
    const final = await runner.finalChatCompletion();
    const calls = final.choices[0]?.message.tool_calls ?? [];
    expect(final.choices[0]?.finish_reason).toBe("tool_calls");
    expect(
      calls.map((c) => (c.type === "function" ? [c.id, c.function.name, JSON.parse(c.function.arguments)] : [])),
    ).toEqual([
      ["call_a", "read_file", { path: "/tmp/a-rather-long-path/file.txt" }],
      ["call_1", "list_dir", { path: "." }],
    ]);
  });

  it("sends tool-call argument fragments after the first delta", async () => {
    server = await startScriptedServer({
      turns: [reply.toolCalls([{ id: "c1", name: "t", arguments: { text: "x".repeat(40) } }])],
    });
    const stream = await client(server).chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "go" }],
      stream: true,
    });
    const fragments: { id?: string; name?: string; args?: string }[] = [];
    for await (const chunk of stream) {
      for (const tc of chunk.choices[0]?.delta.tool_calls ?? []) {
        fragments.push({ id: tc.id, name: tc.function?.name, args: tc.function?.arguments });
      }
    }
    expect(fragments[0]).toEqual({ id: "c1", name: "t", args: "" });
    expect(fragments.length).toBeGreaterThan(3);
    expect(fragments.slice(1).every((f) => f.id === undefined && f.name === undefined)).toBe(true);
  });

  it("answers non-streaming requests", async () => {
    server = await startScriptedServer({ turns: [reply.text("plain answer")] });
    const res = await client(server).chat.completions.create({
      model: "m2",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(res.choices[0]?.message.content).toBe("plain answer");
    expect(res.model).toBe("m2");
    expect(res.usage?.prompt_tokens).toBeGreaterThan(0);
  });

  it("lists models", async () => {
    server = await startScriptedServer({ models: ["a", "b"] });
    const list = await client(server).models.list();
    expect(list.data.map((m) => m.id)).toEqual(["a", "b"]);
  });

  it("sends a 429 with retry-after that the SDK retries, then succeeds", async () => {
    server = await startScriptedServer({ turns: [reply.error(429, { retryAfter: 0.05 }), reply.text("after retry")] });
    const res = await client(server, 2).chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "x" }],
    });
    expect(res.choices[0]?.message.content).toBe("after retry");
    expect(server.chatRequests()).toHaveLength(2);
    expect(server.requests[1]?.headers["x-stainless-retry-count"]).toBe("1");
  });

  it("sends a 500 the SDK reports as InternalServerError", async () => {
    server = await startScriptedServer({ turns: [reply.error(500, { errorMessage: "boom" })] });
    const err = await client(server)
      .chat.completions.create({ model: "m", messages: [{ role: "user", content: "x" }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(500);
    expect((err as Error).message).toContain("boom");
  });

  it("fails mid-stream with an SSE error event after some tokens", async () => {
    server = await startScriptedServer({
      turns: [{ content: "one two three four", failAfterChunks: 3, errorMessage: "overloaded mid-stream" }],
    });
    const stream = await client(server).chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "x" }],
      stream: true,
    });
    const got: string[] = [];
    const err = await (async () => {
      for await (const c of stream) if (c.choices[0]?.delta.content) got.push(c.choices[0].delta.content);
    })().catch((e: unknown) => e);
    expect(got).toEqual(["one ", "two "]);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as Error).message).toContain("overloaded mid-stream");
  });

  it("disconnects mid-stream", async () => {
    server = await startScriptedServer({
      turns: [{ content: "one two three four", failAfterChunks: 2, failMode: "disconnect" }],
    });
    const stream = await client(server).chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "x" }],
      stream: true,
    });
    const got: string[] = [];
    const err = await (async () => {
      for await (const c of stream) if (c.choices[0]?.delta.content) got.push(c.choices[0].delta.content);
    })().catch((e: unknown) => e);
    expect(got).toEqual(["one "]);
    expect(err).toBeInstanceOf(Error);
  });

  it("chooses replies by rules on the last message, after queued turns", async () => {
    server = await startScriptedServer({
      turns: [reply.text("first turn")],
      rules: [
        { match: { toolResult: /"ok":true/ }, reply: reply.text("tool said ok") },
        {
          match: { role: "user", content: /weather/i },
          reply: (req) => reply.text(`weather for ${req.model}`),
          times: 1,
        },
      ],
      fallback: reply.text("fallback"),
    });
    const c = client(server);
    const ask = async (messages: OpenAI.Chat.ChatCompletionMessageParam[]) =>
      (await c.chat.completions.create({ model: "m9", messages })).choices[0]?.message.content;
    expect(await ask([{ role: "user", content: "Weather?" }])).toBe("first turn");
    expect(await ask([{ role: "user", content: "Weather?" }])).toBe("weather for m9");
    expect(await ask([{ role: "user", content: "Weather?" }])).toBe("fallback");
    expect(
      await ask([
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c", type: "function", function: { name: "t", arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: "c", content: '{"ok":true}' },
      ]),
    ).toBe("tool said ok");
  });

  it("answers an unscripted request with a 400 that says what to do", async () => {
    server = await startScriptedServer();
    const err = await client(server)
      .chat.completions.create({ model: "m", messages: [{ role: "user", content: "hello" }] })
      .catch((e: unknown) => e);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    expect((err as Error).message).toMatch(/no reply scripted.*queue a turn/);
  });

  it("applies latency and token delay, and records a client that aborts", async () => {
    server = await startScriptedServer({ turns: [{ content: "a b c d e f g h", latencyMs: 60, tokenDelayMs: 40 }] });
    const controller = new AbortController();
    const started = Date.now();
    const stream = await client(server).chat.completions.create(
      { model: "m", messages: [{ role: "user", content: "x" }], stream: true },
      { signal: controller.signal },
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(50);
    const got: string[] = [];
    // The SDK ends the iteration quietly when its signal aborts.
    for await (const c of stream) {
      got.push(c.choices[0]?.delta.content ?? "");
      if (got.includes("b ")) controller.abort();
    }
    expect(got).not.toContain("h");
    await waitFor(() => server?.requests[0]?.aborted, { message: "server records the aborted request" });
  });
});

describe("helpers", () => {
  it("splitWords keeps every character", () => {
    expect(splitWords("  lead\nnext  line ")).toEqual(["  lead\n", "next  ", "line "]);
    expect(splitWords("").join("")).toBe("");
  });

  it("makeTempDir creates and removes a directory", async () => {
    const dir = await makeTempDir();
    expect(existsSync(dir.path)).toBe(true);
    await dir.remove();
    expect(existsSync(dir.path)).toBe(false);
  });

  it("waitFor returns the value or throws with the message", async () => {
    let n = 0;
    expect(await waitFor(() => (++n >= 3 ? n : 0), { intervalMs: 1 })).toBe(3);
    await expect(waitFor(() => false, { timeoutMs: 30, message: "never" })).rejects.toThrow(
      /never not met within 30 ms/,
    );
  });
});
