import { connect } from "node:net";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentService } from "../src/gen/palisade/v1/pipeline_pb.js";
import { Capability } from "../src/gen/selu/capability/v1/capability_pb.js";
import { AsyncQueue, Code, RpcError, RpcServer, createClient } from "../src/index.js";
import type { Client, ServiceImpl } from "../src/index.js";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Records what the server saw, so tests can assert on server-side effects. */
const seen = { cancelled: [] as string[], reasons: new Map<string, unknown>() };

function waitFor(signal: AbortSignal, ms: number): Promise<"aborted" | "timeout"> {
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve("timeout"), ms);
    signal.addEventListener("abort", () => {
      clearTimeout(t);
      resolve("aborted");
    });
  });
}

const capability: ServiceImpl<typeof Capability> = {
  async invoke(req, ctx) {
    const args = JSON.parse(dec.decode(req.argsJson)) as { sleepMs?: number; fail?: string };
    if (args.fail) throw new RpcError(Code.FAILED_PRECONDITION, args.fail);
    if (args.sleepMs) {
      const outcome = await waitFor(ctx.signal, args.sleepMs);
      if (outcome === "aborted") {
        seen.cancelled.push(req.toolName);
        seen.reasons.set(req.toolName, ctx.signal.reason);
      }
    }
    return { resultJson: enc.encode(JSON.stringify({ tool: req.toolName, session: req.sessionId })) };
  },
  async *streamInvoke(req, ctx) {
    const n = Number(dec.decode(req.argsJson));
    for (let i = 0; i < n; i++) {
      if (ctx.signal.aborted) {
        seen.cancelled.push("stream");
        return;
      }
      yield { data: enc.encode(String(i)), done: i === n - 1 };
      await new Promise((r) => setTimeout(r, n > 100 ? 10 : 0));
    }
  },
  async healthcheck() {
    return { ready: true, message: "ok" };
  },
  async uploadInputArtifact(chunks) {
    let size = 0;
    let name = "";
    for await (const c of chunks) {
      size += c.data.byteLength;
      name ||= c.filename;
    }
    return { capabilityArtifactId: `id-${name}`, sizeBytes: BigInt(size) };
  },
  async *downloadOutputArtifact(req) {
    if (req.capabilityArtifactId === "missing") {
      yield { error: "unknown artifact", done: true };
      return;
    }
    yield { data: enc.encode("ab"), filename: "f.txt", mimeType: "text/plain" };
    yield { data: enc.encode("cd"), done: true };
  },
};

const agent: ServiceImpl<typeof AgentService> = {
  async *runSession(events) {
    // Echo: every token event becomes a tool result carrying the same text.
    for await (const ev of events) {
      if (ev.event.case === "llmTokenEmitted") {
        yield { directive: { case: "toolResult", value: { callId: ev.event.value.text } } };
      }
    }
  },
};

