// What the Agent may ask the model gateway, judged by what reaches a real upstream (the scripted
// OpenAI-compatible server): body keys and headers by allowlist, a body cap from the context
// window, a connection cap, and error texts without the base URL's secrets.
import { createServer } from "node:http";
import { connect } from "node:net";
import type { AddressInfo, Socket } from "node:net";
import OpenAI from "openai";
import { describe, expect, it, vi } from "vitest";
import { GATEWAY_CONNECTIONS, classifyModelError } from "@palisade/agent";
import { reply, startScriptedServer } from "@palisade/testing";
import { DEFAULT_MAX_CONNECTIONS, HELD_BODIES, bodyCap } from "../src/gateway/admission.js";
import { CREDENTIAL, KEY, raw, rig, sdk } from "./gateway-rig.js";

const auth = { authorization: `Bearer ${CREDENTIAL}` };
const base = {
  model: "scripted-model",
  messages: [{ role: "user" as const, content: "hi" }],
  stream: true,
  stream_options: { include_usage: true },
};
/** The gateway's error message in a refusal's body. */
const message = (res: { body: string }): string =>
  (JSON.parse(res.body) as { error: { message: string } }).error.message;
const post = (
  gateway: Parameters<typeof raw>[0],
  body: unknown,
  headers: Record<string, string> = {},
): ReturnType<typeof raw> =>
  raw(
    gateway,
    "POST",
    "/v1/chat/completions",
    { ...auth, ...headers },
    typeof body === "string" ? body : JSON.stringify(body),
  );

/** A connection to the gateway that has sent `head` and keeps the socket open; what it was answered. */
function openConnection(
  path: string,
  head: string,
): Promise<{ socket: Socket; answer: () => string; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    let answer = "";
    const closed = new Promise<void>((r) => socket.once("close", () => r()));
    socket.on("data", (d: Buffer) => (answer += d.toString("latin1")));
    socket.on("error", () => undefined);
    socket.once("connect", () => {
      socket.write(head);
      resolve({ socket, answer: () => answer, closed });
    });
    socket.once("error", reject);
  });
}

describe("model gateway: request body keys by allowlist", () => {
  it.each([
    ["models", ["gpt-5-pro-expensive", "scripted-model"]],
    ["route", "fallback"],
    ["n", 2],
    ["store", true],
    ["metadata", { session: "x" }],
    ["service_tier", "priority"],
    ["web_search_options", {}],
    ["plugins", [{ id: "web" }]],
    ["provider", { order: ["anyone"] }],
    ["user", "someone-else"],
    ["a_key_nobody_knows", 1],
  ])("%s never reaches the model server: 400 naming the key and where to allow it", async (key, value) => {
    const { gateway, model } = await rig(await startScriptedServer({ fallback: reply.text("ok") }));
    const res = await post(gateway, { ...base, [key]: value });
    expect(res.status).toBe(400);
    expect(res.body).toContain("field_not_allowed");
    expect(message(res)).toContain(JSON.stringify(key));
    expect(model.requests).toHaveLength(0);
  });

  it("what the Agent sends goes through, and the SDK's own call too", async () => {
    const { gateway, model } = await rig(await startScriptedServer({ fallback: reply.text("ok") }));
    const tools = [{ type: "function", function: { name: "f", parameters: { type: "object", properties: {} } } }];
    expect(await post(gateway, { ...base, tools })).toMatchObject({ status: 200 });
    const client = await sdk(gateway);
    const done = await client.chat.completions.create({
      model: "scripted-model",
      messages: [{ role: "user", content: "x" }],
    });
    expect(done.choices[0]?.message.content).toBe("ok");
    expect(model.chatRequests()).toHaveLength(2);
  });

  it("keys of model.extra_body pass only with the configured value", async () => {
    const model0 = await startScriptedServer({ fallback: reply.text("ok") });
    const extraBody = { options: { num_ctx: 32768 }, reasoning_effort: "low" };
    const { gateway, model } = await rig(model0, {
      model: () => ({ baseUrl: model0.baseURL, apiKey: KEY, name: "scripted-model", extraBody }),
    });
    expect(await post(gateway, { ...extraBody, ...base })).toMatchObject({ status: 200 });
    expect(model.chatRequests()[0]).toMatchObject(extraBody);
    const changed = await post(gateway, { ...base, options: { num_ctx: 1_000_000 } });
    expect(changed.status).toBe(400);
    expect(message(changed)).toContain('"options" must be the value model.extra_body sets');
    expect(model.requests).toHaveLength(1);
  });

  it("OpenRouter fallbacks are refused even when model.extra_body sets them (they would reach other models)", async () => {
    const model0 = await startScriptedServer({ fallback: reply.text("ok") });
    const extraBody = { models: ["other-model"], route: "fallback" };
    const { gateway, model } = await rig(model0, {
      model: () => ({ baseUrl: model0.baseURL, apiKey: KEY, name: "scripted-model", extraBody }),
    });
    const res = await post(gateway, { ...extraBody, ...base });
    expect(res.status).toBe(400);
    expect(message(res)).toMatch(/"models".*other models than the allowed one/);
    expect(model.requests).toHaveLength(0);
  });
});

