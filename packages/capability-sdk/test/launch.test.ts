// The capability side of the launch protocol, with real processes: the Engine's socket and
// secret, UNAUTHENTICATED before decoding, refusing to start without a secret, exiting with the
// Engine's pipe.
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client as GrpcClient, Metadata, credentials } from "@grpc/grpc-js";
import type { ServiceError } from "@grpc/grpc-js";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { Code, RpcError, createClient } from "@palisade/protocol";
import { Capability } from "@palisade/protocol/capability";
import { json, newSecret, parse } from "./helpers.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/marker-capability.mjs", import.meta.url));
const SDK_DIST = fileURLToPath(new URL("../dist/index.js", import.meta.url));

interface Launched {
  child: ChildProcess;
  socket: string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

let dir: string;
const children: ChildProcess[] = [];
beforeAll(() => {
  if (!existsSync(SDK_DIST)) throw new Error(`${SDK_DIST} is missing: run \`npx tsc -b\` first`);
});
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Spawns the fixture as the Engine does: socket path in the environment, `stdinLine` on stdin (kept open). */
function spawnFixture(env: Record<string, string>, args: string[] = []): Omit<Launched, "socket"> {
  const child = spawn(process.execPath, [FIXTURE, ...args], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["pipe", "ignore", "pipe"],
  });
  children.push(child);
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  child.stdin?.on("error", () => undefined);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  return { child, stderr: () => stderr, exited };
}

async function launch(secret: string): Promise<Launched> {
  dir = mkdtempSync(join(tmpdir(), "capsdk-launch-"));
  const socket = join(dir, "cap.sock");
  const l = spawnFixture({ PALISADE_CAPABILITY_SOCKET: socket });
  l.child.stdin?.write(`${secret}\n`);
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (l.stderr().includes("capability marker listening on")) {
        clearInterval(timer);
        resolve();
      }
    }, 20);
    void l.exited.then(({ code }) => {
      clearInterval(timer);
      reject(new Error(`fixture exited (${code}) before listening:\n${l.stderr()}`));
    });
  });
  return { ...l, socket };
}

async function code(p: Promise<unknown>): Promise<number | string> {
  try {
    await p;
    return "succeeded";
  } catch (err) {
    return RpcError.from(err).code;
  }
}

async function drain(it: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of it) void _;
}

describe("an Engine-launched capability (socket + secret on stdin)", () => {
  it("serves the Engine's secret; no secret or a wrong one is UNAUTHENTICATED on every RPC and no tool runs", async () => {
    const secret = newSecret();
    const cap = await launch(secret);
    expect(cap.stderr()).toContain(`listening on unix:${cap.socket}`);
    const marker = join(dir, "marker");
    const request = { toolName: "touch", argsJson: json({ path: marker }) };
    for (const token of [undefined, newSecret(), `${secret}x`, secret.slice(0, -1), ""]) {
      const client = createClient(Capability, `unix:${cap.socket}`, token === undefined ? {} : { bearerToken: token });
      try {
        expect(await code(client.invoke(request))).toBe(Code.UNAUTHENTICATED);
        expect(await code(drain(client.streamInvoke(request)))).toBe(Code.UNAUTHENTICATED);
        expect(await code(client.healthcheck({}))).toBe(Code.UNAUTHENTICATED);
        expect(await code(client.uploadInputArtifact([{ filename: "a", data: new Uint8Array(10) }]))).toBe(
          Code.UNAUTHENTICATED,
        );
        expect(await code(drain(client.downloadOutputArtifact({ capabilityArtifactId: "x" })))).toBe(
          Code.UNAUTHENTICATED,
        );
      } finally {
        client.close();
      }
    }
    expect(existsSync(marker)).toBe(false);

    // The same call with the secret runs: the marker check above can see a call that ran.
    const good = createClient(Capability, `unix:${cap.socket}`, { bearerToken: secret });
    try {
      expect((await good.healthcheck({})).ready).toBe(true);
      expect(parse((await good.invoke(request)).resultJson)).toEqual({ touched: marker });
      expect(existsSync(marker)).toBe(true);
    } finally {
      good.close();
    }
  });

  it("refuses an unauthenticated request before decoding it", async () => {
    const secret = newSecret();
    const cap = await launch(secret);
    // Not protobuf: a length-delimited field 1 claiming far more bytes than follow.
    const garbage = Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]);
    const raw = new GrpcClient(`unix:${cap.socket}`, credentials.createInsecure());
    const call = (token: string): Promise<ServiceError | null> =>
      new Promise((resolve) => {
        const md = new Metadata();
        md.set("authorization", `Bearer ${token}`);
        raw.makeUnaryRequest(
          "/selu.capability.v1.Capability/Invoke",
          (b: Buffer) => b,
          (b: Buffer) => b,
          garbage,
          md,
          (err) => resolve(err),
        );
      });
    try {
      // With the secret the server reads and tries to decode the bytes (INVALID_ARGUMENT: not a
      // valid request); without it the call ends at its headers.
      expect((await call(secret))?.code).toBe(Code.INVALID_ARGUMENT);
      const refused = await call(newSecret());
      expect(refused?.code).toBe(Code.UNAUTHENTICATED);
      expect(refused?.details).toContain("missing or wrong capability secret");
    } finally {
      raw.close();
    }
  });

  it("exits within 2 s once the Engine's pipe closes (the Engine stopped or died)", async () => {
    const cap = await launch(newSecret());
    const t0 = Date.now();
    cap.child.stdin?.end();
    const how = await cap.exited;
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(how.code).toBe(0);
    expect(cap.stderr()).toContain("the Engine that launched it is gone");
  });
});

describe("a capability without a launch secret", () => {
  it("refuses to start: it never listens and says how to run it", async () => {
    const port = 40_000 + Math.floor(Math.random() * 20_000);
    const l = spawnFixture({ PORT: String(port) });
    l.child.stdin?.end();
    const how = await l.exited;
    expect(how.code).not.toBe(0);
    expect(l.stderr()).toContain("capability marker has no launch secret, so it refuses to serve");
    expect(l.stderr()).toContain("--insecure-dev");
    expect(l.stderr()).not.toContain("listening on");
  });

  it("launched with the socket but an empty or short secret, it exits without creating the socket", async () => {
    dir = mkdtempSync(join(tmpdir(), "capsdk-launch-"));
    for (const line of ["", "short"]) {
      const socket = join(dir, `cap-${line.length}.sock`);
      const l = spawnFixture({ PALISADE_CAPABILITY_SOCKET: socket });
      l.child.stdin?.end(line === "" ? "" : `${line}\n`);
      expect((await l.exited).code).not.toBe(0);
      expect(l.stderr()).toMatch(line === "" ? /stdin ended before the launch secret/ : /at least 16 are required/);
      expect(existsSync(socket)).toBe(false);
    }
  });
});