function suite(kind: "tcp" | "unix") {
  describe(`bridge over ${kind}`, () => {
    let server: RpcServer;
    let address: string;
    let cap: Client<typeof Capability>;
    let dir: string;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "palisade-bridge-"));
      server = new RpcServer().add(Capability, capability).add(AgentService, agent);
      address = await server.listen(kind === "tcp" ? "127.0.0.1:0" : `unix:${join(dir, "s.sock")}`);
      cap = createClient(Capability, address);
    });
    afterAll(async () => {
      cap.close();
      await server.close(100);
      rmSync(dir, { recursive: true, force: true });
    });

    it("round-trips a unary call", async () => {
      const res = await cap.invoke({ toolName: "echo", argsJson: enc.encode("{}"), sessionId: "s1" });
      expect(JSON.parse(dec.decode(res.resultJson))).toEqual({ tool: "echo", session: "s1" });
    });

    it("surfaces handler errors as RpcError with the status code", async () => {
      const err = await cap.invoke({ argsJson: enc.encode('{"fail":"nope"}') }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RpcError);
      expect((err as RpcError).code).toBe(Code.FAILED_PRECONDITION);
      expect((err as RpcError).message).toBe("nope");
    });

    it("round-trips a server stream", async () => {
      const got: string[] = [];
      let done = false;
      for await (const c of cap.streamInvoke({ argsJson: enc.encode("5") })) {
        got.push(dec.decode(c.data));
        done = c.done;
      }
      expect(got).toEqual(["0", "1", "2", "3", "4"]);
      expect(done).toBe(true);
    });

    it("round-trips a client stream", async () => {
      async function* chunks() {
        for (let i = 0; i < 10; i++) yield { filename: "a.bin", data: new Uint8Array(1000) };
      }
      const res = await cap.uploadInputArtifact(chunks());
      expect(res.capabilityArtifactId).toBe("id-a.bin");
      expect(res.sizeBytes).toBe(10_000n);
    });

    it("round-trips a bidi stream", async () => {
      const call = agent_client(address).runSession();
      await call.send({ event: { case: "llmTokenEmitted", value: { text: "x1" } } });
      await call.send({ event: { case: "llmTokenEmitted", value: { text: "x2" } } });
      call.end();
      const ids: string[] = [];
      for await (const d of call) if (d.directive.case === "toolResult") ids.push(d.directive.value.callId);
      expect(ids).toEqual(["x1", "x2"]);
    });

    it("gives DEADLINE_EXCEEDED when the deadline passes", async () => {
      const err = await cap
        .invoke({ toolName: "slow", argsJson: enc.encode('{"sleepMs":2000}') }, { timeoutMs: 50 })
        .catch((e: unknown) => e);
      expect((err as RpcError).code).toBe(Code.DEADLINE_EXCEEDED);
    });

    it("tells the handler that its deadline passed, not that the client cancelled", async () => {
      const tool = `deadline-${kind}`;
      // Long enough for the call to reach its handler on a loaded machine.
      const err = await cap
        .invoke({ toolName: tool, argsJson: enc.encode('{"sleepMs":10000}') }, { timeoutMs: 600 })
        .catch((e: unknown) => e);
      expect((err as RpcError).code).toBe(Code.DEADLINE_EXCEEDED);
      await expect.poll(() => seen.reasons.has(tool), { timeout: 2000 }).toBe(true);
      const reason = seen.reasons.get(tool);
      expect(reason).toBeInstanceOf(RpcError);
      expect((reason as RpcError).code).toBe(Code.DEADLINE_EXCEEDED);
      expect((reason as RpcError).message).toMatch(/deadline/i);
    });

    it("propagates a client abort to the server handler's signal", async () => {
      const ac = new AbortController();
      const tool = `abort-${kind}`;
      const p = cap.invoke({ toolName: tool, argsJson: enc.encode('{"sleepMs":5000}') }, { signal: ac.signal });
      setTimeout(() => ac.abort(), 50);
      const err = await p.catch((e: unknown) => e);
      expect((err as RpcError).code).toBe(Code.CANCELLED);
      await expect.poll(() => seen.cancelled.includes(tool), { timeout: 2000 }).toBe(true);
      expect((seen.reasons.get(tool) as RpcError).code).toBe(Code.CANCELLED);
    });

    it("ends a client's stream when the server handler fails", async () => {
      const iter = cap.downloadOutputArtifact({ capabilityArtifactId: "missing" });
      const chunks = [];
      for await (const c of iter) chunks.push(c);
      expect(chunks[0]?.error).toBe("unknown artifact");
    });
  });
}

function agent_client(address: string) {
  return createClient(AgentService, address);
}

suite("tcp");
suite("unix");

