// Capability channels against a real Engine process (packages/engine/dist/main.js) with the
// built-in capabilities and one Selu-convention server: another uid and a process with exactly
// the Agent's sandbox flags and environment cannot use the capability sockets (the marker file a
// call would create stays absent), and `kill -9` of the Engine leaves no capability process
// (nor the commands they run) after 2 s.
import { spawn, spawnSync } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentLaunchSpec } from "@palisade/agent";
import { readToken } from "@palisade/config";
import { createClient } from "@palisade/protocol";
import type { Client } from "@palisade/protocol";
import { ClientService } from "@palisade/protocol/pipeline";
import { startScriptedServer } from "@palisade/testing";
import type { ScriptedServer } from "@palisade/testing";
import { built, fixtures, root } from "./helpers.js";

const main = join(root, "packages/engine/dist/main.js");
const skip = built() ?? (existsSync(main) ? undefined : "run make build first (packages/engine/dist/main.js)");
const RAW_CALL = join(fixtures, "raw-grpc-call.mjs");
const UNAUTHENTICATED = 16;
const BUILTINS = ["files", "shell", "http", "documents", "mail"];

let dir = "";
let runBase = "";
let model: ScriptedServer;
let engine: ChildProcess;
let client: Client<typeof ClientService>;
let stderr = "";

function ppidOf(pid: string): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
  } catch {
    return "";
  }
}

/** Every live process below `pid` (Linux /proc), with its command line. */
function descendants(pid: number): { pid: number; cmd: string }[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const ppid = ppidOf(entry);
    if (ppid === undefined) continue;
    children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  const out: { pid: number; cmd: string }[] = [];
  const walk = (p: number): void => {
    for (const c of children.get(p) ?? []) {
      out.push({ pid: c, cmd: cmdline(c) });
      walk(c);
    }
  };
  walk(pid);
  return out;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ");
  } catch {
    return false;
  }
}

const isAgent = (cmd: string): boolean => cmd.includes("packages/agent/dist/main.js");

/** The capability sockets of the running Engine (its runtime dir is under TMPDIR=runBase). */
function sockets(): string[] {
  const runDirs = readdirSync(runBase).filter((n) => n.startsWith(`palisade-caps-${engine.pid}-`));
  expect(runDirs).toHaveLength(1);
  const runDir = join(runBase, runDirs[0] ?? "");
  return readdirSync(runDir)
    .map((id) => join(runDir, id, "cap.sock"))
    .filter((p) => existsSync(p));
}

/** Attack calls on `targets`: a shell command and a file write that would each create `marker`. */
function attackCalls(targets: string[], marker: string, secrets: (string | undefined)[]): unknown[] {
  return targets.flatMap((target) =>
    secrets.flatMap((secret) => [
      { target, secret, tool: "execute_command", args: { command: `touch ${marker}` } },
      { target, secret, tool: "write_file", args: { path: marker.slice(1), content: "pwned" } },
      { target, secret, tool: "touch", args: { path: marker } },
    ]),
  );
}

interface Outcome {
  target: string;
  tool: string;
  status?: number;
  message?: string;
  error?: string;
}

function parseOutcomes(stdout: string, stderrText: string): Outcome[] {
  const line = stdout.trim().split("\n").at(-1) ?? "";
  try {
    return JSON.parse(line) as Outcome[];
  } catch {
    throw new Error(`the attacking process printed no outcome; stdout:\n${stdout}\nstderr:\n${stderrText}`);
  }
}

beforeAll(async () => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), "pal-capch-"));
  runBase = join(dir, "run");
  mkdirSync(runBase);
  mkdirSync(join(dir, "ws"));
  model = await startScriptedServer({ fallback: { content: "ok" } });
  const selu = join(fixtures, "selu-cap");
  writeFileSync(
    join(dir, "policy.yaml"),
    [
      "version: 1",
      "name: channels",
      "description: Lets the test run a long shell command without an approval.",
      "defaults:",
      "  unknown_tool: allow",
      '  tools: { "*": allow }',
      "rules:",
      "  - id: allow-shell",
      "    description: The test runs a long command.",
      "    tools: [shell__execute_command]",
      "    decision: allow",
    ].join("\n"),
  );
  writeFileSync(
    join(dir, "config.yaml"),
    [
      "model:",
      `  base_url: ${model.baseURL}`,
      "  api_key: sk-test-not-secret",
      "  name: scripted-model",
      "shield:",
      `  policy_file: ${join(dir, "policy.yaml")}`,
      "capabilities:",
      "  - id: legacy",
      `    manifest: ${join(selu, "manifest.yaml")}`,
      `    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(join(selu, "main.mjs"))}]`,
      `workspace: ${join(dir, "ws")}`,
      "history: { auto_title: false }",
      // Every capability running from the start (they would start on their first call).
      "limits: { capability_idle_stop_s: 0 }",
    ].join("\n"),
    { mode: 0o600 }, // it holds model.api_key
  );
  const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: runBase };
  delete env.XDG_RUNTIME_DIR;
  engine = spawn(process.execPath, [main, "--config", join(dir, "config.yaml"), "--data-dir", join(dir, "data")], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  engine.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  const line = await new Promise<string>((resolve, reject) => {
    if (!engine.stdout) return reject(new Error("no stdout"));
    createInterface({ input: engine.stdout }).once("line", resolve);
    engine.once("exit", (code, signal) =>
      reject(new Error(`the Engine ended (${signal ?? String(code)}) before it was ready; its stderr:\n${stderr}`)),
    );
  });
  const bearerToken = await readToken(join(dir, "data"));
  client = createClient(
    ClientService,
    (JSON.parse(line) as { address: string }).address,
    bearerToken ? { bearerToken } : {},
  );
  const status = await client.getStatus({}, { timeoutMs: 20_000 });
  const states = Object.fromEntries(status.capabilities.map((c) => [c.id, c.state]));
  expect(states).toEqual({ ...Object.fromEntries(BUILTINS.map((id) => [id, "ready"])), legacy: "ready" });
}, 90_000);

