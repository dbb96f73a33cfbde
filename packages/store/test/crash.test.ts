import { execFileSync, spawn } from "node:child_process";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { Store } from "@palisade/store";
import { tempDir } from "./helpers.js";

const ROOT = join(import.meta.dirname, "..", "..", "..");

beforeAll(() => {
  // The child runs compiled JS: build this package (incremental, fast when up to date).
  execFileSync(
    process.execPath,
    [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-b", join(ROOT, "packages", "store")],
    { stdio: "inherit" },
  );
}, 120_000);

/** Starts the writer, SIGKILLs it once it has reported `minTurns` commits, returns the ids it printed. */
function killMidStream(path: string, synchronous: string, minTurns: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [join(import.meta.dirname, "fixtures", "crash-writer.mjs"), path, synchronous],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let buffered = "";
    let stderr = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => (stderr += chunk));
    const committed: string[] = [];
    let killed = false;
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? ""; // a partial line was not fully reported: not counted
      for (const line of lines) if (line.startsWith("turn-")) committed.push(line);
      if (!killed && committed.length >= minTurns) {
        killed = true;
        child.kill("SIGKILL");
      }
    });
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      if (signal === "SIGKILL" && killed) return resolve(committed);
      const how = signal ? `was killed by ${signal}` : `exited with code ${String(code)}`;
      reject(
        new Error(
          `the writer ${how} after ${String(committed.length)} turns, before the test killed it; its stderr:\n${stderr || "(empty)"}`,
        ),
      );
    });
  });
}

describe("crash safety", () => {
  it.each(["full", "normal", "normal+sync"])(
    "every turn reported committed survives SIGKILL (synchronous=%s)",
    async (synchronous) => {
      const path = join(tempDir(), "crash.db");
      const committed = await killMidStream(path, synchronous, 300);
      expect(committed.length).toBeGreaterThanOrEqual(300);
      const store = Store.open(path);
      expect(store.integrityCheck()).toBe("ok");
      const missing = committed.filter((id) => store.getMessage(id) === null);
      expect(missing).toEqual([]);
      // Turns are atomic: no half-written turn (an assistant message without its user message or tool call).
      const session = store.getSession("crash")!;
      expect(session.messageCount % 2).toBe(0);
      const last = store.getHistory("crash", { limit: 2 }).messages;
      expect(last[1]?.toolCalls).toHaveLength(1);
      expect(store.verifyAudit().ok).toBe(true);
      store.close();
    },
  );
});