describe("bridge robustness", () => {
  let server: RpcServer;
  let address: string;
  beforeAll(async () => {
    server = new RpcServer().add(Capability, capability).add(AgentService, agent);
    address = await server.listen("127.0.0.1:0");
  });
  afterAll(async () => server.close(100));

  it("a server-stream cancelled by the client stops the server", async () => {
    const ac = new AbortController();
    const cap = createClient(Capability, address);
    const got: string[] = [];
    const err = await (async () => {
      for await (const c of cap.streamInvoke({ argsJson: enc.encode("1000") }, { signal: ac.signal })) {
        got.push(dec.decode(c.data));
        if (got.length === 3) ac.abort();
      }
    })().catch((e: unknown) => e);
    expect((err as RpcError).code).toBe(Code.CANCELLED);
    await expect.poll(() => seen.cancelled.includes("stream"), { timeout: 2000 }).toBe(true);
    cap.close();
  });

  it("a call that completes normally does not abort its handler's signal", async () => {
    // grpc-js reports every finished call as "cancelled"; that must not reach the handler.
    const signals: AbortSignal[] = [];
    const own = new RpcServer().add(Capability, {
      ...capability,
      async invoke(_req, ctx) {
        signals.push(ctx.signal);
        return { resultJson: enc.encode("{}") };
      },
      async *streamInvoke(_req, ctx) {
        signals.push(ctx.signal);
        yield { data: enc.encode("x"), done: true };
      },
    });
    const cap = createClient(Capability, await own.listen("127.0.0.1:0"));
    await cap.invoke({ toolName: "t", argsJson: enc.encode("{}") });
    for await (const _ of cap.streamInvoke({ argsJson: enc.encode("{}") })) void _;
    await new Promise((r) => setTimeout(r, 50));
    expect(signals).toHaveLength(2);
    expect(signals.map((s) => s.aborted)).toEqual([false, false]);
    cap.close();
    await own.close(100);
  });

  it("a handler's answer that cannot become the response is INTERNAL to the client, and the server keeps serving", async () => {
    const internal: unknown[] = [];
    const own = new RpcServer({ onInternalError: (err) => internal.push(err) }).add(Capability, {
      ...capability,
      // A JavaScript caller (or a cast) can hand back what protobuf-es cannot build a message from.
      healthcheck: async () => null as never,
    });
    const cap = createClient(Capability, await own.listen("127.0.0.1:0"));
    const err = await cap.healthcheck({}).catch((e: unknown) => e);
    expect((err as RpcError).code).toBe(Code.INTERNAL);
    expect(internal).toHaveLength(1);
    expect((await cap.invoke({ toolName: "t", argsJson: enc.encode("{}") })).resultJson.byteLength).toBeGreaterThan(0);
    cap.close();
    await own.close(100);
  });

  it("a bidi stream of 100,000 messages loses none", async () => {
    const client = createClient(AgentService, address);
    const call = client.runSession();
    const N = 100_000;
    const sender = (async () => {
      for (let i = 0; i < N; i++) await call.send({ event: { case: "llmTokenEmitted", value: { text: String(i) } } });
      call.end();
    })();
    let count = 0;
    let inOrder = true;
    for await (const d of call) {
      if (d.directive.case === "toolResult" && d.directive.value.callId !== String(count)) inOrder = false;
      count++;
    }
    await sender;
    expect(count).toBe(N);
    expect(inOrder).toBe(true);
    client.close();
  }, 60_000);

  it("garbage bytes get an error status and the server keeps serving", async () => {
    // A raw HTTP/2 request with a gRPC frame that is not a valid InvokeRequest.
    const http2 = await import("node:http2");
    const [host, port] = address.split(":");
    const session = http2.connect(`http://${host}:${port}`);
    const garbage = Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f, 0x12, 0x34]);
    const frame = Buffer.concat([Buffer.from([0, 0, 0, 0, garbage.length]), garbage]);
    const status = await new Promise<string | undefined>((resolve, reject) => {
      const req = session.request({
        ":method": "POST",
        ":path": "/selu.capability.v1.Capability/Invoke",
        "content-type": "application/grpc",
        te: "trailers",
      });
      let grpcStatus: string | undefined;
      req.on("response", (h) => (grpcStatus ??= h["grpc-status"] as string | undefined));
      req.on("trailers", (t) => (grpcStatus = t["grpc-status"] as string | undefined));
      req.on("data", () => undefined);
      req.on("end", () => resolve(grpcStatus));
      req.on("error", reject);
      req.end(frame);
    });
    session.close();
    expect(status).toBeDefined();
    expect(status).not.toBe("0");

    // Also: a raw TCP connection speaking nonsense must not hurt the server.
    await new Promise<void>((resolve) => {
      const sock = connect(Number(port), host, () => sock.write("GET / HTTP/1.1\r\n\r\n\x00\x01garbage"));
      // The server may answer or just hang up; either way give it a moment, then drop the socket.
      setTimeout(() => sock.destroy(), 200);
      sock.on("close", () => resolve());
      sock.on("error", () => resolve());
    });

    const cap = createClient(Capability, address);
    const res = await cap.healthcheck({});
    expect(res.ready).toBe(true);
    cap.close();
  });

  it("unix sockets are owner-only", async () => {
    const dir = mkdtempSync(join(tmpdir(), "palisade-perm-"));
    const s = new RpcServer().add(Capability, capability);
    await s.listen(`unix:${join(dir, "x.sock")}`);
    expect(statSync(join(dir, "x.sock")).mode & 0o777).toBe(0o600);
    await s.close(50);
    rmSync(dir, { recursive: true, force: true });
  });

  it("AsyncQueue delivers pushed items, then ends", async () => {
    const queue = new AsyncQueue<number>();
    queue.push(1);
    queue.push(2);
    queue.end();
    expect(queue.push(3)).toBe(false);
    const out: number[] = [];
    for await (const x of queue) out.push(x);
    expect(out).toEqual([1, 2]);
  });
});
