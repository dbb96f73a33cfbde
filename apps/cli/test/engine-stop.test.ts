// `engine stop` stops an Engine that is up but cannot answer GetStatus (a damaged database):
// it asks for Shutdown directly, instead of advising to run `engine stop`.
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeEngineInfo } from "@palisade/config/discovery";
import { isAlive, waitFor } from "@palisade/testing";
import { runCli } from "../src/cli/run-cli.js";
import { startFakeEngine } from "./fake/fake-engine.js";
import type { RunningFakeEngine } from "./fake/fake-engine.js";
import { captureIo } from "./helpers.js";

describe("engine stop of an Engine that cannot answer GetStatus", () => {
  let dir: string;
  let fake: RunningFakeEngine;
  let holder: ChildProcess;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "palisade-stop-"));
    // engine.json needs a live pid that is not ours (engine stop waits for it to exit)
    holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
    fake = await startFakeEngine(`unix:${join(dir, "engine.sock")}`, {
      statusError: "database disk image is malformed",
      onShutdown: () => holder.kill(),
    });
    await writeEngineInfo(dir, {
      pid: holder.pid ?? 0,
      address: fake.address,
      startedAt: new Date().toISOString(),
      version: "fake",
    });
  });
  afterEach(async () => {
    holder.kill();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("stops it, and its advice is not to run engine stop", async () => {
    const io = captureIo({}, dir);
    const code = await runCli(["--data-dir", dir, "engine", "stop"], io);
    expect(io.err()).not.toContain("engine stop");
    expect(code, io.err()).toBe(0);
    expect(io.out()).toContain(`Engine stopped (pid ${holder.pid ?? 0})`);
    await waitFor(() => !isAlive(holder.pid ?? 0), { timeoutMs: 5000, message: "the Engine process is gone" });
  });
});
