// Per-service authorization on metadata (before the body is read), per-service size limits,
// unknown fields dropped, and the principal handed to handlers: real grpc-js server and clients.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client as GrpcClient, Metadata, credentials } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentService } from "../src/gen/palisade/v1/pipeline_pb.js";
import { Capability } from "../src/gen/selu/capability/v1/capability_pb.js";
import { Code, RpcError, RpcServer, createClient } from "../src/index.js";
import type { ServiceImpl } from "../src/index.js";

const enc = new TextEncoder();
const seen = {
  invokes: 0,
  principals: [] as unknown[],
  unknown: [] as unknown[],
  sessions: 0,
  refused: [] as string[],
};

const capability: ServiceImpl<typeof Capability> = {
  async invoke(req, ctx) {
    seen.invokes++;
    seen.principals.push(ctx.principal);
    seen.unknown.push((req as { $unknown?: unknown }).$unknown);
    return { resultJson: enc.encode(String(req.argsJson.byteLength)) };
  },
  async *streamInvoke() {},
  async healthcheck() {
    return { ready: true, message: "ok" };
  },
  async uploadInputArtifact() {
    return {};
  },
  async *downloadOutputArtifact() {},
};

const agent: ServiceImpl<typeof AgentService> = {
  async *runSession(events) {
    seen.sessions++;
    for await (const ev of events)
      if (ev.event.case === "ready")
        yield { directive: { case: "shutdown", value: { reason: ev.event.value.agentId } } };
  },
};

const bearer = (md: Metadata): string => String(md.get("authorization")[0] ?? "");

/** `n` bytes of empty unknown fields (field 1000, length 0), each 3 bytes. */
function unknownFields(n: number): Buffer {
  const one = Buffer.from([0xc2, 0x3e, 0x00]); // tag (1000 << 3 | 2) as varint, then length 0
  const out = Buffer.alloc(n - (n % 3));
  for (let i = 0; i < out.length; i += 3) one.copy(out, i);
  return out;
}

