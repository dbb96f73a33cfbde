// Response headers and trailers, text and binary (`-bin`), on successful and failed calls of
// all four kinds, through the bridge's server and client API.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Metadata } from "@grpc/grpc-js";
import { AgentService } from "../src/gen/palisade/v1/pipeline_pb.js";
import { Capability } from "../src/gen/selu/capability/v1/capability_pb.js";
import { Code, RpcError, RpcServer, createClient } from "../src/index.js";
import type { CallContext, CallOptions, Client, ServiceImpl } from "../src/index.js";

const enc = new TextEncoder();
const BINARY = new Uint8Array([0x00, 0xff, 0xab, 0x0a, 0x80]);

/** Echoes the request's `x-echo-*` values as headers and trailers, text and binary. */
function echo(ctx: CallContext): void {
  const text = ctx.metadata.get("x-echo-text")[0];
  const bin = ctx.metadata.get("x-echo-bin")[0];
  if (typeof text === "string")
    ctx.setHeader({ "x-initial": text, "x-initial-bin": bin instanceof Uint8Array ? bin : BINARY });
  if (bin instanceof Uint8Array) ctx.setTrailer({ "x-trailing-bin": bin, "x-trailing": ["one", "two"] });
}

const capability: ServiceImpl<typeof Capability> = {
  async invoke(req, ctx) {
    echo(ctx);
    if (req.toolName === "fail") throw new RpcError(Code.FAILED_PRECONDITION, "refused on purpose");
    return { resultJson: enc.encode("{}") };
  },
  async *streamInvoke(_req, ctx) {
    echo(ctx);
    yield { data: enc.encode("a") };
    yield { data: enc.encode("b"), done: true };
  },
  async healthcheck(_req, ctx) {
    ctx.setHeader({ "x-early": "1" });
    ctx.sendHeader();
    // Headers already on the wire cannot change: the handler hears so at once.
    const late = (() => {
      try {
        ctx.setHeader({ "x-late": "1" });
        return "accepted";
      } catch (err) {
        return (err as Error).message;
      }
    })();
    return { ready: true, message: late };
  },
  async uploadInputArtifact(chunks, ctx) {
    echo(ctx);
    for await (const _ of chunks) void _;
    return { capabilityArtifactId: "x" };
  },
  async *downloadOutputArtifact(_req, ctx) {
    echo(ctx);
    yield { data: enc.encode("partial") };
    throw new RpcError(Code.DATA_LOSS, "stream broke on purpose");
  },
};

const agent: ServiceImpl<typeof AgentService> = {
  async *runSession(events, ctx) {
    echo(ctx);
    for await (const _ of events) yield { directive: { case: "toolResult", value: { callId: "ok" } } };
  },
};

/** Call options that send `x-echo-*` and capture what comes back. */
function capture(): { opts: CallOptions; header: () => Metadata | undefined; trailer: () => Metadata | undefined } {
  let header: Metadata | undefined;
  let trailer: Metadata | undefined;
  return {
    opts: {
      metadata: { "x-echo-text": "hello", "x-echo-bin": BINARY },
      onHeader: (md) => (header = md),
      onTrailer: (md) => (trailer = md),
    },
    header: () => header,
    trailer: () => trailer,
  };
}

function expectEchoed(header: Metadata | undefined, trailer: Metadata | undefined): void {
  expect(header?.get("x-initial")).toEqual(["hello"]);
  const initialBin = header?.get("x-initial-bin")[0];
  expect(initialBin).toBeInstanceOf(Uint8Array);
  expect([...(initialBin as Uint8Array)]).toEqual([...BINARY]);
  const trailingBin = trailer?.get("x-trailing-bin")[0];
  expect(trailingBin).toBeInstanceOf(Uint8Array);
  expect([...(trailingBin as Uint8Array)]).toEqual([...BINARY]);
  // Several values of a text key may arrive joined by commas (HTTP header semantics, the gRPC spec).
  expect(trailer?.get("x-trailing").join(",").split(/,\s*/)).toEqual(["one", "two"]);
}

