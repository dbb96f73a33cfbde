// What a new user meets first: bin/palisade without an alias (its hints work as printed),
// `sessions` starting the Engine like `chat` and `run`, and a workspace that does not exist.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { echoReply, startScriptedServer } from "@palisade/testing";
import type { ScriptedServer } from "@palisade/testing";
import { runCli } from "../src/cli/run-cli.js";
import { captureIo } from "./helpers.js";

const repo = join(import.meta.dirname, "..", "..", "..");
const palisade = join(repo, "bin", "palisade");
const built = existsSync(join(repo, "apps", "cli", "dist", "main.js"));

function sh(
  cmd: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(
      "bash",
      ["-c", cmd],
      { cwd, env: { PATH: process.env.PATH ?? "", ...env }, timeout: 120_000 },
      (error, out, err) => {
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out, err });
      },
    );
  });
}

describe.skipIf(!built)("a new user's first commands", () => {
  let model: ScriptedServer;
  let root: string;
  let data: string;
  let config: string;
  beforeAll(async () => {
    model = await startScriptedServer({ fallback: echoReply, tokenDelayMs: 0 });
    root = mkdtempSync(join(tmpdir(), "pnew-"));
    data = join(root, "d");
    config = join(root, "config.yaml");
    mkdirSync(join(root, "w"));
    writeFileSync(config, `model:\n  base_url: ${model.baseURL}\n  name: scripted-model\n`);
  });
  afterAll(async () => {
    await sh(`${palisade} --data-dir ${data} engine stop`, root, { HOME: root });
    await model?.close();
    rmSync(root, { recursive: true, force: true });
  }, 60_000);

  it("bin/palisade runs without an alias and its hints name it as it was typed, with the --data-dir given", async () => {
    const byPath = await sh(`${palisade} --data-dir ${data} engine status`, root, { HOME: root });
    expect(byPath.code).toBe(3);
    expect(byPath.out).toContain(`'${palisade} --data-dir ${data} engine start'`);
    const relative = await sh(`../../bin/palisade engine status --data-dir ${data}`, join(repo, "apps", "cli"), {
      HOME: root,
    });
    expect(relative.out).toContain(`'../../bin/palisade --data-dir ${data} engine start'`);
    const onPath = await sh(`palisade engine status --data-dir ${data}`, root, {
      HOME: root,
      PATH: `${join(repo, "bin")}:${process.env.PATH ?? ""}`,
    });
    expect(onPath.out).toContain(`'palisade --data-dir ${data} engine start'`);
  });

  it("sessions list starts the Engine when none runs, like chat and run", async () => {
    const r = await sh(`${palisade} sessions list --data-dir ${data} --config ${config}`, join(root, "w"), {
      HOME: root,
    });
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain("starting the Engine");
    expect(r.out).toContain(
      `No stored sessions yet. Start one with '${palisade} --data-dir ${data} --config ${config} chat'.`,
    );
    expect(existsSync(join(data, "engine.json"))).toBe(true);
    // engine.log is read after the fact: its lines say when.
    const log = readFileSync(join(data, "engine.log"), "utf8").split("\n");
    expect(log.find((l) => l.includes("listening on"))).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z listening on /,
    );
  }, 120_000);

  it("an invalid config shows its path-precise problems in run and in chat, not 'no model configured'", async () => {
    const bad = join(root, "bad.yaml");
    writeFileSync(bad, "model:\n  base_url: ftp://x\nshield:\n  polcy: strict\n");
    const other = join(root, "d2");
    const r = await sh(`${palisade} --data-dir ${other} --config ${bad} run "hello"`, root, { HOME: root });
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${bad}: model.base_url: must start with http:// or https://`);
    expect(r.err).toContain(`${bad}: shield.polcy: unknown key`);
    const io = captureIo({ HOME: root }, root);
    Object.assign(io.stdin, { isTTY: true });
    Object.assign(io.stdout, { isTTY: true });
    expect(await runCli(["chat", "--data-dir", other, "--config", bad], io)).toBe(1);
    expect(io.err()).toContain(`${bad}: model.base_url: must start with http:// or https://`);
    expect(io.err()).not.toContain("no model");
    expect(existsSync(join(other, "engine.json"))).toBe(false);
  });

  it("an invalid config is refused by run, chat and engine start before any Engine process starts", async () => {
    const bad = join(root, "bad-early.yaml");
    writeFileSync(bad, "model:\n  base_url: ftp://x\n");
    const other = join(root, "d3");
    const problem = `${bad}: model.base_url: must start with http:// or https://`;
    const started = (): string[] =>
      ["engine.log", "engine.lock", "engine.json"].filter((f) => existsSync(join(other, f)));
    for (const words of ["run hello", "engine start"]) {
      const r = await sh(`${palisade} --data-dir ${other} --config ${bad} ${words}`, root, { HOME: root });
      expect(r.code, words).toBe(1);
      expect(r.err, words).toContain(problem);
      expect(r.err, words).not.toContain("starting the Engine");
      expect(started(), words).toEqual([]);
    }
    const io = captureIo({ HOME: root }, root);
    Object.assign(io.stdin, { isTTY: true });
    Object.assign(io.stdout, { isTTY: true });
    expect(await runCli(["chat", "--data-dir", other, "--config", bad], io)).toBe(1);
    expect(io.err()).toContain(problem);
    expect(io.err()).not.toContain("starting the Engine");
    expect(started()).toEqual([]);
  });

  it("a workspace that does not exist is refused before anything runs", async () => {
    const missing = join(root, "no-such-ws");
    const r = await sh(`${palisade} --data-dir ${data} --config ${config} run --workspace ${missing} "hello"`, root, {
      HOME: root,
    });
    expect(r.code).toBe(1);
    expect(r.err).toContain(`the workspace ${missing} does not exist or is not a directory`);
    expect(model.requests.filter((q) => q.path.endsWith("/chat/completions"))).toHaveLength(0);
  });
});
