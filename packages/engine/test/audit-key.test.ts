// The Engine's store keys the audit chain with a secret kept beside the configuration (0600),
// not in the data directory: an edited entry whose hashes were recomputed without the key is
// reported as the first broken entry.
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { canonicalJson, readAuditKey, Store } from "@palisade/store";
import { afterEach, expect, it } from "vitest";
import { DATABASE_FILE, openSqliteStore } from "../src/adapters/sqlite-store.js";

let dir = "";
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it("writes a keyed chain; recomputing the hashes after an edit is detected at the edited entry", async () => {
  dir = mkdtempSync(join(tmpdir(), "pal-audit-key-"));
  const dataDir = join(dir, "data");
  mkdirSync(dataDir);
  const keyFile = join(dir, "config", "audit.key");
  const store = await openSqliteStore(dataDir, () => undefined, keyFile);
  const entry = (i: number) => ({
    kind: "verdict",
    sessionId: "s",
    callId: `c${i}`,
    actor: "shield",
    payload: { decision: "BLOCK", i },
    ts: 1000 + i,
  });
  await store.appendAudit([entry(1), entry(2), entry(3)]);
  await store.close();
  expect(statSync(keyFile).mode & 0o777).toBe(0o600);

  const dbPath = join(dataDir, DATABASE_FILE);
  const key = await readAuditKey(keyFile, dbPath);
  expect(key?.fromSeq).toBe(1);
  const check = Store.open(dbPath);
  expect(check.verifyAudit(undefined, key)).toMatchObject({ ok: true, rows: 3, keyed: true });
  check.close();

  // someone with the database but not the key flips entry 2 and re-chains 2..3 with SHA-256
  const db = new BetterSqlite3(dbPath);
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
  }[];
  let prev = rows[1]?.prev_hash ?? "";
  for (const r of rows.slice(1)) {
    const payload = r.seq === 2 ? r.payload.replace("BLOCK", "ALLOW") : r.payload;
    const hash = createHash("sha256")
      .update(prev)
      .update("\n")
      .update(canonicalJson([r.seq, r.ts, r.session_id, r.kind, r.actor, r.call_id, payload]))
      .digest("hex");
    db.prepare("UPDATE audit SET payload = ?, prev_hash = ?, hash = ? WHERE seq = ?").run(payload, prev, hash, r.seq);
    prev = hash;
  }
  db.prepare("UPDATE audit_head SET hash = ?").run(prev);
  db.close();

  const after = Store.open(dbPath);
  const v = after.verifyAudit(undefined, key);
  after.close();
  expect(v.ok).toBe(false);
  expect(v.firstBroken).toBe(2);
});
