// Client keepalive against a server's ping policy. gRPC servers (C-core, Go) refuse pings that
// come more often than their minimum interval while no data flows (300 s by default) and close
// the connection after a few: a call that stays silent that long (a slow local model, a quiet
// tool) is lost. Palisade's clients ping no more often than that, shown against a real grpcio
// server with its window scaled down to seconds (client interval scaled by the same factor).
import { Client, credentials } from "@grpc/grpc-js";
import type { ChannelOptions, ServiceError } from "@grpc/grpc-js";
import { afterEach, describe, expect, it } from "vitest";
import { defaultChannelOptions } from "../../src/index.js";
import { SKIP_REASON, findPython, startPython } from "./python.js";

/** gRPC's default `grpc.http2.min_ping_interval_without_data_ms` (Go: keepalive.EnforcementPolicy MinTime). */
const GRPC_DEFAULT_MIN_PING_INTERVAL_MS = 300_000;
/** The server's window in the test: the real one divided by SCALE. */
const WINDOW_MS = 1_500;
const SCALE = GRPC_DEFAULT_MIN_PING_INTERVAL_MS / WINDOW_MS;

const python = findPython();
const skipped = python ? "" : ` — skipped: ${SKIP_REASON}`;
const stops: (() => void)[] = [];
afterEach(() => stops.splice(0).forEach((stop) => stop()));

/** One call that the server answers after `silentMs` of silence, through a client with `options`. */
async function silentCall(options: ChannelOptions, silentMs: number): Promise<string> {
  const { child, stderr } = startPython(python as string, "silent_server.py", [
    String(WINDOW_MS),
    String(silentMs / 1000),
  ]);
  stops.push(() => child.kill("SIGKILL"));
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding("utf8").once("data", (d: string) => resolve(d.trim()));
    child.once("close", (code) => reject(new Error(`silent_server.py exited with ${String(code)}: ${stderr()}`)));
  });
  const client = new Client(`127.0.0.1:${port}`, credentials.createInsecure(), options);
  stops.push(() => client.close());
  return new Promise((resolve, reject) => {
    const id = (b: Buffer): Buffer => b;
    client.makeUnaryRequest(
      "/palisade.test.Silent/Wait",
      id,
      id,
      Buffer.from("x"),
      (err: ServiceError | null, res?: Buffer) => (err ? reject(err) : resolve(String(res))),
    );
  });
}

/** Palisade's channel options with the keepalive interval scaled down like the server's window. */
function scaled(options: ChannelOptions): ChannelOptions {
  const keepalive = options["grpc.keepalive_time_ms"] as number;
  return { ...options, "grpc.keepalive_time_ms": Math.round(keepalive / SCALE) };
}

describe("client keepalive", () => {
  it("Palisade's clients ping no more often than gRPC servers allow by default", () => {
    expect(defaultChannelOptions()["grpc.keepalive_time_ms"]).toBeGreaterThanOrEqual(GRPC_DEFAULT_MIN_PING_INTERVAL_MS);
  });

  describe.skipIf(!python)(`against a grpcio server enforcing its ping policy${skipped}`, () => {
    it("a call silent for four of the server's ping windows is answered through Palisade's channel options", async () => {
      await expect(silentCall(scaled(defaultChannelOptions()), 4 * WINDOW_MS)).resolves.toBe("done");
    }, 30_000);

    // The failure the defaults avoid: the server's GOAWAY (too_many_pings) ends the call.
    it("a client pinging five times per window loses the same silent call", async () => {
      const tooOften = { ...defaultChannelOptions(), "grpc.keepalive_time_ms": WINDOW_MS / 5 };
      await expect(silentCall(tooOften, 4 * WINDOW_MS)).rejects.toThrow(
        /Bandwidth exhausted|too_many_pings|excess pings/i,
      );
    }, 30_000);
  });
});
