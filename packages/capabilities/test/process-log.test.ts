import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CapabilityProcess } from "../src/launch/process.js";

// The deadline bounds a wait for what never comes; a loaded machine is slow, not wrong.
async function waitUntil(check: () => boolean, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("a capability's log", () => {
  it("keeps output that arrives after the process exited (a child still holding its stdout) instead of writing after its end", async () => {
    const dir = mkdtempSync(join(tmpdir(), "palisade-proclog-"));
    const logFile = join(dir, "cap.log");
    // The command line is logged too: the lines are computed, so only the output matches them.
    // The shell exits at once; its background child writes to the inherited stdout 300 ms later.
    const proc = CapabilityProcess.start(
      {
        command: ["sh", "-c", "(sleep 0.3; echo late-$((40+2))) & echo early-$((40+1)); exit 0"],
        logFile,
        redact: (t) => t,
      },
      { kind: "socket", socketPath: join(dir, "unused.sock"), secret: "s" },
    );
    const info = await proc.exited;
    expect(info.code).toBe(0);
    // The log stream opens its file asynchronously: it may not exist yet when the process has exited.
    await waitUntil(() => existsSync(logFile) && readFileSync(logFile, "utf8").includes("[palisade] process exited"));
    const log = readFileSync(logFile, "utf8");
    expect(log.indexOf("early-41")).toBeGreaterThan(-1);
    // The late line is in the log, before the exit record that ends it.
    expect(log.indexOf("late-42")).toBeGreaterThan(log.indexOf("early-41"));
    expect(log.indexOf("late-42")).toBeLessThan(log.indexOf("[palisade] process exited (exit code 0)"));
    expect(proc.lastLines()).toContain("late-42");
  });
});
