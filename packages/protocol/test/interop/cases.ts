// The interop spec's client cases (grpc/grpc, doc/interop-test-descriptions.md) through the
// bridge's client. Each throws when the server's answer is not the one the spec requires.
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { Metadata } from "@grpc/grpc-js";
import { expect } from "vitest";
import { AsyncQueue, Code, RpcError } from "../../src/index.js";
import type { Client } from "../../src/index.js";
import type { StreamingOutputCallRequestSchema } from "./gen/grpc/testing/messages_pb.js";
import type { TestService, UnimplementedService } from "./gen/grpc/testing/test_pb.js";
import { ECHO_INITIAL, ECHO_TRAILING } from "./test-service.js";

export interface Clients {
  test: Client<typeof TestService>;
  unimplemented: Client<typeof UnimplementedService>;
}

export const SPECIAL_MESSAGE = "\t\ntest with whitespace\r\nand Unicode BMP \u263a and non-BMP \u{1f608}\t\n";
const TRAILING_VALUE = new Uint8Array([0xab, 0xab, 0xab]);

const zeros = (n: number): { body: Uint8Array } => ({ body: new Uint8Array(n) });
const outputRequest = (
  sizes: number[],
  payloadSize = 0,
  status?: [number, string],
): MessageInitShape<typeof StreamingOutputCallRequestSchema> => ({
  responseParameters: sizes.map((size) => ({ size })),
  ...(payloadSize ? { payload: zeros(payloadSize) } : {}),
  ...(status ? { responseStatus: { code: status[0], message: status[1] } } : {}),
});

async function expectCode(call: () => Promise<unknown>, code: Code, message?: string): Promise<void> {
  const err = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, "the call succeeded").toBeInstanceOf(RpcError);
  expect(Code[(err as RpcError).code], (err as RpcError).message).toBe(Code[code]);
  if (message !== undefined) expect((err as RpcError).message).toBe(message);
}

function expectEcho(where: string, header: Metadata | undefined, trailer: Metadata | undefined): void {
  expect(header?.get(ECHO_INITIAL), `${where}: echoed initial metadata`).toEqual(["test_initial_metadata_value"]);
  const trailing = trailer?.get(ECHO_TRAILING)[0];
  expect(trailing, `${where}: echoed trailing metadata`).toBeInstanceOf(Uint8Array);
  expect([...(trailing as Uint8Array)]).toEqual([...TRAILING_VALUE]);
}

async function drain(it: AsyncIterable<unknown>): Promise<number[]> {
  const sizes: number[] = [];
  for await (const r of it as AsyncIterable<{ payload?: { body: Uint8Array } }>)
    sizes.push(r.payload?.body.byteLength ?? -1);
  return sizes;
}

export const CASES: Record<string, (c: Clients) => Promise<void>> = {
  async empty_unary({ test }) {
    const res = await test.emptyCall({});
    expect(res.$typeName).toBe("grpc.testing.Empty");
  },
  async large_unary({ test }) {
    const res = await test.unaryCall({ responseSize: 314159, payload: zeros(271828) });
    expect(res.payload?.body.byteLength).toBe(314159);
    expect(res.payload?.body.every((b) => b === 0)).toBe(true);
  },
  async client_streaming({ test }) {
    const res = await test.streamingInputCall([27182, 8, 1828, 45904].map((n) => ({ payload: zeros(n) })));
    expect(res.aggregatedPayloadSize).toBe(74922);
  },
  async server_streaming({ test }) {
    expect(await drain(test.streamingOutputCall(outputRequest([31415, 9, 2653, 58979])))).toEqual([
      31415, 9, 2653, 58979,
    ]);
  },
  async ping_pong({ test }) {
    const call = test.fullDuplexCall();
    const responses = call[Symbol.asyncIterator]();
    for (const [size, payloadSize] of [
      [31415, 27182],
      [9, 8],
      [2653, 1828],
      [58979, 45904],
    ] as const) {
      await call.send(outputRequest([size], payloadSize));
      const r = await responses.next();
      expect(r.done).toBe(false);
      expect(r.value?.payload?.body.byteLength).toBe(size);
    }
    call.end();
    expect((await responses.next()).done).toBe(true);
  },
  async empty_stream({ test }) {
    const call = test.fullDuplexCall();
    call.end();
    expect(await drain(call)).toEqual([]);
  },
  async custom_metadata({ test }) {
    const metadata = { [ECHO_INITIAL]: "test_initial_metadata_value", [ECHO_TRAILING]: TRAILING_VALUE };
    let header: Metadata | undefined;
    let trailer: Metadata | undefined;
    const hooks = { metadata, onHeader: (md: Metadata) => (header = md), onTrailer: (md: Metadata) => (trailer = md) };
    const res = await test.unaryCall({ responseSize: 314159, payload: zeros(271828) }, hooks);
    expect(res.payload?.body.byteLength).toBe(314159);
    expectEcho("UnaryCall", header, trailer);
    header = trailer = undefined;
    const call = test.fullDuplexCall(hooks);
    await call.send(outputRequest([314159], 271828));
    call.end();
    expect(await drain(call)).toEqual([314159]);
    expectEcho("FullDuplexCall", header, trailer);
  },
  async status_code_and_message({ test }) {
    const message = "test status message";
    await expectCode(() => test.unaryCall({ responseStatus: { code: 2, message } }), Code.UNKNOWN, message);
    const call = test.fullDuplexCall();
    await call.send(outputRequest([], 0, [2, message]));
    call.end();
    await expectCode(() => drain(call), Code.UNKNOWN, message);
  },
  async special_status_message({ test }) {
    await expectCode(
      () => test.unaryCall({ responseStatus: { code: 2, message: SPECIAL_MESSAGE } }),
      Code.UNKNOWN,
      SPECIAL_MESSAGE,
    );
  },
  async unimplemented_method({ test }) {
    await expectCode(() => test.unimplementedCall({}), Code.UNIMPLEMENTED);
  },
  async unimplemented_service({ unimplemented }) {
    await expectCode(() => unimplemented.unimplementedCall({}), Code.UNIMPLEMENTED);
  },
  async timeout_on_sleeping_server({ test }) {
    const call = test.fullDuplexCall({ timeoutMs: 1 });
    // The deadline may pass before the message is even written: either way the call ends so.
    await call.send(outputRequest([], 27182)).catch(() => undefined);
    await expectCode(() => drain(call), Code.DEADLINE_EXCEEDED);
  },
  async cancel_after_begin({ test }) {
    const requests = new AsyncQueue<{ payload: { body: Uint8Array } }>();
    const controller = new AbortController();
    const call = test.streamingInputCall(requests, { signal: controller.signal });
    controller.abort();
    await expectCode(() => call, Code.CANCELLED);
    requests.end();
  },
  async cancel_after_first_response({ test }) {
    const call = test.fullDuplexCall();
    const responses = call[Symbol.asyncIterator]();
    await call.send(outputRequest([31415], 27182));
    const first = await responses.next();
    expect(first.value?.payload?.body.byteLength).toBe(31415);
    call.cancel();
    await expectCode(() => responses.next(), Code.CANCELLED);
  },
};
