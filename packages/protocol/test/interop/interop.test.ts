// The gRPC interop cases between the bridge and Python grpcio (Debian's python3-grpcio 1.51,
// C-core), both ways: grpcio's client against the bridge's server, and the bridge's client
// against grpcio's server. Both sides use the standard grpc.testing protos (proto/).
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code, RpcError, RpcServer, createClient } from "../../src/index.js";
import { CASES } from "./cases.js";
import type { Clients } from "./cases.js";
import { TestService, UnimplementedService, file_grpc_testing_test } from "./gen/grpc/testing/test_pb.js";
import { SKIP_REASON, findPython, jsonLines, startPython, writeDescriptorSet } from "./python.js";
import { testService } from "./test-service.js";
import type { AbortLog } from "./test-service.js";

const python = findPython();
if (!python) console.warn(`skipping the gRPC interop tests: ${SKIP_REASON}`);
const CASE_NAMES = Object.keys(CASES);
/** Run by grpcio's client only: what the bridge's handler hears when grpcio's deadline passes. */
const DEADLINE_CASE = "deadline_reaches_handler";
const skipped = python ? "" : ` — skipped: ${SKIP_REASON}`;

interface CaseResult {
  case: string;
  ok: boolean;
  error?: string;
  trace?: string;
}

describe.skipIf(!python)(`grpcio client -> bridge server${skipped}`, () => {
  let server: RpcServer;
  const aborts: AbortLog = [];
  const results = new Map<string, CaseResult>();
  beforeAll(async () => {
    server = new RpcServer().add(TestService, testService(aborts));
    const address = await server.listen("127.0.0.1:0");
    const port = address.slice(address.lastIndexOf(":") + 1);
    const { child, stderr } = startPython(python as string, "interop_client.py", [
      writeDescriptorSet([file_grpc_testing_test]),
      port,
      [...CASE_NAMES, DEADLINE_CASE].join(","),
    ]);
    for (const r of await jsonLines<CaseResult>(child, stderr, AbortSignal.timeout(60_000))) results.set(r.case, r);
  }, 90_000);
  afterAll(async () => server?.close(100));

  it.each(CASE_NAMES)("%s", (name) => {
    const r = results.get(name);
    expect(r, `grpcio reported nothing for ${name}`).toBeDefined();
    expect(r?.ok, `${r?.error ?? ""}\n${r?.trace ?? ""}`).toBe(true);
  });

  const heard = (method: string, code: Code): number =>
    aborts.filter((a) => a.method === method && a.reason instanceof RpcError && a.reason.code === code).length;
  const log = (): string => JSON.stringify(aborts.map((a) => [a.method, String(a.reason)]));

  it("the bridge's handler of a call grpcio cancelled hears CANCELLED", () => {
    expect(heard("FullDuplexCall", Code.CANCELLED), log()).toBeGreaterThan(0);
  });

  it("the bridge's handler of a call whose grpcio deadline passed hears DEADLINE_EXCEEDED, not a cancel", () => {
    expect(results.get(DEADLINE_CASE)?.ok, results.get(DEADLINE_CASE)?.error).toBe(true);
    expect(heard("StreamingOutputCall", Code.DEADLINE_EXCEEDED), log()).toBe(1);
    expect(heard("StreamingOutputCall", Code.CANCELLED), log()).toBe(0);
  });
});

describe.skipIf(!python)(`bridge client -> grpcio server${skipped}`, () => {
  let child: ChildProcessWithoutNullStreams;
  let clients: Clients;
  beforeAll(async () => {
    const started = startPython(python as string, "interop_server.py", [writeDescriptorSet([file_grpc_testing_test])]);
    child = started.child;
    const port = await new Promise<string>((resolve, reject) => {
      let out = "";
      const timer = setTimeout(
        () => reject(new Error(`the grpcio interop server did not start: ${started.stderr()}`)),
        20_000,
      );
      child.stdout.setEncoding("utf8").on("data", (d: string) => {
        out += d;
        const m = /port (\d+)/.exec(out);
        if (m?.[1]) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      child.on("exit", (code) =>
        reject(new Error(`the grpcio interop server exited (${String(code)}): ${started.stderr()}`)),
      );
    });
    const address = `127.0.0.1:${port}`;
    clients = { test: createClient(TestService, address), unimplemented: createClient(UnimplementedService, address) };
  }, 30_000);
  afterAll(() => {
    clients?.test.close();
    clients?.unimplemented.close();
    child?.stdin.end();
    child?.kill();
  });

  it.each(CASE_NAMES)("%s", async (name) => {
    await CASES[name]?.(clients);
  });
});