describe("model gateway: request headers by allowlist", () => {
  it("only the headers the SDK needs reach the model server", async () => {
    const { gateway, model } = await rig(await startScriptedServer({ fallback: reply.text("ok") }));
    const res = await post(gateway, base, {
      "x-stainless-lang": "js",
      "x-stainless-retry-count": "0",
      "x-stainless-exfil": "secret-in-a-header",
      "x-stainless-lang-extra": "x",
      "openai-organization": "org-someone-else",
      "openai-project": "proj-someone-else",
      "http-referer": "https://attacker.example",
      "x-title": "attacker",
      "x-forwarded-for": "203.0.113.9",
      cookie: "a=b",
    });
    expect(res.status).toBe(200);
    const seen = model.requests[0]?.headers ?? {};
    expect(seen["x-stainless-lang"]).toBe("js");
    expect(seen["x-stainless-retry-count"]).toBe("0");
    for (const h of [
      "x-stainless-exfil",
      "x-stainless-lang-extra",
      "openai-organization",
      "openai-project",
      "http-referer",
      "x-title",
      "x-forwarded-for",
      "cookie",
    ]) {
      expect(seen[h], h).toBeUndefined();
    }
    expect(JSON.stringify(seen)).not.toContain("secret-in-a-header");
  });
});

describe("model gateway: a body cap from the context window", () => {
  it("a body over the cap is refused with 413 before it is forwarded; the SDK reports it as a context overflow", async () => {
    const model0 = await startScriptedServer({ fallback: reply.text("ok") });
    const { gateway, model } = await rig(model0, {
      model: () => ({ baseUrl: model0.baseURL, apiKey: KEY, name: "scripted-model", contextWindow: 8192 }),
    });
    // 8192 tokens allow about 1.1 MiB; 3 MiB of text is far beyond what the model could read.
    const long = { ...base, messages: [{ role: "user", content: "x".repeat(3 * 1024 * 1024) }] };
    const res = await post(gateway, long);
    expect(res.status).toBe(413);
    expect(res.body).toMatch(/exceeds the context window of model\.context_window = 8192 tokens/);
    const client = await sdk(gateway);
    const err = await client.chat.completions
      .create({ model: "scripted-model", messages: long.messages as OpenAI.ChatCompletionMessageParam[] })
      .catch((e: unknown) => e);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(413);
    // The Agent reads it as a conversation too long for the model (CONTEXT_TOO_LONG), not a crash.
    expect(classifyModelError(OpenAI, err, () => undefined).kind).toBe("context");
    expect(model.requests).toHaveLength(0);
    // Under the cap it goes through.
    expect(
      await post(gateway, { ...base, messages: [{ role: "user", content: "x".repeat(512 * 1024) }] }),
    ).toMatchObject({ status: 200 });
  });

  it("a Content-Length over the cap is answered at once, without reading the body", async () => {
    const model0 = await startScriptedServer({ fallback: reply.text("ok") });
    const { gateway, model } = await rig(model0, {
      model: () => ({ baseUrl: model0.baseURL, apiKey: KEY, name: "scripted-model", contextWindow: 8192 }),
    });
    const c = await openConnection(
      gateway.path,
      `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${CREDENTIAL}\r\nContent-Type: application/json\r\nContent-Length: ${String(30 * 1024 * 1024)}\r\n\r\n{"model":`,
    );
    await c.closed;
    expect(c.answer()).toMatch(/^HTTP\/1\.1 413 /);
    expect(model.requests).toHaveLength(0);
  });
});

