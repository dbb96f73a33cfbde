// The model calls the Agent makes through the Engine's gateway: the openai SDK with the Agent's
// fetch over a unix socket, against a real HTTP server on a socket in a temp dir.
import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { AgentFailure, createModelCaller } from "@palisade/agent";
import { makeTempDir } from "@palisade/testing";
import type { TempDir } from "@palisade/testing";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

let dir: TempDir | undefined;
let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  await dir?.remove();
  server = undefined;
  dir = undefined;
});

const sse = (...texts: string[]): string =>
  [
    ...texts.map((t) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: t } }] })}\n\n`),
    "data: [DONE]\n\n",
  ].join("");

async function gateway(
  answer: (req: Seen, res: ServerResponse) => void,
): Promise<{ socket: string; seen: Seen[]; closed: Promise<void>[] }> {
  dir = await makeTempDir("palisade-gateway-fetch-");
  const socket = join(dir.path, "gateway.sock");
  const seen: Seen[] = [];
  const closed: Promise<void>[] = [];
  server = createServer((req, res) => {
    closed.push(new Promise((resolve) => res.once("close", () => resolve())));
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const one = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      seen.push(one);
      answer(one, res);
    });
  });
  await new Promise<void>((resolve) => server?.listen(socket, resolve));
  return { socket, seen, closed };
}

const call = (socket: string, signal = new AbortController().signal, onToken?: (t: string) => void) =>
  createModelCaller({
    endpoint: { gateway: socket, credential: "spawn-credential" },
    settings: { maxRetries: 0 },
    log: () => {},
  })({
    model: "m",
    messages: [{ role: "user", content: "héllo" }],
    tools: [],
    signal,
    sessionId: "s-1",
    ...(onToken ? { onToken } : {}),
  });

describe("the Agent's fetch to the model gateway", () => {
  it("sends the SDK's request over the socket (credential, session, JSON body) and streams the answer", async () => {
    const g = await gateway((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(sse("hel", "lo"));
    });
    const tokens: string[] = [];
    const result = await call(g.socket, undefined, (t) => tokens.push(t));
    expect(result.content).toBe("hello");
    expect(tokens).toEqual(["hel", "lo"]);
    const [req] = g.seen;
    expect(req?.method).toBe("POST");
    expect(req?.url).toBe("/v1/chat/completions");
    expect(req?.headers.authorization).toBe("Bearer spawn-credential");
    expect(req?.headers["x-palisade-session"]).toBe("s-1");
    expect(req?.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(req?.body ?? "")).toMatchObject({
      model: "m",
      stream: true,
      messages: [{ role: "user", content: "héllo" }],
    });
  });

  it("sends each call's body as the SDK would serialize it, in one piece with its length, while the conversation grows", async () => {
    const g = await gateway((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(sse("ok"));
    });
    const caller = createModelCaller({
      endpoint: { gateway: g.socket, credential: "c" },
      settings: { maxRetries: 0, extraBody: { temperature: 0.5 } },
      log: () => {},
    });
    const tools = [
      { type: "function" as const, function: { name: "t", description: "a tool…", parameters: { type: "object" } } },
    ];
    const messages: ChatCompletionMessageParam[] = [
      { role: "system", content: "prompt “é”" },
      { role: "user", content: "first" },
    ];
    for (const next of ["second", "third"]) {
      await caller({ model: "m", messages, tools, signal: new AbortController().signal });
      messages.push({ role: "assistant", content: "ok" }, { role: "user", content: next });
    }
    await caller({ model: "m", messages, tools, signal: new AbortController().signal });
    expect(g.seen).toHaveLength(3);
    g.seen.forEach((req, i) => {
      const sent = messages.slice(0, 2 + 2 * i);
      expect(req.body).toBe(
        JSON.stringify({
          temperature: 0.5,
          model: "m",
          messages: sent,
          tools,
          stream: true,
          stream_options: { include_usage: true },
        }),
      );
      expect(req.headers["content-length"]).toBe(String(Buffer.byteLength(req.body)));
      expect(req.headers["content-type"]).toBe("application/json");
    });
  });

  it("decompresses a gzip-encoded answer, as fetch does", async () => {
    const g = await gateway((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream", "content-encoding": "gzip" });
      res.end(gzipSync(sse("packed ", "answer")));
    });
    expect((await call(g.socket)).content).toBe("packed answer");
  });

  it("keeps the server's words of an error answer", async () => {
    const g = await gateway((_req, res) => {
      res.writeHead(429, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "slow down, said the server" } }));
    });
    const err = await call(g.socket).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentFailure);
    expect((err as AgentFailure).code).toBe("RATE_LIMITED");
    expect((err as AgentFailure).message).toContain("slow down, said the server");
  });

  it("a cancelled call ends the turn and closes the request on the server", async () => {
    const g = await gateway((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "partial" } }] })}\n\n`);
    });
    const controller = new AbortController();
    const pending = call(g.socket, controller.signal, () => controller.abort());
    const err = await pending.catch((e: unknown) => e);
    expect((err as AgentFailure).code).toBe("CANCELLED");
    await g.closed[0];
  });
});
