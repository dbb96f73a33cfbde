// The statements a turn runs stay prepared: a statement SQLite re-prepares at every run also has
// its row function compiled again by better-sqlite3 (with `Function`), several times the cost of
// the run itself (see "Plans that stay prepared" in src/db.ts).
import { afterEach, describe, expect, it, vi } from "vitest";
import { allow, tempStore } from "./helpers.js";
import type { Store } from "@palisade/store";

afterEach(() => {
  vi.restoreAllMocks();
});

function turn(store: Store, sessionId: string, i: number): void {
  store.listMemory(sessionId);
  store.appendAudits([{ kind: "proposal", sessionId, callId: `c${i}`, payload: { toolName: "files__read_file" } }]);
  store.commitTurn(sessionId, {
    messages: [
      { id: `${sessionId}-u${i}`, role: "user", content: "read x" },
      { id: `${sessionId}-a${i}`, role: "assistant", content: "done", parentId: `${sessionId}-u${i}` },
    ],
    toolCalls: [
      {
        callId: `c${i}`,
        messageId: `${sessionId}-a${i}`,
        toolName: "files__read_file",
        argumentsJson: "{}",
        verdict: allow,
        result: "x",
      },
    ],
    events: [{ type: "MESSAGE_ACCEPTED" }, { type: "RESPONSE_COMPLETE" }],
    audit: [{ kind: "execution", callId: `c${i}`, payload: { ok: true } }],
  });
}

/** The reads with a LIMIT, a LIKE or a `col = ?` before an ORDER BY, called as the Engine and the CLI do. */
function reads(store: Store, sessionId: string, i: number): unknown[] {
  return [
    store.getHistory(sessionId, { limit: 2 + (i % 3) }),
    store.listEvents(sessionId, i % 4, 1 + (i % 2)),
    store.lastEvent(sessionId),
    store.listAudit({ afterSeq: i % 3, limit: 2 + (i % 2) }),
    store.listAudit({ sessionId, limit: 2 + (i % 2) }),
    store.listSessions({ limit: 1 + (i % 2), offset: i % 2 }),
    store.listSessions({ limit: 1 + (i % 2), titleFilter: i % 2 ? "a" : "b" }),
  ];
}

/** The cached statements of a store, by SQL (white-box: the cache is the thing under test). */
function cachedSql(store: Store): string[] {
  const db = (store as unknown as { db: { statements: Map<string, unknown> } }).db;
  return [...db.statements.keys()];
}

describe("prepared plans", () => {
  it("a turn's statements are not prepared again when they run for another session", () => {
    const { store } = tempStore({ synchronous: "normal" });
    for (const id of ["s1", "s2"]) store.createSession({ id });
    turn(store, "s1", 0);
    turn(store, "s2", 0);
    const compiled = vi.spyOn(globalThis, "Function");
    for (let i = 1; i <= 4; i++) turn(store, i % 2 ? "s1" : "s2", i);
    expect(compiled).not.toHaveBeenCalled();
    expect(store.getHistory("s1").messages.map((m) => m.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(store.listEvents("s2").map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("history pages, event and audit lists and session lists are not prepared again for another limit, session or filter", () => {
    const { store } = tempStore({ synchronous: "normal" });
    for (const id of ["s1", "s2"]) store.createSession({ id, title: id === "s1" ? "a title" : "b title" });
    for (let i = 0; i < 6; i++) turn(store, i % 2 ? "s1" : "s2", i);
    reads(store, "s1", 0);
    const compiled = vi.spyOn(globalThis, "Function");
    const results = [1, 2, 3, 4].map((i) => reads(store, i % 2 ? "s1" : "s2", i));
    expect(compiled).not.toHaveBeenCalled();
    // The same rows as before: limits, offsets, afterSeq and filters still apply.
    const [history, events, last, audit, sessionAudit, sessions, filtered] = results[2] as [
      ReturnType<Store["getHistory"]>,
      ReturnType<Store["listEvents"]>,
      ReturnType<Store["lastEvent"]>,
      ReturnType<Store["listAudit"]>,
      ReturnType<Store["listAudit"]>,
      ReturnType<Store["listSessions"]>,
      ReturnType<Store["listSessions"]>,
    ];
    // i = 3: session s1 (3 turns: 6 messages, 6 events, 6 audit rows), limit 2 or 3, afterSeq 3, offset 1, title "a".
    expect(history.messages.map((m) => m.seq)).toEqual([5, 6]);
    expect(events.map((e) => e.seq)).toEqual([4, 5]);
    expect(last?.seq).toBe(6);
    expect(audit.map((a) => a.seq)).toEqual([1, 2, 3]);
    expect(sessionAudit.map((a) => a.sessionId)).toEqual(["s1", "s1", "s1"]);
    expect(sessions.sessions).toHaveLength(1);
    expect(filtered.sessions.map((s) => s.id)).toEqual(["s1"]);
    expect(filtered.total).toBe(1);
  });

  it("a parameter written +? keeps its statement on an index (no scan of a whole table)", () => {
    const { store } = tempStore({ synchronous: "normal" });
    store.createSession({ id: "s1", title: "a" });
    turn(store, "s1", 0);
    reads(store, "s1", 0);
    const db = (
      store as unknown as { db: { raw: { prepare(sql: string): { all(...a: unknown[]): Array<{ detail: string }> } } } }
    ).db;
    const withPlus = cachedSql(store).filter((sql) => sql.includes("= +?") && sql.trimStart().startsWith("SELECT"));
    expect(withPlus.length).toBeGreaterThanOrEqual(6);
    for (const sql of withPlus) {
      const params = Array.from(sql.matchAll(/\?/g), () => 1);
      const plan = db.raw
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .all(...params)
        .map((r) => r.detail)
        .join(" | ");
      expect(plan, sql).toMatch(/^SEARCH \w+ USING (COVERING )?INDEX/);
    }
  });
});