describe("model gateway: connection caps", () => {
  it("connections beyond the cap are refused with 503, and accepted again once others end", async () => {
    const { gateway, model } = await rig(await startScriptedServer({ fallback: reply.text("ok") }), {
      maxConnections: 3,
    });
    const head = `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${CREDENTIAL}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"model":`;
    const held = await Promise.all([1, 2, 3].map(() => openConnection(gateway.path, head)));
    const extra = await openConnection(gateway.path, head);
    await extra.closed;
    expect(extra.answer()).toMatch(/^HTTP\/1\.1 503 /);
    expect(extra.answer()).toContain("too many connections");
    for (const c of held) c.socket.destroy();
    await Promise.all(held.map((c) => c.closed));
    await new Promise((r) => setTimeout(r, 50));
    expect(await post(gateway, base)).toMatchObject({ status: 200 });
    expect(model.chatRequests()).toHaveLength(1);
  });

  it("the Agent's transport keeps its calls within the cap: 300 streamed calls at once, each answered", async () => {
    expect(DEFAULT_MAX_CONNECTIONS).toBeGreaterThanOrEqual(2 * GATEWAY_CONNECTIONS);
    const { gateway, model } = await rig(await startScriptedServer({ fallback: { content: "ok", latencyMs: 100 } }), {
      maxConnections: GATEWAY_CONNECTIONS,
    });
    const client = await sdk(gateway);
    const answers = await Promise.all(
      Array.from({ length: 300 }, async () => {
        let text = "";
        const stream = await client.chat.completions.create({ ...base, stream: true });
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
        return text;
      }),
    );
    expect(answers.filter((a) => a === "ok")).toHaveLength(300);
    expect(model.chatRequests()).toHaveLength(300);
  });

  it("bodies past the held bytes are refused with 503 however many connections are open, and the bytes are given back", async () => {
    const model0 = await startScriptedServer({ fallback: reply.text("ok") });
    const { gateway, model } = await rig(model0, {
      model: () => ({ baseUrl: model0.baseURL, apiKey: KEY, name: "scripted-model", contextWindow: 8192 }),
    });
    const cap = bodyCap(8192);
    // 32 bodies just under the cap fit in the held bytes; a 33rd does not.
    const part = cap - 1000;
    const head = `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${CREDENTIAL}\r\nContent-Type: application/json\r\nContent-Length: ${String(cap)}\r\n\r\n`;
    const held = await Promise.all(
      Array.from({ length: HELD_BODIES }, () => openConnection(gateway.path, head + "x".repeat(part))),
    );
    await vi.waitFor(() => expect(gateway.heldBytes).toBe(HELD_BODIES * part), { timeout: 10_000 });
    const extra = await openConnection(gateway.path, head + "x".repeat(part));
    await extra.closed;
    expect(extra.answer()).toMatch(/^HTTP\/1\.1 503 /);
    expect(extra.answer()).toContain("retry when another call has ended");
    for (const c of held) c.socket.destroy();
    await Promise.all(held.map((c) => c.closed));
    await vi.waitFor(() => expect(gateway.heldBytes).toBe(0));
    expect(await post(gateway, base)).toMatchObject({ status: 200 });
    expect(gateway.heldBytes).toBe(0);
    expect(model.chatRequests()).toHaveLength(1);
  });

  it("a second request pipelined on a connection while the first runs is refused (one in flight per connection)", async () => {
    const model0 = await startScriptedServer({ fallback: { content: "slow answer", tokenDelayMs: 200 } });
    const { gateway, model } = await rig(model0);
    const body = JSON.stringify(base);
    const one = `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${CREDENTIAL}\r\nContent-Type: application/json\r\nContent-Length: ${String(Buffer.byteLength(body))}\r\n\r\n${body}`;
    const c = await openConnection(gateway.path, one + one + one);
    await new Promise((r) => setTimeout(r, 1500));
    c.socket.destroy();
    expect(model.chatRequests()).toHaveLength(1);
    expect(c.answer()).toContain("one request at a time per connection");
  });
});

