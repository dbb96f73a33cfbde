import { createHash } from "node:crypto";
import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { GENESIS_HASH, Store, canonicalJson } from "@palisade/store";
import { tempStore } from "./helpers.js";

function trail(store: Store, n: number): void {
  for (let i = 1; i <= n; i++) {
    store.appendAudit({ kind: i % 2 ? "proposal" : "verdict", sessionId: "s1", actor: "engine", callId: `c${i}`, payload: { i, tool: "shell__run", args: { b: 2, a: 1 } }, ts: 1000 + i });
  }
}

function raw(path: string, sql: string, ...params: unknown[]): void {
  const db = new BetterSqlite3(path);
  db.prepare(sql).run(...params);
  db.close();
}

describe("audit trail", () => {
  it("chains rows with sha256 and verifies clean", () => {
    const { store } = tempStore();
    trail(store, 5);
    const rows = store.listAudit();
    expect(rows.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(rows[0]?.prevHash).toBe(GENESIS_HASH);
    for (let i = 1; i < rows.length; i++) expect(rows[i]?.prevHash).toBe(rows[i - 1]?.hash);
    expect(rows[0]?.payload).toBe('{"args":{"a":1,"b":2},"i":1,"tool":"shell__run"}');
    expect(store.verifyAudit()).toEqual({ ok: true, rows: 5, head: { seq: 5, hash: rows[4]?.hash }, problems: [], keyed: false });
    expect(store.listAudit({ sessionId: "s1", afterSeq: 3 }).map((r) => r.seq)).toEqual([4, 5]);
  });

  it("a batch appends the same chain as one entry at a time, continuing the head", () => {
    const one = tempStore().store;
    const batch = tempStore().store;
    trail(one, 6);
    trail(batch, 2);
    const entries = [3, 4, 5, 6].map((i) => ({ kind: i % 2 ? "proposal" : "verdict", sessionId: "s1", actor: "engine", callId: `c${i}`, payload: { i, tool: "shell__run", args: { b: 2, a: 1 } }, ts: 1000 + i }));
    expect(batch.appendAudits(entries).map((r) => r.seq)).toEqual([3, 4, 5, 6]);
    expect(batch.listAudit()).toEqual(one.listAudit());
    expect(batch.verifyAudit()).toEqual(one.verifyAudit());
    expect(batch.verifyAudit().ok).toBe(true);
    expect(batch.appendAudits([])).toEqual([]);
  });

  it("refuses UPDATE and DELETE at the SQL level", () => {
    const { store, path } = tempStore();
    trail(store, 2);
    expect(() => raw(path, "UPDATE audit SET payload = '{}' WHERE seq = 1")).toThrow(/append-only/);
    expect(() => raw(path, "DELETE FROM audit WHERE seq = 2")).toThrow(/append-only/);
    expect(store.verifyAudit().ok).toBe(true);
  });

  it("detects an edited row even with the triggers dropped", () => {
    const { store, path } = tempStore();
    trail(store, 5);
    raw(path, "DROP TRIGGER audit_no_update");
    raw(path, "UPDATE audit SET payload = ? WHERE seq = 3", canonicalJson({ i: 3, tool: "files__read" }));
    const v = store.verifyAudit();
    expect(v.ok).toBe(false);
    expect(v.problems).toEqual([expect.objectContaining({ seq: 3, problem: "edited" })]);
  });

  it("detects an edited row whose hash was recomputed (the next link breaks)", () => {
    const { store, path } = tempStore();
    trail(store, 5);
    const row = store.listAudit()[2]!;
    const forged = { ...row, actor: "someone-else" };
    raw(path, "DROP TRIGGER audit_no_update");
    const db = new BetterSqlite3(path);
    // Recompute the forged row's hash exactly as the store does.
    const content = canonicalJson([forged.seq, forged.ts, forged.sessionId, forged.kind, forged.actor, forged.callId, forged.payload]);
    const hash = createHash("sha256").update(forged.prevHash).update("\n").update(content).digest("hex");
    db.prepare("UPDATE audit SET actor = ?, hash = ? WHERE seq = 3").run(forged.actor, hash);
    db.close();
    expect(store.verifyAudit().problems).toEqual([expect.objectContaining({ seq: 4, problem: "broken_chain" })]);
  });

  it("detects a deleted row in the middle and at the end", () => {
    const { store, path } = tempStore();
    trail(store, 6);
    const head = store.verifyAudit().head;
    raw(path, "DROP TRIGGER audit_no_delete");
    raw(path, "DELETE FROM audit WHERE seq = 3");
    const mid = store.verifyAudit();
    expect(mid.ok).toBe(false);
    expect(mid.problems).toEqual(expect.arrayContaining([expect.objectContaining({ seq: 3, problem: "missing" }), expect.objectContaining({ seq: 4, problem: "broken_chain" })]));
    raw(path, "DELETE FROM audit WHERE seq = 6");
    expect(store.verifyAudit().problems).toEqual(expect.arrayContaining([expect.objectContaining({ seq: 6, problem: "head_mismatch" })]));
    // Even when the attacker also rewinds audit_head, a head saved elsewhere catches the cut.
    raw(path, "UPDATE audit_head SET seq = 5, hash = (SELECT hash FROM audit WHERE seq = 5)");
    const anchored = store.verifyAudit(head);
    expect(anchored.problems).toEqual(expect.arrayContaining([expect.objectContaining({ seq: 6, problem: "head_mismatch" })]));
  });

  it("keeps chaining across reopen", () => {
    const { store, path } = tempStore();
    trail(store, 3);
    store.close();
    const again = Store.open(path);
    trail(again, 2);
    expect(again.verifyAudit()).toMatchObject({ ok: true, rows: 5 });
    again.close();
  });
});