describe("per-service credentials and limits", () => {
  let server: RpcServer;
  let address: string;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "palisade-auth-"));
    server = new RpcServer({
      maxMessageBytes: 4 * 1024 * 1024,
      onRefused: (err, path) => seen.refused.push(`${path} ${err.codeName}`),
    })
      .add(Capability, capability, {
        maxMessageBytes: 64 * 1024,
        authorize: (md) => {
          if (bearer(md) !== "Bearer cap-secret")
            throw new RpcError(Code.UNAUTHENTICATED, "capability credential required");
          return { role: "cap" };
        },
      })
      .add(AgentService, agent, {
        authorize: (md) => {
          if (bearer(md) !== "Bearer agent-secret")
            throw new RpcError(Code.UNAUTHENTICATED, "agent credential required");
          return { role: "agent" };
        },
      });
    address = await server.listen(`unix:${join(dir, "s.sock")}`);
  });
  afterAll(async () => {
    await server.close(100);
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves a call with its service's credential and hands the handler the principal", async () => {
    const c = createClient(Capability, address, { bearerToken: "cap-secret" });
    const res = await c.invoke({ toolName: "t", argsJson: enc.encode("abc") });
    expect(new TextDecoder().decode(res.resultJson)).toBe("3");
    expect(seen.principals.at(-1)).toEqual({ role: "cap" });
    c.close();
  });

  it("refuses another service's credential, and none at all", async () => {
    const before = seen.invokes;
    for (const token of ["agent-secret", undefined]) {
      const c = createClient(Capability, address, token ? { bearerToken: token } : {});
      const err = await c.invoke({ toolName: "t" }).catch((e: unknown) => e);
      expect((err as RpcError).code).toBe(Code.UNAUTHENTICATED);
      c.close();
    }
    expect(seen.invokes).toBe(before);
    expect(seen.refused.filter((r) => r.includes("Capability/Invoke UNAUTHENTICATED")).length).toBeGreaterThanOrEqual(
      2,
    );
  });

  it("refuses a bidi stream on its metadata: the handler never starts", async () => {
    const before = seen.sessions;
    const call = createClient(AgentService, address, { bearerToken: "cap-secret" }).runSession();
    await call.send({ event: { case: "ready", value: { agentId: "x" } } }).catch(() => undefined);
    const err = await (async () => {
      for await (const _ of call) void _;
    })().catch((e: unknown) => e);
    expect((err as RpcError).code).toBe(Code.UNAUTHENTICATED);
    expect(seen.sessions).toBe(before);
    const ok = createClient(AgentService, address, { bearerToken: "agent-secret" }).runSession();
    await ok.send({ event: { case: "ready", value: { agentId: "hello" } } });
    for await (const d of ok) {
      expect(d.directive.case === "shutdown" && d.directive.value.reason).toBe("hello");
      break;
    }
    expect(seen.sessions).toBe(before + 1);
  });

  it("refuses a large body without a credential as UNAUTHENTICATED, not by its size or content", async () => {
    const raw = new GrpcClient(address, credentials.createInsecure(), { "grpc.max_send_message_length": -1 });
    const body = unknownFields(4 * 1024 * 1024 - 16);
    const err = await new Promise<unknown>((resolve) => {
      raw.makeUnaryRequest(
        "/selu.capability.v1.Capability/Invoke",
        (b: Buffer) => b,
        (b: Buffer) => b,
        body,
        new Metadata(),
        {},
        (e) => resolve(e),
      );
    });
    expect((err as { code: number }).code).toBe(Code.UNAUTHENTICATED);
    raw.close();
  });

  it("with a credential: over the service's limit is RESOURCE_EXHAUSTED; unknown fields never reach the handler", async () => {
    const raw = new GrpcClient(address, credentials.createInsecure(), {});
    const md = new Metadata();
    md.set("authorization", "Bearer cap-secret");
    const call = (body: Buffer): Promise<{ code?: number } | null> =>
      new Promise((resolve) =>
        raw.makeUnaryRequest(
          "/selu.capability.v1.Capability/Invoke",
          (b: Buffer) => b,
          (b: Buffer) => b,
          body,
          md,
          {},
          (e) => resolve(e),
        ),
      );
    const before = seen.invokes;
    expect((await call(unknownFields(100 * 1024)))?.code).toBe(Code.RESOURCE_EXHAUSTED);
    expect(seen.invokes).toBe(before);
    expect(await call(unknownFields(30 * 1024))).toBeNull();
    expect(seen.invokes).toBe(before + 1);
    expect(seen.unknown.at(-1)).toBeUndefined();
    expect((await call(Buffer.from([0x0a, 0x7f])))?.code).toBe(Code.INVALID_ARGUMENT);
    raw.close();
  });
});

describe("concurrent streams per connection", () => {
  it("a connection gets at most maxConcurrentStreams calls at once; the next waits for one to end", async () => {
    const dir = mkdtempSync(join(tmpdir(), "palisade-streams-"));
    let running = 0;
    let most = 0;
    const gates: (() => void)[] = [];
    const server = new RpcServer({ maxConcurrentStreams: 2 }).add(Capability, {
      ...capability,
      async *streamInvoke() {
        running++;
        most = Math.max(most, running);
        await new Promise<void>((resolve) => gates.push(resolve));
        running--;
        yield { done: true };
      },
    });
    const address = await server.listen(`unix:${join(dir, "s.sock")}`);
    const c = createClient(Capability, address);
    const drain = async (): Promise<void> => {
      for await (const _ of c.streamInvoke({})) void _;
    };
    const calls = [drain(), drain(), drain()];
    await new Promise((r) => setTimeout(r, 300));
    expect(running).toBe(2);
    gates.shift()?.();
    await new Promise((r) => setTimeout(r, 300));
    expect(running).toBe(2); // the third started once the first ended
    for (const g of gates.splice(0)) g();
    await new Promise((r) => setTimeout(r, 100));
    for (const g of gates.splice(0)) g();
    await Promise.all(calls);
    expect(most).toBe(2);
    c.close();
    await server.close(100);
    rmSync(dir, { recursive: true, force: true });
  });
});
