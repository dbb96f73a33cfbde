import { spawn, spawnSync } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { agentLaunchSpec, agentPackageDir } from "@palisade/agent";
import { agentMain } from "@palisade/agent/launch";
import { freshBundleEntry } from "@palisade/agent/bundle";
import type { LaunchSpec } from "@palisade/agent";
import { makeTempDir, reply, startScriptedServer, waitFor } from "@palisade/testing";
import type { ScriptedServer, TempDir } from "@palisade/testing";
import { FakeEngine } from "./fake-engine.js";

const MAIN = join(agentPackageDir(), "dist", "main.js");

/** The Agent's bundle, made as `make build` makes it when it is missing or older than the code. */
function agentBundle(): string {
  const pkg = realpathSync(agentPackageDir());
  const fresh = (): string | undefined => freshBundleEntry(join(pkg, "dist", "bundle"), join(pkg, "..", ".."));
  const ready = fresh();
  if (ready) return ready;
  const res = spawnSync(process.execPath, [join(pkg, "..", "..", "scripts", "bundle.mjs"), "agent"], {
    encoding: "utf8",
  });
  const made = fresh();
  if (res.status !== 0 || !made)
    throw new Error(`scripts/bundle.mjs agent failed (${String(res.status ?? res.signal)}): ${res.stderr}`);
  return made;
}

interface Child {
  proc: ChildProcess;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Starts the Agent as the Engine does: the spawn token as the first line of its stdin, held open. */
function run(spec: Pick<LaunchSpec, "command" | "args" | "env">, token?: string): Child {
  const proc = spawn(spec.command, spec.args, {
    env: spec.env,
    stdio: [token === undefined ? "ignore" : "pipe", "ignore", "pipe"],
  });
  if (token !== undefined) proc.stdin?.write(`${token}\n`);
  let err = "";
  proc.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));
  return { proc, stderr: () => err, exited };
}

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.reverse()) await fn();
  cleanup = [];
});

/**
 * A unix socket whose bytes are relayed to the scripted model's TCP port: where the Engine's model
 * gateway would listen. (The gateway itself is tested with the Engine; here the Agent's side is.)
 */