afterAll(async () => {
  client?.close();
  if (engine && engine.exitCode === null && engine.signalCode === null) engine.kill("SIGKILL");
  await model?.close();
  if (dir && !process.env.KEEP) rmSync(dir, { recursive: true, force: true });
  if (process.env.KEEP) console.log("KEPT", dir);
});

describe.skipIf(skip)("capability channels of a real Engine", () => {
  it("every built-in listens on a unix socket in a 0700 runtime dir; the Selu server's unauthenticated channel is in the log", () => {
    const socks = sockets();
    expect(socks.map((s) => s.split("/").at(-2)).sort()).toEqual([...BUILTINS].sort());
    expect(stderr).toContain(
      "WARNING: capability legacy is a Selu-convention server on loopback TCP without authentication",
    );
    // No built-in listens on TCP: none has PORT in its environment.
    // The servers themselves, not the sandbox's wrappers around them (bubblewrap, the relay init).
    const caps = descendants(engine.pid ?? 0).filter(
      (p) =>
        p.cmd.startsWith(process.execPath) &&
        !p.cmd.includes("sandbox/dist/init.js") &&
        BUILTINS.some((id) => p.cmd.includes(`apps/capabilities/${id}/dist/main.js`)),
    );
    expect(caps).toHaveLength(BUILTINS.length);
    for (const c of caps)
      expect(
        readFileSync(`/proc/${c.pid}/environ`, "utf8")
          .split("\0")
          .some((kv) => kv.startsWith("PORT=")),
      ).toBe(false);
  });

  it("another uid (nobody) cannot connect to any capability socket: no call runs", () => {
    const hasRunuser = spawnSync("runuser", ["--help"]).status === 0;
    expect(hasRunuser, "runuser is needed to act as another user").toBe(true);
    // A script nobody can read, in a directory nobody can enter.
    const scriptDir = mkdtempSync(join(tmpdir(), "pal-capch-nobody-"));
    try {
      chmodSync(scriptDir, 0o755);
      const script = join(scriptDir, "call.mjs");
      copyFileSync(RAW_CALL, script);
      chmodSync(script, 0o644);
      const marker = join(dir, "nobody-marker");
      const calls = attackCalls(sockets(), marker, [undefined, "guessed-secret-guessed-secret"]);
      const res = spawnSync("runuser", ["-u", "nobody", "--", process.execPath, script, JSON.stringify(calls)], {
        encoding: "utf8",
        timeout: 60_000,
      });
      const outcomes = parseOutcomes(res.stdout, res.stderr);
      expect(outcomes).toHaveLength(calls.length);
      for (const o of outcomes) expect(o, JSON.stringify(o)).toMatchObject({ error: "EACCES" });
      expect(existsSync(marker)).toBe(false);
    } finally {
      rmSync(scriptDir, { recursive: true, force: true });
    }
  });

  it("a process with exactly the Agent's sandbox flags and environment cannot use the sockets nor read their secrets", () => {
    const socks = sockets();
    const marker = join(dir, "agent-marker");
    const spec = agentLaunchSpec({
      engineAddress: "unix:/nonexistent/engine.sock",
      model: "scripted-model",
      modelGateway: "/nonexistent/gateway.sock",
    });
    // The Agent's command line without its entry point: the attacker's code runs in its place.
    const flags = spec.args.slice(0, -1);
    expect(flags).toContain("--permission");
    const shellPid = descendants(engine.pid ?? 0).find((p) =>
      p.cmd.includes("apps/capabilities/shell/dist/main.js"),
    )?.pid;
    const calls = attackCalls(socks, marker, [undefined, "guessed-secret-guessed-secret"]);
    const probe = `
      import { readFileSync, readdirSync } from "node:fs";
      const tries = {};
      for (const [name, fn] of Object.entries({
        environ: () => readFileSync("/proc/${shellPid}/environ", "utf8"),
        stdin: () => readFileSync("/proc/${shellPid}/fd/0", "utf8"),
        runDir: () => readdirSync(${JSON.stringify(join(socks[0] ?? "", "..", ".."))}),
      })) {
        try { fn(); tries[name] = "read"; } catch (e) { tries[name] = e.code ?? String(e); }
      }
      process.stderr.write("PROBES " + JSON.stringify(tries) + "\\n");
    `;
    const code = `globalThis.CALLS = ${JSON.stringify(calls)};\n${probe}\n${readFileSync(RAW_CALL, "utf8")}`;
    const res = spawnSync(spec.command, [...flags, "--input-type=module", "-e", code], {
      env: spec.env,
      encoding: "utf8",
      timeout: 60_000,
    });
    const outcomes = parseOutcomes(res.stdout, res.stderr);
    expect(outcomes).toHaveLength(calls.length);
    for (const o of outcomes) expect(o, JSON.stringify(o)).toMatchObject({ status: UNAUTHENTICATED });
    expect(existsSync(marker)).toBe(false);
    const probes = JSON.parse(/PROBES (.*)/.exec(res.stderr)?.[1] ?? "{}") as Record<string, string>;
    expect(probes).toEqual({ environ: "ERR_ACCESS_DENIED", stdin: "ERR_ACCESS_DENIED", runDir: "ERR_ACCESS_DENIED" });
  });

  it("the Selu-convention server listens in its sandbox's own network namespace: another uid cannot reach its PORT", () => {
    const legacy = descendants(engine.pid ?? 0).find(
      (p) => p.cmd.includes("selu-cap/main.mjs") && !p.cmd.includes("guard.js"),
    );
    expect(legacy).toBeDefined();
    const port = readFileSync(`/proc/${legacy?.pid}/environ`, "utf8")
      .split("\0")
      .find((kv) => kv.startsWith("PORT="))
      ?.slice(5);
    const marker = join(dir, "legacy-marker");
    const scriptDir = mkdtempSync(join(tmpdir(), "pal-capch-nobody-"));
    try {
      chmodSync(scriptDir, 0o755);
      const script = join(scriptDir, "call.mjs");
      copyFileSync(RAW_CALL, script);
      chmodSync(script, 0o644);
      const res = spawnSync(
        "runuser",
        [
          "-u",
          "nobody",
          "--",
          process.execPath,
          script,
          JSON.stringify([{ target: `127.0.0.1:${port}`, tool: "touch", args: { path: marker } }]),
        ],
        { encoding: "utf8", timeout: 60_000 },
      );
      // The port is inside the sandbox's network namespace; the Engine reaches it through a relayed unix socket.
      expect(parseOutcomes(res.stdout, res.stderr)[0]?.status).not.toBe(0);
      expect(existsSync(marker)).toBe(false);
    } finally {
      rmSync(scriptDir, { recursive: true, force: true });
    }
  });

  it("kill -9 of the Engine: no capability process, guard, helper or running command remains after 2 s", async () => {
    model.enqueue(
      { toolCalls: [{ name: "load_tools", arguments: { groups: ["shell"] } }] },
      { toolCalls: [{ name: "shell__execute_command", arguments: { command: "sleep 297", timeout_ms: 600_000 } }] },
      { content: "done" },
    );
    const turn = (async () => {
      for await (const _ of client.sendMessage({ content: "run it" }, { timeoutMs: 60_000 })) void _;
    })().catch(() => undefined);
    // Wait for the shell capability's command to run.
    const until = Date.now() + 30_000;
    while (
      !descendants(engine.pid ?? 0).some((p) => p.cmd === "/bin/sh -c sleep 297" || p.cmd === "sleep 297") &&
      Date.now() < until
    )
      await new Promise((r) => setTimeout(r, 50));
    const before = descendants(engine.pid ?? 0).filter((p) => !isAgent(p.cmd));
    expect(
      before.some((p) => p.cmd.endsWith("sleep 297")),
      JSON.stringify(before),
    ).toBe(true);
    expect(
      before.some((p) => p.cmd === "sleep 300"),
      "the Selu server's helper process",
    ).toBe(true);
    expect(before.some((p) => p.cmd.includes("launch/guard.js"))).toBe(true);
    for (const id of BUILTINS)
      expect(
        before.some((p) => p.cmd.includes(`apps/capabilities/${id}/dist/main.js`)),
        id,
      ).toBe(true);

    engine.kill("SIGKILL");
    await new Promise<void>((r) =>
      engine.exitCode !== null || engine.signalCode !== null ? r() : engine.once("exit", () => r()),
    );
    const killedAt = Date.now();
    while (before.some((p) => alive(p.pid)) && Date.now() - killedAt < 2000)
      await new Promise((r) => setTimeout(r, 25));
    const left = before
      .filter((p) => alive(p.pid))
      .map((p) => ({ ...p, stat: readFileSync(`/proc/${p.pid}/stat`, "utf8").slice(0, 60) }));
    for (const p of left) process.kill(p.pid, "SIGKILL");
    expect(left, `still running ${Date.now() - killedAt} ms after kill -9`).toEqual([]);
    await turn;
  }, 60_000);
});