describe("response headers and trailers", () => {
  let server: RpcServer;
  let cap: Client<typeof Capability>;
  let agentClient: Client<typeof AgentService>;
  beforeAll(async () => {
    server = new RpcServer().add(Capability, capability).add(AgentService, agent);
    const address = await server.listen("127.0.0.1:0");
    cap = createClient(Capability, address);
    agentClient = createClient(AgentService, address);
  });
  afterAll(async () => {
    cap.close();
    agentClient.close();
    await server.close(100);
  });

  it("unary: headers and trailers of a successful call reach the client", async () => {
    const c = capture();
    await cap.invoke({ toolName: "ok" }, c.opts);
    expectEchoed(c.header(), c.trailer());
  });

  it("unary: a failed call still carries the handler's headers and trailers", async () => {
    const c = capture();
    const err = await cap.invoke({ toolName: "fail" }, c.opts).catch((e: unknown) => e);
    expect((err as RpcError).code).toBe(Code.FAILED_PRECONDITION);
    expectEchoed(c.header(), c.trailer());
    expect([...((err as RpcError).metadata.get("x-trailing-bin")[0] as Uint8Array)]).toEqual([...BINARY]);
  });

  it("server stream: headers before the first message, trailers after the last", async () => {
    const c = capture();
    const seenAtFirst: (Metadata | undefined)[] = [];
    const data: string[] = [];
    for await (const chunk of cap.streamInvoke({}, c.opts)) {
      if (data.length === 0) seenAtFirst.push(c.header());
      data.push(Buffer.from(chunk.data).toString());
    }
    expect(data).toEqual(["a", "b"]);
    expect(seenAtFirst[0]?.get("x-initial")).toEqual(["hello"]);
    expectEchoed(c.header(), c.trailer());
  });

  it("server stream that fails midway: trailers come with the error", async () => {
    const c = capture();
    const err = await (async () => {
      for await (const _ of cap.downloadOutputArtifact({}, c.opts)) void _;
    })().catch((e: unknown) => e);
    expect((err as RpcError).code).toBe(Code.DATA_LOSS);
    expectEchoed(c.header(), c.trailer());
  });

  it("client stream and bidi stream carry them too", async () => {
    const up = capture();
    await cap.uploadInputArtifact([{ filename: "f" }, { data: BINARY }], up.opts);
    expectEchoed(up.header(), up.trailer());

    const bidi = capture();
    const call = agentClient.runSession(bidi.opts);
    await call.send({ event: { case: "llmTokenEmitted", value: { text: "x" } } });
    call.end();
    for await (const _ of call) void _;
    expectEchoed(bidi.header(), bidi.trailer());
  });

  it("sendHeader puts the headers on the wire; setting more afterwards is refused", async () => {
    let header: Metadata | undefined;
    const res = await cap.healthcheck({}, { onHeader: (md) => (header = md) });
    expect(header?.get("x-early")).toEqual(["1"]);
    expect(header?.get("x-late")).toEqual([]);
    expect(res.message).toMatch(/already sent/);
  });

  it("a -bin key needs bytes and a text key needs printable ASCII: said before anything is sent", async () => {
    await expect(cap.invoke({}, { metadata: { "x-key-bin": "not bytes" } })).rejects.toThrow(/x-key-bin.*bytes/);
    await expect(cap.invoke({}, { metadata: { "x-key": BINARY } })).rejects.toThrow(/x-key.*-bin/);
    await expect(cap.invoke({}, { metadata: { "x-key": "naïve" } })).rejects.toThrow(/x-key.*printable ASCII/);
    await expect(cap.invoke({}, { metadata: { "grpc-timeout": "1S" } })).rejects.toThrow(/grpc-timeout.*reserved/);
  });
});
