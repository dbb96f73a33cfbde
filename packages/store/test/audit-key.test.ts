// The keyed chain: with the HMAC key kept outside the database, rewriting a row AND recomputing
// every hash after it (what an attacker with the database can do to a plain SHA-256 chain) is
// detected, and verification names the first broken entry.
import { createHash } from "node:crypto";
import { chmodSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { canonicalJson, loadOrCreateAuditKey, readAuditKey, Store, StoreError, type AuditKey } from "@palisade/store";
import { tempStore } from "./helpers.js";

function trail(store: Store, n: number, from = 1): void {
  for (let i = from; i < from + n; i++)
    store.appendAudit({
      kind: "verdict",
      sessionId: "s1",
      actor: "engine",
      callId: `c${i}`,
      payload: { i, decision: "BLOCK" },
      ts: 1000 + i,
    });
}

/** What an attacker with write access to the database does: edit a row, recompute every hash from it on (plain SHA-256). */
function rewriteChain(path: string, fromSeq: number, edit: (payload: string) => string): void {
  const db = new BetterSqlite3(path);
  db.exec("DROP TRIGGER IF EXISTS audit_no_update");
  const rows = db.prepare("SELECT * FROM audit ORDER BY seq").all() as {
    seq: number;
    ts: number;
    session_id: string;
    kind: string;
    actor: string;
    call_id: string;
    payload: string;
    prev_hash: string;
    hash: string;
  }[];
  let prev = rows.find((r) => r.seq === fromSeq)?.prev_hash ?? "";
  for (const r of rows.filter((x) => x.seq >= fromSeq)) {
    const payload = r.seq === fromSeq ? edit(r.payload) : r.payload;
    const hash = createHash("sha256")
      .update(prev)
      .update("\n")
      .update(canonicalJson([r.seq, r.ts, r.session_id, r.kind, r.actor, r.call_id, payload]))
      .digest("hex");
    db.prepare("UPDATE audit SET payload = ?, prev_hash = ?, hash = ? WHERE seq = ?").run(payload, prev, hash, r.seq);
    prev = hash;
  }
  db.prepare("UPDATE audit_head SET hash = ? WHERE id = 1").run(prev);
  db.close();
}

const configDir = (): string => mkdtempSync(join(tmpdir(), "palisade-cfg-"));

describe("keyed audit chain", () => {
  it("the key file is 0600 in a 0700 directory and remembers where each database's keyed part starts", async () => {
    const dir = join(configDir(), "palisade");
    const file = join(dir, "audit.key");
    const key = await loadOrCreateAuditKey(file, "/data/a.db", 0);
    expect(key.fromSeq).toBe(1);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const again = await loadOrCreateAuditKey(file, "/data/a.db", 50);
    expect(again).toEqual(key);
    expect((await loadOrCreateAuditKey(file, "/data/b.db", 7)).fromSeq).toBe(8);
    expect(await readAuditKey(file, "/data/a.db")).toEqual(key);
    expect(await readAuditKey(file, "/data/none.db")).toBeUndefined();
    expect(readFileSync(file, "utf8")).not.toContain("BLOCK");
  });

  it("refuses a key file other users can read, saying how to fix it", async () => {
    const file = join(configDir(), "audit.key");
    await loadOrCreateAuditKey(file, "/d.db", 0);
    chmodSync(file, 0o644);
    await expect(loadOrCreateAuditKey(file, "/d.db", 0)).rejects.toThrow(
      new RegExp(`mode 644\\); fix it with: chmod 600 ${file}`),
    );
    await expect(readAuditKey(file, "/d.db")).rejects.toBeInstanceOf(StoreError);
  });

  it("detects an edit whose hashes were recomputed, and reports the first broken entry", async () => {
    const { store, path } = tempStore();
    const key = await loadOrCreateAuditKey(join(configDir(), "audit.key"), path, store.auditHead().seq);
    store.setAuditKey(key);
    trail(store, 6);
    expect(store.verifyAudit()).toMatchObject({ ok: true, rows: 6, keyed: true });
    rewriteChain(path, 3, (p) => p.replace("BLOCK", "ALLOW"));
    const v = store.verifyAudit();
    expect(v.ok).toBe(false);
    expect(v.firstBroken).toBe(3);
    expect(v.problems[0]).toMatchObject({ seq: 3, problem: "edited" });
    expect(v.problems[0]?.detail).toContain("without the key");
    // the same rewrite against an unkeyed chain goes unnoticed: that is what the key is for
    const plain = tempStore();
    trail(plain.store, 6);
    rewriteChain(plain.path, 3, (p) => p.replace("BLOCK", "ALLOW"));
    expect(plain.store.verifyAudit().ok).toBe(true);
  });

  it("rows written before the database was keyed verify as before; keyed rows need the key", async () => {
    const { store, path } = tempStore();
    trail(store, 3);
    const key: AuditKey = await loadOrCreateAuditKey(join(configDir(), "audit.key"), path, store.auditHead().seq);
    expect(key.fromSeq).toBe(4);
    store.setAuditKey(key);
    trail(store, 3, 4);
    expect(store.verifyAudit()).toMatchObject({ ok: true, rows: 6 });
    store.close();
    const reopened = Store.open(path);
    // without the key the keyed rows do not verify; with it they do
    expect(reopened.verifyAudit().firstBroken).toBe(4);
    expect(reopened.verifyAudit(undefined, key).ok).toBe(true);
    reopened.close();
  });
});