describe("model gateway: error texts", () => {
  it("an unreachable endpoint's error names its origin, never the base URL's userinfo or query keys", async () => {
    const dead = await startScriptedServer();
    await dead.close();
    const secretUrl = `http://user:pw-SECRET-1@127.0.0.1:${String(dead.port)}/v1?api-key=Q-SECRET-2&api-version=2024`;
    const { gateway, logs } = await rig(await startScriptedServer(), {
      model: () => ({ baseUrl: secretUrl, apiKey: KEY, name: "scripted-model" }),
    });
    const res = await post(gateway, base);
    expect(res.status).toBe(502);
    expect(res.body).toContain(`http://127.0.0.1:${String(dead.port)}`);
    for (const text of [res.body, ...logs]) {
      expect(text).not.toContain("pw-SECRET-1");
      expect(text).not.toContain("Q-SECRET-2");
      expect(text).not.toContain(KEY);
    }
  });

  it("a base URL's query keys reach the model server on the route (Azure's api-version), not glued into the path", async () => {
    const urls: string[] = [];
    const upstream = createServer((req, res) => {
      urls.push(req.url ?? "");
      req.resume().once("end", () => res.writeHead(200, { "content-type": "application/json" }).end('{"choices":[]}'));
    });
    await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", r));
    const port = (upstream.address() as AddressInfo).port;
    try {
      const { gateway } = await rig(await startScriptedServer(), {
        model: () => ({
          baseUrl: `http://127.0.0.1:${String(port)}/v1?api-version=2024-10-21`,
          apiKey: KEY,
          name: "scripted-model",
        }),
      });
      expect(await post(gateway, base)).toMatchObject({ status: 200 });
      expect(urls).toEqual(["/v1/chat/completions?api-version=2024-10-21"]);
    } finally {
      await new Promise((r) => upstream.close(r));
    }
  });

  it("an upstream error that echoes the key, the base URL's password or its query keys reaches the caller without them", async () => {
    const upstream = createServer((req, res) => {
      req.resume().once("end", () => {
        const echo = `bad key ${KEY} for ${req.url ?? ""} as user:pw-SECRET-1`;
        res
          .writeHead(401, { "content-type": "application/json" })
          .end(JSON.stringify({ error: { message: echo, type: "invalid_request_error" } }));
      });
    });
    await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", r));
    const port = (upstream.address() as AddressInfo).port;
    try {
      const baseUrl = `http://user:pw-SECRET-1@127.0.0.1:${String(port)}/v1?api-key=Q-SECRET-2`;
      const { gateway } = await rig(await startScriptedServer(), {
        model: () => ({ baseUrl, apiKey: KEY, name: "scripted-model" }),
      });
      const res = await post(gateway, base);
      expect(res.status).toBe(401);
      expect(res.body).toContain("/v1/chat/completions");
      for (const secret of [KEY, "pw-SECRET-1", "Q-SECRET-2"]) expect(res.body).not.toContain(secret);
      expect(message({ body: res.body })).toContain("bad key");
    } finally {
      await new Promise((r) => upstream.close(r));
    }
  });
});