async function socketRelay(path: string, port: number): Promise<() => Promise<void>> {
  const server = createServer((c) => {
    const up = createConnection({ host: "127.0.0.1", port });
    c.pipe(up).pipe(c);
    c.on("error", () => up.destroy());
    up.on("error", () => c.destroy());
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return () => new Promise<void>((resolve) => server.close(() => resolve()));
}

async function fixtures(): Promise<{ dir: TempDir; model: ScriptedServer; engine: FakeEngine; gateway: string }> {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`make build\` (or npx tsc -b) before these tests`);
  const dir = await makeTempDir("palisade-agent-sbx-");
  const model = await startScriptedServer({ fallback: reply.text("hello from a sandboxed agent") });
  const engine = await new FakeEngine({}).start(join(dir.path, "engine.sock"));
  const gateway = join(dir.path, "gateway.sock");
  const closeRelay = await socketRelay(gateway, model.port);
  cleanup.push(
    () => dir.remove(),
    () => model.close(),
    () => engine.close(),
    closeRelay,
  );
  return { dir, model, engine, gateway };
}

function spawnAgent(engine: FakeEngine, gateway: string, sandbox: boolean, main?: string): Child {
  const spec = agentLaunchSpec({
    engineAddress: engine.address,
    agentId: "atlas",
    model: "scripted-model",
    modelGateway: gateway,
    sandbox,
    ...(main ? { main } : {}),
  });
  const child = run(spec, "tok-1");
  cleanup.unshift(async () => {
    if (child.proc.exitCode === null) child.proc.kill("SIGKILL");
    await child.exited;
  });
  return child;
}

describe("the compiled Agent as a real child process", () => {
  // The compiled modules, and the one-file bundle `make build` makes (what the Engine runs while it is fresh).
  it.each([
    ["the compiled modules", () => MAIN],
    ["the bundle", agentBundle],
  ])(
    "under the permission model cannot write, spawn, read outside its code or start workers, and still answers (%s)",
    async (_what, entry) => {
      const main = entry();
      const { engine, model, gateway } = await fixtures();
      const child = spawnAgent(engine, gateway, true, main);
      const ready = await engine.connected(10_000).catch((e: unknown) => {
        throw new Error(`agent did not connect; stderr:\n${child.stderr()}`, { cause: e });
      });
      expect(ready.event.case).toBe("ready");
      if (ready.event.case !== "ready") return;
      expect(ready.event.value).toMatchObject({ agentId: "atlas", token: "", pid: child.proc.pid });
      expect(engine.credentials).toEqual(["Bearer tok-1"]);
      expect(ready.event.value.sandbox).toMatchObject({
        canWriteFile: false,
        canSpawnProcess: false,
        canReadOutside: false,
        canStartWorker: false,
        permissionModel: true,
      });
      expect(ready.event.value.sandbox?.detail).toContain("write:ERR_ACCESS_DENIED");

      const out = await engine.turn({ sessionId: "s", messageId: "m", content: "hi" });
      expect(out.complete?.content).toBe("hello from a sandboxed agent");
      // The call went over the gateway socket, with the spawn token as its only credential.
      expect(model.requests.at(-1)?.headers.authorization).toBe("Bearer tok-1");
      expect(model.requests.at(-1)?.headers["x-palisade-session"]).toBe("s");

      engine.send({ directive: { case: "shutdown", value: { reason: "test over" } } });
      expect(await child.exited).toBe(0);
    },
  );

  it("without the sandbox the same probes succeed, so the report is real", async () => {
    const { engine, gateway } = await fixtures();
    const child = spawnAgent(engine, gateway, false);
    const ready = await engine.connected(10_000);
    if (ready.event.case !== "ready") throw new Error("expected AgentReady");
    expect(ready.event.value.sandbox).toMatchObject({
      canWriteFile: true,
      canSpawnProcess: true,
      canStartWorker: true,
      permissionModel: false,
    });
    engine.send({ directive: { case: "shutdown", value: {} } });
    expect(await child.exited).toBe(0);
  });

  it("refuses to start without its settings and lists each missing one", async () => {
    if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`make build\` first`);
    const child = run({ command: process.execPath, args: [MAIN], env: { PALISADE_CONTEXT_WINDOW: "tiny" } });
    expect(await child.exited).toBe(2);
    const err = child.stderr();
    for (const name of [
      "PALISADE_ENGINE_ADDRESS",
      "no spawn token",
      "PALISADE_MODEL",
      "PALISADE_MODEL_GATEWAY",
      "PALISADE_CONTEXT_WINDOW",
    ])
      expect(err).toContain(name);
  });

  it("keeps its spawn token out of /proc/<pid>/environ and cmdline, and exits within 2 s when the Engine's pipe on stdin closes", async () => {
    const { engine, gateway } = await fixtures();
    const child = spawnAgent(engine, gateway, true);
    await engine.connected(10_000);
    const pid = child.proc.pid ?? -1;
    for (const file of ["environ", "cmdline"])
      expect(readFileSync(`/proc/${String(pid)}/${file}`, "latin1")).not.toContain("tok-1");
    // What the kernel does when the Engine dies by any signal: its end of the pipe closes.
    const closedAt = Date.now();
    child.proc.stdin?.end();
    expect(await child.exited).toBe(1);
    expect(Date.now() - closedAt).toBeLessThan(2000);
    expect(child.stderr()).toContain("the Engine is gone");
  });

  it("exits when the Engine goes away", async () => {
    const { engine, gateway } = await fixtures();
    const child = spawnAgent(engine, gateway, true);
    await engine.connected(10_000);
    await engine.close();
    expect(await child.exited).toBe(1);
    await waitFor(() => child.stderr().includes("closed the stream") || child.stderr().includes("lost the Engine"));
  });
});

const base = { engineAddress: "unix:/run/e.sock", model: "m", modelGateway: "/run/g.sock", contextWindow: 32000 };

