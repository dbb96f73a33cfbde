import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isAlive } from "@palisade/testing";
import { CliError } from "../src/cli/errors.js";
import { ENGINE_START_TIMEOUT_MS, connectToEngine } from "../src/engine/connect.js";
import { resolvePaths } from "../src/engine-address.js";

// A stand-in for `palisade engine start --foreground` (PALISADE_CLI_MAIN): logs to engine.log, then
// either hangs (never serves) or exits with an error.
const HANGS = `console.log("loading config"); console.log("spawning the agent"); setTimeout(() => {}, 30000);`;
const FAILS = `console.log("loading config"); console.error("config.yaml: model must be a string"); process.exit(2);`;

describe("auto-starting the Engine", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "pal-start-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function fakeMain(code: string): string {
    const file = join(dir, "fake-main.mjs");
    writeFileSync(file, code);
    return file;
  }

  async function failure(code: string, timeoutMs: number, progress: string[]): Promise<CliError> {
    const paths = resolvePaths({ dataDir: join(dir, "data") });
    const err = await connectToEngine(paths, {
      start: true,
      timeoutMs,
      env: { PALISADE_CLI_MAIN: fakeMain(code) },
      onProgress: (line) => progress.push(line),
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CliError);
    return err as CliError;
  }

  it("waits 60 s by default (start-up takes ~12 s on a loaded machine)", () => {
    expect(ENGINE_START_TIMEOUT_MS).toBe(60_000);
  });

  it("says it is starting the Engine, and on timeout shows the end of engine.log", async () => {
    const progress: string[] = [];
    const err = await failure(HANGS, 1_500, progress);
    expect(progress[0]).toMatch(/^starting the Engine… \(pid \d+, log .*engine\.log\)$/);
    const pid = Number(/pid (\d+)/.exec(progress[0] ?? "")?.[1]);
    expect(err.message).toBe(`the Engine did not become ready within 2 s; stopped it (pid ${pid})`);
    expect(err.hint).toContain("engine.log:\nloading config\nspawning the agent");
    // Nobody would use it: it does not outlive the command that started it.
    expect(isAlive(pid)).toBe(false);
  });

  it("cancelled while it starts (Ctrl+C on the first screen), the Engine it spawned is stopped", async () => {
    const progress: string[] = [];
    const abort = new AbortController();
    const paths = resolvePaths({ dataDir: join(dir, "data") });
    const pending = connectToEngine(paths, {
      start: true,
      timeoutMs: 30_000,
      env: { PALISADE_CLI_MAIN: fakeMain(HANGS) },
      onProgress: (l) => progress.push(l),
      signal: abort.signal,
    });
    await new Promise((r) => setTimeout(r, 500));
    const pid = Number(/pid (\d+)/.exec(progress[0] ?? "")?.[1]);
    expect(isAlive(pid)).toBe(true);
    abort.abort();
    await expect(pending).rejects.toThrow(`cancelled while waiting for the Engine to start; stopped it (pid ${pid})`);
    expect(isAlive(pid)).toBe(false);
  });

  it("an Engine that exits during start-up is reported with the end of engine.log", async () => {
    const progress: string[] = [];
    const err = await failure(FAILS, 10_000, progress);
    expect(progress).toHaveLength(1);
    expect(err.message).toBe("the Engine exited during start-up (code 2)");
    expect(err.hint).toContain("config.yaml: model must be a string");
  });
});
