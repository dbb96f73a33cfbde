// The model gateway with real parts: the openai SDK over the Agent's own transport (undici on the
// unix socket), the gateway forwarding to the scripted OpenAI-compatible server, a real CONNECT
// proxy where proxies are tested.
import { request as httpRequest } from "node:http";
import { createServer as createTcpServer, connect as tcpConnect } from "node:net";
import type { Server as NetServer } from "node:net";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { makeTempDir, reply, startScriptedServer } from "@palisade/testing";
import { ExchangeReplay, UsageScanner } from "../src/gateway/index.js";
import { CREDENTIAL, KEY, onCleanup, raw, rig, sdk } from "./gateway-rig.js";

const chatBody = (model = "scripted-model"): string =>
  JSON.stringify({ model, messages: [{ role: "user", content: "hi" }], stream: true });

describe("model gateway", () => {
  it("forwards a streamed chat call with the Engine's key, never the caller's credential, and counts its tokens per session", async () => {
    const { gateway, model } = await rig(await startScriptedServer({ fallback: reply.text("through the gateway") }));
    const client = await sdk(gateway);
    const stream = await client.chat.completions.create(
      {
        model: "scripted-model",
        messages: [{ role: "user", content: "hello" }],
        stream: true,
        stream_options: { include_usage: true },
      },
      { headers: { "x-palisade-session": "sess-1" } },
    );
    let text = "";
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe("through the gateway");
    const seen = model.requests[0]!;
    expect(seen.path).toBe("/v1/chat/completions");
    expect(seen.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.stringify(seen.headers)).not.toContain(CREDENTIAL);
    expect(gateway.usage().get("sess-1")).toEqual({
      calls: 1,
      inputTokens: usage!.prompt_tokens,
      outputTokens: usage!.completion_tokens,
      cacheReadTokens: 0,
    });
  });

  it("refuses a missing or wrong credential with 401 and never reaches the model server", async () => {
    const { gateway, model } = await rig(await startScriptedServer({ fallback: reply.text("nope") }));
    expect(await raw(gateway, "POST", "/v1/chat/completions", {}, chatBody())).toMatchObject({ status: 401 });
    const wrong = await raw(gateway, "POST", "/v1/chat/completions", { authorization: "Bearer guessed" }, chatBody());
    expect(wrong.status).toBe(401);
    expect(wrong.body).toContain("missing or wrong credential");
    const client = await sdk(gateway, "also-wrong");
    await expect(
      client.chat.completions.create({ model: "scripted-model", messages: [{ role: "user", content: "x" }] }),
    ).rejects.toMatchObject({ status: 401 });
    expect(model.requests).toHaveLength(0);
  });

  it("answers 404 for anything but POST /v1/chat/completions, without forwarding", async () => {
    const { gateway, model } = await rig(await startScriptedServer({ fallback: reply.text("nope") }));
    const auth = { authorization: `Bearer ${CREDENTIAL}` };
    for (const [method, path] of [
      ["GET", "/v1/models"],
      ["POST", "/v1/embeddings"],
      ["POST", "/v1/responses"],
      ["GET", "/v1/chat/completions"],
      ["POST", "/v1/files"],
      ["POST", "/../v1/chat/completions/x"],
    ] as const) {
      const res = await raw(gateway, method, path, auth, method === "POST" ? chatBody() : "");
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    expect(model.requests).toHaveLength(0);
  });

  it("refuses a model other than the configured one (403 model_not_allowed) unless the Engine allows it for the caller", async () => {
    const allowed: string[] = [];
    const { gateway, model } = await rig(await startScriptedServer({ fallback: reply.text("ok") }), {
      allowedModels: () => allowed,
    });
    const client = await sdk(gateway);
    const err = await client.chat.completions
      .create({ model: "gpt-5-pro-expensive", messages: [{ role: "user", content: "x" }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(403);
    expect((err as Error).message).toContain(
      'model "gpt-5-pro-expensive" is not allowed; this Engine permits "scripted-model"',
    );
    expect(model.requests).toHaveLength(0);
    allowed.push("gpt-5-pro-expensive");
    const ok = await client.chat.completions.create({
      model: "gpt-5-pro-expensive",
      messages: [{ role: "user", content: "x" }],
    });
    expect(ok.choices[0]?.message.content).toBe("ok");
    expect(model.chatRequests().map((r) => r.model)).toEqual(["gpt-5-pro-expensive"]);
  });

  it("refuses a body naming the model twice (parsers differ on which one counts) and never forwards it", async () => {
    const { gateway, model } = await rig(await startScriptedServer({ fallback: reply.text("ok") }));
    const auth = { authorization: `Bearer ${CREDENTIAL}` };
    const messages = '"messages":[{"role":"user","content":"x"}]';
    for (const body of [
      `{"model":"scripted-model",${messages},"model":"gpt-5-pro-expensive"}`,
      `{"model":"gpt-5-pro-expensive",${messages},"model":"scripted-model"}`,
      `{"model":"scripted-model",${messages},"mod\\u0065l":"gpt-5-pro-expensive"}`,
    ]) {
      const res = await raw(gateway, "POST", "/v1/chat/completions", auth, body);
      expect(res.status, body).toBe(400);
      expect(res.body, body).toMatch(/appears twice|printable ASCII/);
    }
    expect(model.requests).toHaveLength(0);
    // The same request naming it once goes through.
    expect(
      await raw(gateway, "POST", "/v1/chat/completions", auth, `{"model":"scripted-model",${messages}}`),
    ).toMatchObject({ status: 200 });
    expect(model.chatRequests().map((r) => r.model)).toEqual(["scripted-model"]);
  });

  it("refuses a body that is not one JSON object with 400, without forwarding", async () => {
    const { gateway, model } = await rig(await startScriptedServer({ fallback: reply.text("ok") }));
    const auth = { authorization: `Bearer ${CREDENTIAL}` };
    for (const body of [
      '{"model":"scripted-model","messages":[}',
      '[{"model":"scripted-model"}]',
      '{"model":"scripted-model"} {"model":"other"}',
      "",
    ]) {
      const res = await raw(gateway, "POST", "/v1/chat/completions", auth, body);
      expect(res.status, body).toBe(400);
      expect(res.body, body).toContain("invalid_json");
    }
    expect(model.requests).toHaveLength(0);
  });

  it("streams through without buffering: the first token reaches the caller while the server is still sending", async () => {
    const { gateway, model } = await rig(
      await startScriptedServer({ fallback: { content: "one two three four five six", tokenDelayMs: 250 } }),
    );
    const client = await sdk(gateway);
    const stream = await client.chat.completions.create({
      model: "scripted-model",
      messages: [{ role: "user", content: "x" }],
      stream: true,
    });
    let firstAt = 0;
    for await (const chunk of stream) if (!firstAt && chunk.choices[0]?.delta.content) firstAt = Date.now();
    const record = model.requests[0]!;
    // Six words, 250 ms apart: the server was busy for >= 1250 ms after its first token.
    const doneAt = Date.now();
    expect(doneAt - firstAt).toBeGreaterThanOrEqual(500);
    expect(record.aborted).toBe(false);
  });

  it("passes the response headers on even when the body never follows (a server that stalls, not one that does not answer)", async () => {
    const { gateway } = await rig(
      await startScriptedServer({ fallback: { content: "never sent", stallAfterChunks: 0 } }),
    );
    const headersAt = await new Promise<number>((resolve, reject) => {
      const started = Date.now();
      const req = httpRequest(
        {
          socketPath: gateway.path,
          method: "POST",
          path: "/v1/chat/completions",
          headers: { "content-type": "application/json", authorization: `Bearer ${CREDENTIAL}` },
        },
        (res) => {
          expect(res.headers["content-type"]).toContain("text/event-stream");
          resolve(Date.now() - started);
          req.destroy();
        },
      );
      req.on("error", (err) => (req.destroyed ? undefined : reject(err)));
      req.end(chatBody());
    });
    // Well under the Agent's request timeout (seconds), however loaded the machine.
    expect(headersAt).toBeLessThan(2000);
  });

  it("counts a sub-agent's tokens on its own session, whatever session it claims", async () => {
    const { gateway } = await rig(await startScriptedServer({ fallback: reply.text("sub") }));
    const client = await sdk(gateway, "sub-token");
    const s = await client.chat.completions.create(
      { model: "scripted-model", messages: [{ role: "user", content: "x" }], stream: true },
      { headers: { "x-palisade-session": "someone-else" } },
    );
    for await (const _ of s) void _;
    expect(gateway.usage().get("sub-session")?.calls).toBe(1);
    expect(gateway.usage().has("someone-else")).toBe(false);
  });

  it("forwards the body as sent (no stream_options added: some servers refuse them) and adds the configured headers", async () => {
    const model0 = await startScriptedServer({ fallback: reply.text("counted") });
    const { gateway, model } = await rig(model0, {
      model: () => ({
        baseUrl: model0.baseURL,
        apiKey: KEY,
        name: "scripted-model",
        headers: { "api-key": "azure-style-secret", "X-Title": "Palisade" },
      }),
    });
    const client = await sdk(gateway);
    const s = await client.chat.completions.create({
      model: "scripted-model",
      messages: [{ role: "user", content: "x" }],
      stream: true,
    });
    for await (const _ of s) void _;
    expect(model.chatRequests()[0]?.stream_options).toBeUndefined();
    expect(model.requests[0]?.headers["api-key"]).toBe("azure-style-secret");
    expect(model.requests[0]?.headers["x-title"]).toBe("Palisade");
    // Without a usage chunk the call is counted, its tokens are not known.
    expect(gateway.usage().get("")).toEqual({ calls: 1, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0 });
  });

  it("reports an unreachable model as 502 naming the endpoint", async () => {
    const dead = await startScriptedServer();
    await dead.close();
    const { gateway } = await rig(await startScriptedServer(), {
      model: () => ({ baseUrl: dead.baseURL, apiKey: KEY, name: "scripted-model" }),
    });
    const res = await raw(
      gateway,
      "POST",
      "/v1/chat/completions",
      { authorization: `Bearer ${CREDENTIAL}` },
      chatBody(),
    );
    expect(res.status).toBe(502);
    expect(res.body).toContain(`cannot reach the model at http://127.0.0.1:${String(dead.port)}`);
  });

  it("goes through the HTTP proxy named by the Engine's environment", async () => {
    const target = await startScriptedServer({ fallback: reply.text("proxied") });
    const connects: string[] = [];
    const proxy: NetServer = createTcpServer((c) => {
      c.once("data", (head: Buffer) => {
        const line = head.toString("latin1").split("\r\n")[0] ?? "";
        const m = /^CONNECT (\S+):(\d+) HTTP/.exec(line);
        if (!m) return c.end("HTTP/1.1 405 Method Not Allowed\r\n\r\n");
        connects.push(`${m[1]}:${m[2]}`);
        const up = tcpConnect(Number(m[2]), m[1], () => {
          c.write("HTTP/1.1 200 Connection Established\r\n\r\n");
          up.pipe(c).pipe(up);
        });
        up.on("error", () => c.destroy());
      });
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    onCleanup(() => new Promise((r) => proxy.close(() => r())));
    const port = (proxy.address() as { port: number }).port;
    const { gateway } = await rig(target, { env: { HTTP_PROXY: `http://127.0.0.1:${String(port)}` } });
    const client = await sdk(gateway);
    const out = await client.chat.completions.create({
      model: "scripted-model",
      messages: [{ role: "user", content: "x" }],
    });
    expect(out.choices[0]?.message.content).toBe("proxied");
    expect(connects).toEqual([`127.0.0.1:${String(target.port)}`]);
  });

  it("records exchanges and replays them with no model server at all", async () => {
    const dir = await makeTempDir("palisade-gateway-rec-");
    onCleanup(() => dir.remove());
    const file = join(dir.path, "exchanges.jsonl");
    const rec = await rig(await startScriptedServer({ fallback: reply.text("recorded answer") }), { record: file });
    const c1 = await sdk(rec.gateway);
    const s1 = await c1.chat.completions.create({
      model: "scripted-model",
      messages: [{ role: "user", content: "x" }],
      stream: true,
    });
    let first = "";
    for await (const ch of s1) first += ch.choices[0]?.delta.content ?? "";
    await rec.gateway.close();
    expect(readFileSync(file, "utf8").trim().split("\n")).toHaveLength(1);

    const rep = await rig(await startScriptedServer(), {
      model: () => ({ baseUrl: "http://127.0.0.1:9/v1", name: "scripted-model" }),
      replay: await ExchangeReplay.load(file),
    });
    const c2 = await sdk(rep.gateway);
    const s2 = await c2.chat.completions.create({
      model: "scripted-model",
      messages: [{ role: "user", content: "x" }],
      stream: true,
    });
    let again = "";
    for await (const ch of s2) again += ch.choices[0]?.delta.content ?? "";
    expect(first).toBe("recorded answer");
    expect(again).toBe(first);
    expect(rep.model.requests).toHaveLength(0);
    const exhausted = await raw(
      rep.gateway,
      "POST",
      "/v1/chat/completions",
      { authorization: `Bearer ${CREDENTIAL}` },
      chatBody(),
    );
    expect(exhausted.status).toBe(500);
    expect(exhausted.body).toContain("no exchange left");
  });
});

describe("UsageScanner", () => {
  it("finds the usage chunk of an SSE stream split at any byte", () => {
    const text =
      'data: {"choices":[{"delta":{"content":"hi"}}]}\n\ndata: {"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":4}}}\n\ndata: [DONE]\n\n';
    const bytes = Buffer.from(text);
    for (let cut = 1; cut < bytes.length; cut += 7) {
      const s = new UsageScanner(true);
      s.push(bytes.subarray(0, cut));
      s.push(bytes.subarray(cut));
      expect(s.end()).toEqual({ inputTokens: 12, outputTokens: 3, cacheReadTokens: 4 });
    }
  });
  it("reads SSE as SSE: CR line endings, a usage object over two data lines, comments", () => {
    const text =
      ': keep-alive\r\rdata: {"choices":[{"delta":{"content":"hi"}}]}\r\r' +
      'data: {"choices":[],\rdata: "usage":{"prompt_tokens":7,"completion_tokens":1}}\r\rdata: [DONE]\r\r';
    const s = new UsageScanner(true);
    s.push(Buffer.from(text));
    expect(s.end()).toEqual({ inputTokens: 7, outputTokens: 1, cacheReadTokens: 0 });
  });
  it("skips an event past 64 KiB and still finds the usage after it", () => {
    const s = new UsageScanner(true);
    s.push(Buffer.from('data: {"choices":[{"delta":{"content":"'));
    for (let i = 0; i < 32; i++) s.push(Buffer.from("x".repeat(16 * 1024)));
    s.push(Buffer.from('"}}]}\n\ndata: {"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":2}}\n\n'));
    expect(s.end()).toEqual({ inputTokens: 9, outputTokens: 2, cacheReadTokens: 0 });
  });
  it("reads a JSON completion's usage and ignores garbage", () => {
    const s = new UsageScanner(false);
    s.push(Buffer.from('{"usage":{"prompt_tokens":5,"completion_tokens":2}}'));
    expect(s.end()).toEqual({ inputTokens: 5, outputTokens: 2, cacheReadTokens: 0 });
    const g = new UsageScanner(true);
    g.push(Buffer.from('data: {"usage": nope}\n\n'));
    expect(g.end()).toBeUndefined();
  });
});