describe("agentLaunchSpec", () => {
  it("passes only the Agent's settings in the environment: no model key, no model endpoint", () => {
    const spec = agentLaunchSpec({ ...base, agentId: "atlas" });
    expect(spec.env).toEqual({
      PALISADE_ENGINE_ADDRESS: "unix:/run/e.sock",
      PALISADE_AGENT_ID: "atlas",
      PALISADE_MODEL: "m",
      PALISADE_MODEL_GATEWAY: "/run/g.sock",
      PALISADE_CONTEXT_WINDOW: "32000",
    });
    expect(spec.command).toBe(process.execPath);
    expect(spec.args.at(-1)).toBe(agentMain());
  });

  it("passes the Engine's session idle window when it is given", () => {
    expect(agentLaunchSpec({ ...base, historyIdleMs: 900_000 }).env.PALISADE_HISTORY_IDLE_MS).toBe("900000");
    expect(agentLaunchSpec(base).env).not.toHaveProperty("PALISADE_HISTORY_IDLE_MS");
  });

  it("allows reads of its package and the packages it imports, by the paths Node resolves and their real paths, and nothing else", () => {
    const spec = agentLaunchSpec(base);
    const rootModules = join(agentPackageDir(), "..", "..", "node_modules");
    const protocolReal = realpathSync(join(rootModules, "@palisade", "protocol"));
    expect(spec.readPaths).toContain(realpathSync(agentPackageDir()));
    expect(spec.readPaths).toContain(protocolReal);
    expect(spec.readPaths).toContain(join(realpathSync(rootModules), "openai"));
    // No whole node_modules: it holds links to every workspace package, and Node checks the path as written.
    expect(spec.readPaths.some((p) => p.endsWith("node_modules"))).toBe(false);
    expect(spec.readPaths.some((p) => p.includes("/packages/engine") || p.includes("@palisade/engine"))).toBe(false);
    expect(spec.readPaths.some((p) => p.endsWith("/packages/testing"))).toBe(false);
  });

  it("uses Node's --permission with one --allow-fs-read per directory and no other grants", () => {
    const spec = agentLaunchSpec(base);
    expect(spec.args[0]).toBe("--permission");
    expect(spec.args).toContain(`--allow-fs-read=${realpathSync(agentPackageDir())}`);
    expect(
      spec.args.some(
        (a) =>
          a.startsWith("--allow-child-process") ||
          a.startsWith("--allow-fs-write") ||
          a.startsWith("--allow-worker") ||
          a.startsWith("--allow-addons"),
      ),
    ).toBe(false);
    expect(agentLaunchSpec({ ...base, sandbox: false }).args).toHaveLength(1);
  });
});

describe("what the Agent's permission flags let a process read, on the Node in use", () => {
  const probe = (spec: LaunchSpec, files: string[]): Record<string, string> => {
    const code = `const fs=require("node:fs");const out={};for(const f of ${JSON.stringify(files)}){try{fs.readFileSync(f);out[f]="read"}catch(e){out[f]=e.code}}process.stdout.write(JSON.stringify(out))`;
    const flags = spec.args.slice(0, -1);
    const res = spawnSync(spec.command, [...flags, "-e", code], { env: {}, encoding: "utf8" });
    if (res.status !== 0) throw new Error(`probe failed (${String(res.status ?? res.signal)}): ${res.stderr}`);
    return JSON.parse(res.stdout) as Record<string, string>;
  };

  it("cannot read the Engine's source, directly or through node_modules/@palisade links, but can read its own code", () => {
    const rootModules = join(agentPackageDir(), "..", "..", "node_modules");
    const engineReal = realpathSync(join(rootModules, "@palisade", "engine"));
    const targets = [
      join(engineReal, "src", "engine.ts"),
      join(rootModules, "@palisade", "engine", "src", "engine.ts"),
      join(rootModules, "@palisade", "store", "package.json"),
      join(realpathSync(agentPackageDir()), "dist", "main.js"),
      join(rootModules, "@palisade", "protocol", "package.json"),
    ];
    for (const t of targets.slice(0, 3)) expect(existsSync(t), t).toBe(true);
    const result = probe(agentLaunchSpec(base), targets);
    expect(result).toEqual({
      [targets[0]!]: "ERR_ACCESS_DENIED",
      [targets[1]!]: "ERR_ACCESS_DENIED",
      [targets[2]!]: "ERR_ACCESS_DENIED",
      [targets[3]!]: "read",
      [targets[4]!]: "read",
    });
  });
});
