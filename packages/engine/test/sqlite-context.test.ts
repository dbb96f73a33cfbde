// The SQLite adapter keeps recently active sessions' context in memory: it must always equal what
// a fresh read of the database gives (a new adapter on the same file, as after a restart).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openSqliteStore } from "../src/adapters/sqlite-store.js";
import { ZERO_USAGE } from "../src/history/convert.js";
import type { EngineStore } from "../src/index.js";
import type { SessionRecord, ToolCallRecordRow } from "../src/ports.js";
import { sessionRecord } from "./helpers/records.js";

let dir = "";
const open: EngineStore[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const session = sessionRecord;

function call(i: number, extra: Partial<ToolCallRecordRow> = {}): ToolCallRecordRow {
  return {
    callId: `c${i}`,
    toolName: "files__read_file",
    argumentsJson: `{"path":"f${i}.txt"}`,
    verdict: { decision: "allow", tier: 0, confidence: 1, reason: "policy", ruleIds: ["r1"], evaluationUs: 12 },
    approval: i % 2 ? "allow_once" : "",
    result: `contents ${i}`,
    isError: i % 3 === 0,
    durationMs: 3,
    artifacts: [],
    startedAt: 100 + i,
    ...extra,
  };
}

async function commit(
  store: EngineStore,
  s: SessionRecord,
  i: number,
  withTools: boolean,
  withReply = true,
): Promise<void> {
  await store.commitTurn({
    session: { ...s, updatedAt: 10 + i },
    status: withReply ? "completed" : "error",
    user: { id: `${s.id}_u${i}`, content: `question ${i}`, createdAt: 10 + i },
    ...(withReply
      ? {
          assistant: {
            id: `${s.id}_a${i}`,
            content: `answer ${i}`,
            createdAt: 11 + i,
            usage: { ...ZERO_USAGE, inputTokens: i, outputTokens: 2 },
          },
        }
      : {}),
    toolCalls: withTools
      ? [
          call(i),
          call(i + 100, {
            approval: "deny",
            verdict: { decision: "escalate", tier: 1, confidence: 0.7, reason: "asks", ruleIds: [], evaluationUs: 3 },
          }),
        ]
      : [],
    events: [],
  });
}

describe("SQLite adapter context cache", () => {
  it("after commits, deletes and retention, the cached context equals a fresh read of the database", async () => {
    dir = mkdtempSync(join(tmpdir(), "pal-ctx-"));
    const store = await openSqliteStore(dir);
    open.push(store);
    const a = session("ses_a");
    const b = session("ses_b");
    await store.createSession(a);
    await store.createSession(b);
    await commit(store, a, 1, false);
    expect(await store.contextMessages(a.id)).toHaveLength(2); // now cached
    await commit(store, a, 2, true);
    await commit(store, a, 3, false, false); // a failed turn: only the user message
    await store.contextMessages(b.id);
    await commit(store, b, 1, true);

    const fresh = await openSqliteStore(dir);
    open.push(fresh);
    for (const id of [a.id, b.id])
      expect(await store.contextMessages(id)).toStrictEqual(await fresh.contextMessages(id));
    expect((await store.contextMessages(a.id)).map((m) => m.content)).toEqual([
      "question 1",
      "answer 1",
      "question 2",
      "answer 2",
      "question 3",
    ]);

    // What the caller does with the returned array does not change the cache.
    (await store.contextMessages(a.id)).length = 0;
    expect(await store.contextMessages(a.id)).toHaveLength(5);

    await store.deleteSession(a.id);
    expect(await store.contextMessages(a.id)).toEqual([]);
    const outcome = await store.applyRetention({ maxAgeDays: 0 });
    expect(outcome.deletedSessions).toContain(b.id);
    expect(await store.contextMessages(b.id)).toEqual([]);
  });

  it("keeps the context of every session in use, however many, and reads none of them back while they fit", async () => {
    dir = mkdtempSync(join(tmpdir(), "pal-ctx-"));
    const store = await openSqliteStore(dir);
    open.push(store);
    const ids = Array.from({ length: 300 }, (_, i) => `ses_${String(i)}`);
    for (const id of ids) {
      await store.createSession(session(id));
      await store.contextMessages(id);
      await commit(store, session(id), 1, true);
    }
    // Every session is cached: a turn of each, round robin, finds its context in memory.
    expect(store.cachedSessions?.()).toBe(300);
    for (const id of ids)
      expect((await store.contextMessages(id)).map((m) => m.content)).toEqual(["question 1", "answer 1"]);
    expect(store.cachedSessions?.()).toBe(300);
  });

  it("bounds the cache by the text it holds: least recently used sessions go, and read back equal", async () => {
    dir = mkdtempSync(join(tmpdir(), "pal-ctx-"));
    // Room for about three sessions of one turn each (two records of ~266 characters and two tool calls).
    const store = await openSqliteStore(dir, undefined, undefined, { contextCacheChars: 3 * 1200 });
    open.push(store);
    const ids = ["ses_a", "ses_b", "ses_c", "ses_d", "ses_e"];
    for (const id of ids) {
      await store.createSession(session(id));
      await store.contextMessages(id);
      await commit(store, session(id), 1, true);
    }
    expect(store.cachedSessions?.()).toBeLessThanOrEqual(3);
    expect(store.cachedSessions?.()).toBeGreaterThanOrEqual(2);
    const fresh = await openSqliteStore(dir);
    open.push(fresh);
    for (const id of ids) expect(await store.contextMessages(id)).toStrictEqual(await fresh.contextMessages(id));
    // One session larger than the whole limit is still kept while it is the one in use.
    await store.createSession(session("ses_big"));
    await store.contextMessages("ses_big");
    await store.commitTurn({
      session: session("ses_big"),
      status: "completed",
      user: { id: "big_u", content: "x".repeat(10_000), createdAt: 1 },
      assistant: { id: "big_a", content: "ok", createdAt: 2, usage: ZERO_USAGE },
      toolCalls: [],
      events: [],
    });
    expect(store.cachedSessions?.()).toBe(1);
    expect((await store.contextMessages("ses_big")).map((m) => m.id)).toEqual(["big_u", "big_a"]);
  });
});
