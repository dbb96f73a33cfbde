// One Engine per data directory: four `palisade run` started at once on one data directory start
// exactly one Engine and all four answer; `engine stop` stops it and no Engine stays running.
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { echoReply, isAlive, startScriptedServer, waitFor } from "@palisade/testing";
import type { ScriptedServer } from "@palisade/testing";
import { processesMentioning } from "./procs.js";

const repo = join(import.meta.dirname, "..", "..", "..");
const palisade = join(repo, "bin", "palisade");
const built = existsSync(join(repo, "apps", "cli", "dist", "main.js"));

function sh(
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(
      palisade,
      args,
      { cwd, env: { PATH: process.env.PATH ?? "", ...env }, timeout: 150_000 },
      (error, out, err) => {
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out, err });
      },
    );
  });
}

const engineMain = join(repo, "packages", "engine", "dist", "main.js");
const engines = (data: string) =>
  processesMentioning(data).filter(
    (p) => p.cmdline.includes("engine start --foreground") || p.cmdline.includes(engineMain),
  );

describe.skipIf(!built)("one Engine per data directory", () => {
  let model: ScriptedServer;
  let root: string;
  let data: string;
  let g: string[];
  let env: Record<string, string>;
  beforeAll(async () => {
    model = await startScriptedServer({ fallback: echoReply, tokenDelayMs: 0 });
    root = mkdtempSync(join(tmpdir(), "plock-"));
    data = join(root, "d");
    mkdirSync(join(root, "w"));
    writeFileSync(
      join(root, "config.yaml"),
      `model:\n  base_url: ${model.baseURL}\n  name: scripted-model\nhistory:\n  auto_title: false\n`,
    );
    g = ["--data-dir", data, "--config", join(root, "config.yaml")];
    env = { HOME: root };
  });
  afterAll(async () => {
    await sh([...g, "engine", "stop"], root, env);
    for (const p of engines(data)) process.kill(p.pid, "SIGKILL");
    await model?.close();
    rmSync(root, { recursive: true, force: true });
  }, 60_000);

  it("four runs at once start one Engine, all answer; engine stop leaves none running", async () => {
    const runs = await Promise.all([1, 2, 3, 4].map((n) => sh([...g, "run", `hello ${n}`], join(root, "w"), env)));
    runs.forEach((r, i) => {
      expect(r.code, r.err).toBe(0);
      expect(r.out).toContain(`You said: hello ${i + 1}`);
    });
    const log = readFileSync(join(data, "engine.log"), "utf8");
    expect(log.split("\n").filter((l) => l.includes("listening on"))).toHaveLength(1);
    expect(engines(data)).toHaveLength(1);
    const stop = await sh([...g, "engine", "stop"], root, env);
    expect(stop.code, stop.err).toBe(0);
    await waitFor(() => engines(data).length === 0, { timeoutMs: 20_000, message: "no Engine process left" }).catch(
      () => undefined,
    );
    expect(engines(data)).toEqual([]);
  }, 180_000);

  it("an Engine killed with SIGKILL leaves no stale lock: the next run starts one", async () => {
    expect((await sh([...g, "run", "first"], join(root, "w"), env)).code).toBe(0);
    const [engine] = engines(data);
    expect(engine).toBeDefined();
    process.kill(engine?.pid ?? 0, "SIGKILL");
    await waitFor(() => !isAlive(engine?.pid ?? 0), { timeoutMs: 10_000, message: "the killed Engine is gone" });
    const again = await sh([...g, "run", "second"], join(root, "w"), env);
    expect(again.code, again.err).toBe(0);
    expect(again.out).toContain("You said: second");
    expect(engines(data)).toHaveLength(1);
  }, 180_000);

  it("palisade-engine (the Engine's own entry point) takes the same lock: started with two runs at once, one Engine", async () => {
    expect((await sh([...g, "engine", "stop"], root, env)).code).toBe(0);
    await waitFor(() => engines(data).length === 0, { timeoutMs: 20_000, message: "no Engine before the start" });
    const direct = [1, 2].map(() => {
      const child = spawn(
        process.execPath,
        [engineMain, "--data-dir", data, "--config", join(root, "config.yaml"), "--workspace", join(root, "w")],
        { env: { PATH: process.env.PATH ?? "", HOME: root }, stdio: ["ignore", "ignore", "pipe"] },
      );
      let err = "";
      child.stderr.on("data", (d: Buffer) => (err += d.toString()));
      return { child, err: () => err, exited: new Promise<number | null>((r) => child.once("exit", r)) };
    });
    const runs = await Promise.all([1, 2].map((n) => sh([...g, "run", `again ${n}`], join(root, "w"), env)));
    runs.forEach((r) => expect(r.code, r.err).toBe(0));
    // the losers exit as soon as they find the lock taken; two Engines serving would stay
    await waitFor(() => engines(data).length <= 1, { timeoutMs: 20_000, message: "one Engine left" }).catch(
      () => undefined,
    );
    expect(engines(data)).toHaveLength(1);
    const stop = await sh([...g, "engine", "stop"], root, env);
    expect(stop.code, stop.err).toBe(0);
    await waitFor(() => engines(data).length === 0, { timeoutMs: 20_000, message: "no Engine process left" });
    const codes = await Promise.all(direct.map((d) => d.exited));
    // each direct one either served (and stopped cleanly, 0) or found the lock taken (75)
    for (const [i, c] of codes.entries()) expect([0, 75], direct[i]?.err()).toContain(c);
  }, 180_000);
});
