// The audit chain on PostgreSQL: the same rows and hashes as ../audit.ts. Every appender locks
// the head row, so the Engines sharing a database extend one chain in turn.
import { ChainCheck, chainRows, GENESIS_HASH } from "../audit.js";
import type { AuditKey, AuditVerification, NewAudit } from "../audit.js";
import { auditFromRow } from "../rows.js";
import type { Row } from "../rows.js";
import type { AuditRecord } from "../types.js";
import type { PgDb, Queryable } from "./db.js";

export async function appendAuditRows(
  c: Queryable,
  inputs: readonly NewAudit[],
  key?: AuditKey,
): Promise<AuditRecord[]> {
  if (inputs.length === 0) return [];
  const head = (
    await c.query<{ seq: number; hash: string }>("SELECT seq, hash FROM audit_head WHERE id = 1 FOR UPDATE")
  ).rows[0] ?? { seq: 0, hash: GENESIS_HASH };
  const rows = chainRows(head, inputs, key);
  const cols = ["seq", "ts", "session_id", "kind", "actor", "call_id", "payload", "prev_hash", "hash"];
  const values: unknown[] = [];
  const tuples = rows.map((r) => {
    const start =
      values.push(r.seq, r.ts, r.sessionId, r.kind, r.actor, r.callId, r.payload, r.prevHash, r.hash) - cols.length;
    return `(${cols.map((_, i) => `$${String(start + i + 1)}`).join(", ")})`;
  });
  await c.query(`INSERT INTO audit (${cols.join(", ")}) VALUES ${tuples.join(", ")}`, values);
  const last = rows[rows.length - 1] as AuditRecord;
  await c.query("UPDATE audit_head SET seq = $1, hash = $2 WHERE id = 1", [last.seq, last.hash]);
  return rows;
}

export async function auditHead(c: Queryable): Promise<{ seq: number; hash: string }> {
  return (
    (await c.query<{ seq: number; hash: string }>("SELECT seq, hash FROM audit_head WHERE id = 1")).rows[0] ?? {
      seq: 0,
      hash: GENESIS_HASH,
    }
  );
}

export async function listAudit(
  c: Queryable,
  o: { sessionId?: string; afterSeq?: number; limit?: number } = {},
): Promise<AuditRecord[]> {
  const r =
    o.sessionId === undefined
      ? await c.query<Row>("SELECT * FROM audit WHERE seq > $1 ORDER BY seq LIMIT $2", [
          o.afterSeq ?? 0,
          o.limit ?? 1000,
        ])
      : await c.query<Row>("SELECT * FROM audit WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3", [
          o.sessionId,
          o.afterSeq ?? 0,
          o.limit ?? 1000,
        ]);
  return r.rows.map(auditFromRow);
}

/** Walks the whole chain in pages, in one repeatable-read snapshot (Engines keep appending meanwhile). */
export async function verifyAudit(
  db: PgDb,
  expectedHead?: { seq: number; hash: string },
  key?: AuditKey,
): Promise<AuditVerification> {
  const c = await db.pool.connect();
  try {
    await c.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    const stored = await auditHead(c);
    const check = new ChainCheck([stored.seq > 0 ? stored : undefined, expectedHead], key);
    for (let after = 0; ;) {
      const page = (await c.query<Row>("SELECT * FROM audit WHERE seq > $1 ORDER BY seq LIMIT 5000", [after])).rows.map(
        auditFromRow,
      );
      for (const r of page) check.add(r);
      const last = page[page.length - 1];
      if (last === undefined) break;
      after = last.seq;
    }
    await c.query("COMMIT");
    return check.finish();
  } finally {
    c.release();
  }
}
