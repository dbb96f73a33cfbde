// The interop TestService served by the bridge, as the interop spec describes it: UnaryCall and
// FullDuplexCall echo x-grpc-test-echo-initial as a response header and
// x-grpc-test-echo-trailing-bin as a trailer, and return `response_status` when a request sets
// one. UnimplementedCall answers UNIMPLEMENTED, as a generated Go server that leaves it out does.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { Code, RpcError } from "../../src/index.js";
import type { CallContext, ServiceImpl } from "../../src/index.js";
import type { EchoStatus } from "./gen/grpc/testing/messages_pb.js";
import type { PayloadSchema } from "./gen/grpc/testing/messages_pb.js";
import type { TestService } from "./gen/grpc/testing/test_pb.js";

export const ECHO_INITIAL = "x-grpc-test-echo-initial";
export const ECHO_TRAILING = "x-grpc-test-echo-trailing-bin";

/** Why each handler's signal fired, by method: what a handler learns of a cancel or a deadline. */
export type AbortLog = { method: string; reason: unknown }[];

function echoMetadata(ctx: CallContext): void {
  const initial = ctx.metadata.get(ECHO_INITIAL)[0];
  if (typeof initial === "string") ctx.setHeader({ [ECHO_INITIAL]: initial });
  const trailing = ctx.metadata.get(ECHO_TRAILING)[0];
  if (trailing instanceof Uint8Array) ctx.setTrailer({ [ECHO_TRAILING]: trailing });
}

function answerStatus(status: EchoStatus | undefined): void {
  if (status && status.code !== 0) throw new RpcError(status.code, status.message);
}

const zeros = (size: number): MessageInitShape<typeof PayloadSchema> => ({ body: new Uint8Array(size) });

function sleep(us: number, signal: AbortSignal): Promise<void> {
  if (us <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(resolve, us / 1000);
    signal.addEventListener("abort", () => (clearTimeout(t), resolve()), { once: true });
  });
}

export function testService(aborts: AbortLog): ServiceImpl<typeof TestService> {
  const watch = (method: string, ctx: CallContext): void => {
    ctx.signal.addEventListener("abort", () => aborts.push({ method, reason: ctx.signal.reason }), { once: true });
  };
  return {
    async emptyCall() {
      return {};
    },
    async unaryCall(req, ctx) {
      echoMetadata(ctx);
      answerStatus(req.responseStatus);
      return { payload: zeros(req.responseSize) };
    },
    async cacheableUnaryCall(req, ctx) {
      echoMetadata(ctx);
      return { payload: zeros(req.responseSize) };
    },
    async *streamingOutputCall(req, ctx) {
      watch("StreamingOutputCall", ctx);
      for (const p of req.responseParameters) {
        await sleep(p.intervalUs, ctx.signal);
        yield { payload: zeros(p.size) };
      }
      answerStatus(req.responseStatus);
    },
    async streamingInputCall(requests, ctx) {
      watch("StreamingInputCall", ctx);
      let total = 0;
      for await (const r of requests) total += r.payload?.body.byteLength ?? 0;
      return { aggregatedPayloadSize: total };
    },
    async *fullDuplexCall(requests, ctx) {
      watch("FullDuplexCall", ctx);
      echoMetadata(ctx);
      for await (const r of requests) {
        answerStatus(r.responseStatus);
        for (const p of r.responseParameters) {
          await sleep(p.intervalUs, ctx.signal);
          yield { payload: zeros(p.size) };
        }
      }
    },
    async *halfDuplexCall(requests) {
      const all = [];
      for await (const r of requests) all.push(r);
      for (const r of all) for (const p of r.responseParameters) yield { payload: zeros(p.size) };
    },
    async unimplementedCall() {
      throw new RpcError(Code.UNIMPLEMENTED, "/grpc.testing.TestService/UnimplementedCall is not implemented");
    },
  };
}
