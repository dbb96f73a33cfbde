// The setup screen (`palisade chat` without a model) starts an Engine to ask it; quitting the
// screen must not leave that Engine (or its Agent) running. Checked in /proc.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import type { PassThrough } from "node:stream";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINE_START_TIMEOUT_MS } from "../src/engine/spawn.js";
import { captureIo } from "./helpers.js";
import { processesMentioning } from "./procs.js";

const repo = join(import.meta.dirname, "..", "..", "..");
const built = existsSync(join(repo, "apps", "cli", "dist", "main.js"));

describe.skipIf(!built || !existsSync("/proc/self/cmdline"))("the setup screen's Engine", () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "psetup-"));
    mkdirSync(join(root, "w"));
  });
  afterAll(() => {
    for (const p of processesMentioning(root)) process.kill(p.pid, "SIGKILL");
    rmSync(root, { recursive: true, force: true });
  });

  it("is stopped when the user quits the screen without configuring a model", async () => {
    // The screen renders in this process. ink draws only the last frame when it believes it runs
    // in CI (is-in-ci reads CI when ink loads, and `make test` runs with CI=1): the screen must be
    // drawn as in a terminal, so CI is cleared before the CLI (and ink) is loaded.
    delete process.env.CI;
    const { runCli } = await import("../src/cli/run-cli.js");
    const data = join(root, "d");
    // No key, no base URL, no config file: no model.
    const io = captureIo(
      { HOME: root, PALISADE_CLI_MAIN: join(repo, "apps", "cli", "dist", "main.js") },
      join(root, "w"),
    );
    Object.assign(io.stdin, { isTTY: true, setRawMode: () => io.stdin, ref: () => io.stdin, unref: () => io.stdin });
    Object.assign(io.stdout, { isTTY: true, columns: 100, rows: 40 });
    const chat = runCli(["chat", "--data-dir", data, "--config", join(root, "none.yaml")], io);
    // As long as the CLI itself waits for a starting Engine (a loaded machine can take that long).
    const end = Date.now() + ENGINE_START_TIMEOUT_MS;
    while (!io.out().includes("no model configured") && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
    expect(io.out(), io.err()).toContain("no model configured");
    // The screen asked a real Engine, started for it.
    const pid = Number(/starting the Engine… \(pid (\d+)/.exec(io.err())?.[1]);
    expect(pid).toBeGreaterThan(0);
    (io.stdin as PassThrough).write("q");
    expect(await chat).toBe(0);
    expect(existsSync(`/proc/${pid}/cmdline`)).toBe(false);
    expect(processesMentioning(data)).toEqual([]);
    expect(existsSync(join(data, "engine.json"))).toBe(false);
  }, 120_000);
});
