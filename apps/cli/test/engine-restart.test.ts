// The Engine's lifecycle as a user meets it: a client whose environment or config differs from
// what the running Engine started with says so (old → new, never a key) and names
// `palisade engine restart`; the restart keeps sessions, saves a turn in flight and uses the new
// setup; an invalid config leaves the running Engine alone. Real processes through bin/palisade.
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAlive, messageText, startScriptedServer } from "@palisade/testing";
import type { ScriptedServer } from "@palisade/testing";

const repo = join(import.meta.dirname, "..", "..", "..");
const palisade = join(repo, "bin", "palisade");
const built = existsSync(join(repo, "apps", "cli", "dist", "main.js"));
const KEY_ONE = "sk-first-key-11111111";
const KEY_TWO = "sk-second-key-22222222";

type Result = { code: number; out: string; err: string };
function sh(cmd: string, cwd: string, env: Record<string, string>): Promise<Result> {
  return new Promise((resolve) => {
    execFile(
      "bash",
      ["-c", cmd],
      { cwd, env: { PATH: process.env.PATH ?? "", ...env }, timeout: 150_000 },
      (error, out, err) => {
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out, err });
      },
    );
  });
}

describe.skipIf(!built)("palisade engine restart and a changed setup", () => {
  let model: ScriptedServer;
  let root: string;
  let data: string;
  let config: string;
  let p: string;
  const env = (model: string, key: string): Record<string, string> => ({
    HOME: root,
    PALISADE_MODEL: model,
    OPENAI_API_KEY: key,
  });
  const enginePid = (): number => (JSON.parse(readFileSync(join(data, "engine.json"), "utf8")) as { pid: number }).pid;

  beforeAll(async () => {
    // Every answer names the model it was asked for; "slow" answers take a while.
    model = await startScriptedServer({
      fallback: (req) => {
        const last = [...req.messages].reverse().find((m) => m.role === "user");
        return messageText(last).includes("slow")
          ? { content: `slow answer from ${req.model}: ${"word ".repeat(400)}`, tokenDelayMs: 50 }
          : { content: `answer from model=${req.model}`, tokenDelayMs: 0 };
      },
    });
    root = mkdtempSync(join(tmpdir(), "prestart-"));
    data = join(root, "d");
    config = join(root, "config.yaml");
    mkdirSync(join(root, "w"));
    writeFileSync(config, `model:\n  base_url: ${model.baseURL}\n`);
    p = `${palisade} --data-dir ${data} --config ${config}`;
    const started = await sh(`${p} engine start`, join(root, "w"), env("model-one", KEY_ONE));
    expect(started.code, started.err).toBe(0);
  }, 150_000);

  afterAll(async () => {
    await sh(`${palisade} --data-dir ${data} engine stop`, root, { HOME: root });
    await model?.close();
    rmSync(root, { recursive: true, force: true });
  }, 60_000);

  it("the same setup says nothing; another model and key in the environment are named (old → new) with the restart command", async () => {
    const same = await sh(`${p} run "hello"`, join(root, "w"), env("model-one", KEY_ONE));
    expect(same.code, same.err).toBe(0);
    expect(same.err).not.toContain("different setup");
    expect(same.out).toContain("answer from model=model-one");

    const other = await sh(`${p} run "hello again"`, join(root, "w"), env("model-two", KEY_TWO));
    expect(other.code, other.err).toBe(0);
    expect(other.err).toContain("The running Engine started with a different setup than this one:");
    expect(other.err).toContain("  model: model-one → model-two");
    expect(other.err).toContain("  API key: a key → a different key");
    expect(other.err).toContain(`${p} engine restart`);
    for (const key of [KEY_ONE, KEY_TWO]) expect(other.err + other.out).not.toContain(key);
    // Until the restart, the running Engine's model answers.
    expect(other.out).toContain("answer from model=model-one");
    for (const key of [KEY_ONE, KEY_TWO]) expect(readFileSync(join(data, "engine.json"), "utf8")).not.toContain(key);

    // `engine start` with one already running says the same instead of starting another.
    const start = await sh(`${p} engine start`, join(root, "w"), env("model-two", KEY_TWO));
    expect(start.out).toContain("The Engine is already running");
    expect(start.err).toContain("  model: model-one → model-two");

    const sessions = await sh(`${p} sessions list`, join(root, "w"), { HOME: root, PALISADE_MODEL: "model-two" });
    expect(sessions.err).toContain("  model: model-one → model-two");
    expect(sessions.err).toContain("  API key: a key → (none)");
  }, 150_000);

  it("an invalid config is refused before the running Engine is stopped", async () => {
    const pid = enginePid();
    writeFileSync(config, `model:\n  base_url: ${model.baseURL}\n  contxt_window: 8000\n`);
    try {
      const r = await sh(`${p} engine restart`, join(root, "w"), env("model-two", KEY_TWO));
      expect(r.code).toBe(1);
      expect(r.err).toContain(`${config}: model.contxt_window: unknown key`);
      expect(r.err).toContain("left as it is");
      expect(isAlive(pid)).toBe(true);
      expect(enginePid()).toBe(pid);
      // A client sees the edit and the problems, path-precise.
      const status = await sh(`${p} sessions list`, join(root, "w"), env("model-one", KEY_ONE));
      expect(status.err).toMatch(/config file content: sha256 [0-9a-f]{12} → sha256 [0-9a-f]{12}/);
      expect(status.err).toContain(`${config}: model.contxt_window: unknown key`);
    } finally {
      writeFileSync(config, `model:\n  base_url: ${model.baseURL}\n`);
    }
  }, 150_000);

  it("a policy the Engine would refuse is refused before the running Engine is stopped", async () => {
    const pid = enginePid();
    const policy = join(root, "broken-policy.yaml");
    writeFileSync(policy, "rules:\n  - id: [not, a, string\n");
    writeFileSync(config, `model:\n  base_url: ${model.baseURL}\nshield:\n  policy_file: ${policy}\n`);
    try {
      const r = await sh(`${p} engine restart`, join(root, "w"), env("model-one", KEY_ONE));
      expect(r.code).toBe(1);
      expect(r.err).toContain(policy);
      expect(r.err).toContain("left as it is");
      expect(isAlive(pid)).toBe(true);
      expect(enginePid()).toBe(pid);
    } finally {
      writeFileSync(config, `model:\n  base_url: ${model.baseURL}\n`);
    }
  }, 150_000);

  it("restart saves a turn in flight, keeps the sessions, and the new Engine uses the new model", async () => {
    const oldPid = enginePid();
    const before = await sh(`${p} sessions list --json`, join(root, "w"), env("model-one", KEY_ONE));
    const countBefore = (JSON.parse(before.out) as { sessions: unknown[] }).sessions.length;
    expect(countBefore).toBeGreaterThanOrEqual(2);

    // A slow turn streams while the Engine restarts.
    let slowErr = "";
    const slow = spawn("bash", ["-c", `${p} run "a slow one please"`], {
      cwd: join(root, "w"),
      env: { PATH: process.env.PATH ?? "", ...env("model-one", KEY_ONE) },
    });
    slow.stderr.on("data", (d: Buffer) => (slowErr += d.toString()));
    let slowOut = "";
    slow.stdout.on("data", (d: Buffer) => (slowOut += d.toString()));
    const slowDone = new Promise<void>((r) => slow.once("exit", () => r()));
    const end = Date.now() + 60_000;
    while (!slowOut.includes("slow answer from model-one") && Date.now() < end)
      await new Promise((r) => setTimeout(r, 100));
    expect(slowOut).toContain("slow answer from model-one");

    const r = await sh(`${p} engine restart --deadline 1`, join(root, "w"), env("model-two", KEY_TWO));
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(`Engine stopped (pid ${oldPid}); its sessions are kept.`);
    expect(r.out).toMatch(/Engine started: pid \d+, .*model model-two at http/);
    await slowDone;
    expect(isAlive(oldPid)).toBe(false);
    expect(enginePid()).not.toBe(oldPid);
    const sessionId = /\(session (ses_[\w-]+)/.exec(slowErr)?.[1] ?? /session (ses_[\w-]+)/.exec(slowErr)?.[1];
    expect(sessionId, slowErr).toBeTruthy();

    // Nothing lost: every session is there, the cut turn with its question and what was streamed.
    const after = await sh(`${p} sessions list --json`, join(root, "w"), env("model-two", KEY_TWO));
    expect(after.err).not.toContain("different setup");
    expect((JSON.parse(after.out) as { sessions: unknown[] }).sessions.length).toBe(countBefore + 1);
    const shown = await sh(`${p} sessions show ${sessionId ?? ""}`, join(root, "w"), env("model-two", KEY_TWO));
    expect(shown.out).toContain("a slow one please");
    expect(shown.out).toContain("slow answer from model-one");

    const now = await sh(`${p} run "which model now"`, join(root, "w"), env("model-two", KEY_TWO));
    expect(now.code, now.err).toBe(0);
    expect(now.err).not.toContain("different setup");
    expect(now.out).toContain("answer from model=model-two");
  }, 200_000);
  it("engine status shows the config file (and whether it changed) and the Agent's sandbox as the Engine checked it", async () => {
    const status = await sh(`${p} engine status`, join(root, "w"), env("model-two", KEY_TWO));
    expect(status.code, status.err).toBe(0);
    expect(status.out).toContain(`Config    ${config} · unchanged since the Engine started`);
    expect(status.out).toContain("  network      none (a network namespace of its own, seen in /proc; no interface)");
    expect(status.out).toContain(
      "  permissions  Node permission model on: no file writes, no child processes, no workers, no native addons",
    );
    expect(status.out).toMatch(
      / {2}filesystem {3}reads only its code \(\d+ paths; --json lists them\), writes nothing:\n {17}\/\S+\/packages\/agent\n/,
    );
    expect(status.out).toMatch(
      / {2}process {6}bubblewrap [\d.]+, an empty root .*; seen from outside: host pid \d+, uid \d+, own net\/pid\/user\/mnt\/ipc\/uts namespaces/,
    );
    expect(status.out).not.toContain("different setup");

    const json = JSON.parse(
      (await sh(`${p} engine status --json`, join(root, "w"), env("model-two", KEY_TWO))).out,
    ) as {
      configFile: string;
      configChanged: boolean;
      setupChanges: unknown[];
      agentConfinement: { network: string; permissionModel: boolean; fsRead: string[]; fsWrite: string[] };
    };
    expect(json).toMatchObject({ configFile: config, configChanged: false, setupChanges: [] });
    expect(json.agentConfinement.permissionModel).toBe(true);
    expect(json.agentConfinement.fsWrite).toEqual([]);
    expect(json.agentConfinement.fsRead.some((f) => f.endsWith("/packages/agent"))).toBe(true);
    // The Engine's own code is not in the Agent's view.
    expect(json.agentConfinement.fsRead.some((f) => f.endsWith("/packages/engine"))).toBe(false);

    writeFileSync(config, `model:\n  base_url: ${model.baseURL}\n  name: model-three\n`);
    try {
      const changed = await sh(`${p} engine status`, join(root, "w"), env("model-two", KEY_TWO));
      expect(changed.out).toContain(
        `Config    ${config} · CHANGED since the Engine started (it keeps what it read then)`,
      );
      // PALISADE_MODEL still wins over the file's name: only the content differs.
      expect(changed.out).toMatch(/\n {2}config file content: sha256 [0-9a-f]{12} → sha256 [0-9a-f]{12}\n/);
      expect(changed.out).not.toContain("  model:");
      expect(changed.out).toContain(`${p} engine restart`);
    } finally {
      writeFileSync(config, `model:\n  base_url: ${model.baseURL}\n`);
    }
  }, 120_000);
});
