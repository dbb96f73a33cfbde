// Issue 9: SIGKILL the Engine (a real process: packages/engine/dist/main.js) during a stream of
// turns. Every message whose RESPONSE_COMPLETE reached the client must be in the database
// afterwards, the database must pass PRAGMA integrity_check, and a restarted Engine on the same
// data directory must serve them through GetHistory.
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "@palisade/protocol";
import type { Client } from "@palisade/protocol";
import { ClientService, PipelineEventType as T } from "@palisade/protocol/pipeline";
import { Store } from "@palisade/store";
import { readToken } from "@palisade/config";
import { isAlive, messageText, startScriptedServer } from "@palisade/testing";
import type { ScriptedServer } from "@palisade/testing";
import { built, root } from "../engine/helpers.js";

const main = join(root, "packages/engine/dist/main.js");
const skip = built() ?? (existsSync(main) ? undefined : "run make build first (packages/engine/dist/main.js)");

interface Completed {
  sessionId: string;
  userId: string;
  userContent: string;
  assistantId: string;
  assistantContent: string;
}

let dir = "";
let model: ScriptedServer;
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), "pal-crash-"));
  model = await startScriptedServer({
    rules: [{ match: { role: "user" }, reply: (r) => ({ content: `ack ${messageText(r.messages.at(-1))}` }) }],
  });
  writeFileSync(
    join(dir, "config.yaml"),
    [
      "model:",
      `  base_url: ${model.baseURL}`,
      "  api_key: sk-test-not-secret",
      "  name: scripted-model",
      "capabilities:",
      ...["files", "shell", "http", "documents", "mail"].map((id) => `  - { id: ${id}, enabled: false }`),
      `workspace: ${dir}`,
      "history: { auto_title: false }",
    ].join("\n"),
    { mode: 0o600 }, // it holds model.api_key
  );
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  await model?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Pids of the children of `pid` (Linux /proc; none elsewhere). */
function childPids(pid: number): number[] {
  if (!existsSync("/proc/self/stat")) return [];
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** Starts `palisade-engine` and waits for its ready line. */
async function startEngineProcess(): Promise<{
  child: ChildProcess;
  client: Client<typeof ClientService>;
  stderr: string[];
}> {
  const child = spawn(process.execPath, [main, "--config", join(dir, "config.yaml"), "--data-dir", join(dir, "data")], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  const stderr: string[] = [];
  child.stderr?.on("data", (d: Buffer) => stderr.push(d.toString()));
  const line = await new Promise<string>((resolve, reject) => {
    if (!child.stdout) return reject(new Error("no stdout"));
    const rl = createInterface({ input: child.stdout });
    rl.once("line", resolve);
    child.once("exit", (code, signal) =>
      reject(
        new Error(
          `the Engine ${signal ? `was killed by ${signal}` : `exited with code ${String(code)}`} before it was ready; its stderr:\n${stderr.join("")}`,
        ),
      ),
    );
  });
  const { address } = JSON.parse(line) as { address: string };
  const bearerToken = await readToken(join(dir, "data"));
  return { child, client: createClient(ClientService, address, bearerToken ? { bearerToken } : {}), stderr };
}

/** One conversation sending turns back to back until the Engine dies; records each completed turn. */
async function converse(
  client: Client<typeof ClientService>,
  lane: number,
  done: Completed[],
  stop: { killed: boolean },
): Promise<void> {
  let sessionId = "";
  for (let i = 0; !stop.killed; i++) {
    const content = `lane ${lane} message ${i}`;
    let userId = "";
    try {
      for await (const ev of client.sendMessage({ content, sessionId }, { timeoutMs: 20_000 })) {
        if (ev.eventType === T.MESSAGE_ACCEPTED) {
          sessionId = ev.sessionId;
          userId = ev.messageAccepted!.userMessageId;
        }
        if (ev.eventType === T.RESPONSE_COMPLETE) {
          done.push({
            sessionId,
            userId,
            userContent: content,
            assistantId: ev.responseComplete!.assistantMessageId,
            assistantContent: ev.responseComplete!.content,
          });
        }
      }
    } catch {
      return; // the Engine is gone
    }
  }
}

describe.skipIf(skip)("SIGKILL during a stream of writes", () => {
  it("keeps every message whose RESPONSE_COMPLETE was sent; the database is intact; a restart serves them", async () => {
    const first = await startEngineProcess();
    expect((await first.client.getStatus({}, { timeoutMs: 10_000 })).version).not.toBe("");
    const done: Completed[] = [];
    const stop = { killed: false };
    const lanes = [0, 1, 2, 3, 4, 5].map((lane) => converse(first.client, lane, done, stop));
    // Kill it mid-stream, once plenty of turns have completed.
    const deadline = Date.now() + 20_000;
    while (done.length < 40 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const spawned = childPids(first.child.pid ?? 0); // the Agent
    first.child.kill("SIGKILL");
    stop.killed = true;
    await Promise.all(lanes);
    first.client.close();
    await new Promise<void>((r) =>
      first.child.exitCode !== null || first.child.signalCode !== null ? r() : first.child.once("exit", () => r()),
    );
    expect(first.child.signalCode).toBe("SIGKILL");
    expect(done.length).toBeGreaterThanOrEqual(40);
    // The Agent the Engine spawned goes away with its Engine (or is stopped here).
    const until = Date.now() + 10_000;
    while (spawned.some(isAlive) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    for (const pid of spawned.filter(isAlive)) process.kill(pid, "SIGKILL");

    // The database as the killed Engine left it.
    const store = Store.open(join(dir, "data", "palisade.db"));
    try {
      expect(store.integrityCheck()).toBe("ok");
      for (const c of done) {
        expect(store.getMessage(c.userId), `user message of ${c.userContent}`).toMatchObject({
          role: "user",
          content: c.userContent,
          sessionId: c.sessionId,
        });
        expect(store.getMessage(c.assistantId), `reply to ${c.userContent}`).toMatchObject({
          role: "assistant",
          content: c.assistantContent,
          sessionId: c.sessionId,
        });
      }
      expect(store.verifyAudit().ok).toBe(true);
    } finally {
      store.close();
    }

    // A new Engine on the same data directory serves them.
    const second = await startEngineProcess();
    try {
      const sessions = new Set(done.map((c) => c.sessionId));
      for (const sessionId of sessions) {
        const ids = new Set<string>();
        let cursor = "";
        do {
          const page = await second.client.getHistory({ sessionId, limit: 100, cursor });
          for (const m of page.messages) ids.add(m.id);
          cursor = page.nextCursor;
        } while (cursor);
        for (const c of done.filter((x) => x.sessionId === sessionId)) {
          expect(ids.has(c.userId)).toBe(true);
          expect(ids.has(c.assistantId)).toBe(true);
        }
      }
      await second.client.shutdown({ deadlineMs: 2000 });
      await new Promise<void>((r) => (second.child.exitCode !== null ? r() : second.child.once("exit", () => r())));
    } finally {
      second.client.close();
    }
  }, 90_000);
});
