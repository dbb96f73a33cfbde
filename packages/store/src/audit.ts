// The audit trail: append-only (SQL triggers) and hash-chained, so an edit or a deletion is
// detected by verifyAudit even when someone has dropped the triggers. With a key (kept outside
// the database, see audit-key.ts) each hash is an HMAC: whoever can write the database but not
// read the key cannot recompute the chain after an edit.
import { createHash, createHmac, createSecretKey } from "node:crypto";
import type { KeyObject } from "node:crypto";
import type { Db } from "./db.js";
import { auditFromRow } from "./rows.js";
import type { AuditRecord } from "./types.js";

export const GENESIS_HASH = "0".repeat(64);

export interface NewAudit {
  kind: string;
  sessionId?: string;
  actor?: string;
  callId?: string;
  payload: unknown;
  ts?: number;
}

export interface AuditProblem {
  seq: number;
  problem: "edited" | "missing" | "broken_chain" | "head_mismatch";
  detail: string;
}

export interface AuditVerification {
  ok: boolean;
  rows: number;
  head: { seq: number; hash: string };
  problems: AuditProblem[];
  /** The first entry that does not verify (lowest seq among the problems). */
  firstBroken?: number;
  /** Whether the entries from `keyedFrom` on were checked with the key. */
  keyed: boolean;
}

/** The HMAC key of a database's chain and the first seq written with it (older rows are plain SHA-256). */
export interface AuditKey {
  key: Buffer;
  fromSeq: number;
}

/** JSON with object keys sorted at every level: one byte sequence per value. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(",")}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(",")}}`;
}

// createHmac with a Buffer key first asks whether it is a KeyObject or a CryptoKey, and each "no"
// is a thrown and caught TypeError: a KeyObject made once per key skips both.
const keyObjects = new WeakMap<Buffer, KeyObject>();

function keyObject(key: Buffer): KeyObject {
  let k = keyObjects.get(key);
  if (k === undefined) {
    k = createSecretKey(key);
    keyObjects.set(key, k);
  }
  return k;
}

export function auditHash(prevHash: string, r: Omit<AuditRecord, "hash" | "prevHash">, key?: AuditKey): string {
  const content = canonicalJson([r.seq, r.ts, r.sessionId, r.kind, r.actor, r.callId, r.payload]);
  const h = key !== undefined && r.seq >= key.fromSeq ? createHmac("sha256", keyObject(key.key)) : createHash("sha256");
  return h.update(prevHash).update("\n").update(content).digest("hex");
}

export function appendAudit(db: Db, input: NewAudit, key?: AuditKey): AuditRecord {
  return appendAuditBatch(db, [input], key)[0] as AuditRecord;
}

/** The chain head (seq 0 and the genesis hash when the trail is empty). */
export function auditHead(db: Db): { seq: number; hash: string } {
  return (
    (db.stmt("SELECT seq, hash FROM audit_head WHERE id = 1").get() as { seq: number; hash: string } | undefined) ?? {
      seq: 0,
      hash: GENESIS_HASH,
    }
  );
}

/**
 * Appends entries in order in one transaction: the chain head is read once and written once,
 * each row's hash chaining on the previous one's (the Engine writes a few per tool call).
 */
export function appendAuditBatch(db: Db, inputs: readonly NewAudit[], key?: AuditKey): AuditRecord[] {
  if (inputs.length === 0) return [];
  return db.tx(() => appendAuditRows(db, inputs, key));
}

/** appendAuditBatch inside the caller's transaction. */
export function appendAuditRows(db: Db, inputs: readonly NewAudit[], key?: AuditKey): AuditRecord[] {
  if (inputs.length === 0) return [];
  const head = db.stmt("SELECT seq, hash FROM audit_head WHERE id = 1").get() as
    { seq: number; hash: string } | undefined;
  const rows = chainRows(head ?? { seq: 0, hash: GENESIS_HASH }, inputs, key);
  const insert = db.stmt(
    "INSERT INTO audit (seq, ts, session_id, kind, actor, call_id, payload, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
  );
  for (const r of rows) insert.run(r.seq, r.ts, r.sessionId, r.kind, r.actor, r.callId, r.payload, r.prevHash, r.hash);
  const last = rows[rows.length - 1] as AuditRecord;
  db.stmt(
    "INSERT INTO audit_head (id, seq, hash) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash",
  ).run(last.seq, last.hash);
  return rows;
}

/** The rows that extend the chain after `head` with `inputs`, in order (any store writes them). */
export function chainRows(
  head: { seq: number; hash: string },
  inputs: readonly NewAudit[],
  key?: AuditKey,
): AuditRecord[] {
  let seq = head.seq;
  let prevHash = head.hash;
  const out: AuditRecord[] = [];
  for (const input of inputs) {
    const base = {
      seq: ++seq,
      ts: input.ts ?? Date.now(),
      sessionId: input.sessionId ?? "",
      kind: input.kind,
      actor: input.actor ?? "",
      callId: input.callId ?? "",
      payload: typeof input.payload === "string" ? input.payload : canonicalJson(input.payload),
    };
    const hash = auditHash(prevHash, base, key);
    out.push({ ...base, prevHash, hash });
    prevHash = hash;
  }
  return out;
}

export function listAudit(
  db: Db,
  options: { sessionId?: string; afterSeq?: number; limit?: number } = {},
): AuditRecord[] {
  const rows =
    options.sessionId === undefined
      ? db
          .stmt("SELECT * FROM audit WHERE seq > ? ORDER BY seq LIMIT +?")
          .all(options.afterSeq ?? 0, options.limit ?? 1000)
      : db
          .stmt("SELECT * FROM audit WHERE session_id = +? AND seq > ? ORDER BY seq LIMIT +?")
          .all(options.sessionId, options.afterSeq ?? 0, options.limit ?? 1000);
  return (rows as Array<Record<string, unknown>>).map(auditFromRow);
}

/**
 * Walks the whole chain. Seqs are dense from 1, so a deleted row leaves a gap; each row's hash
 * covers its content and the previous hash, so an edited row (even with its hash recomputed)
 * breaks the link to the next one. A deleted tail is caught against audit_head, or against
 * `expectedHead` (a head the caller saved elsewhere, e.g. printed by a previous verify).
 */
export function verifyAudit(db: Db, expectedHead?: { seq: number; hash: string }, key?: AuditKey): AuditVerification {
  const stored = db.stmt("SELECT seq, hash FROM audit_head WHERE id = 1").get() as
    { seq: number; hash: string } | undefined;
  const check = new ChainCheck([stored, expectedHead], key);
  for (const raw of db.raw.prepare("SELECT * FROM audit ORDER BY seq").iterate())
    check.add(auditFromRow(raw as Record<string, unknown>));
  return check.finish();
}

/** The chain verification of verifyAudit, fed rows in seq order (by any store). */
export class ChainCheck {
  private readonly problems: AuditProblem[] = [];
  private readonly heads: Array<{ seq: number; hash: string }>;
  private readonly seen = new Set<number>();
  private prevHash = GENESIS_HASH;
  private expectedSeq = 1;
  private rows = 0;
  private last = { seq: 0, hash: GENESIS_HASH };

  constructor(
    heads: ReadonlyArray<{ seq: number; hash: string } | undefined>,
    private readonly key?: AuditKey,
  ) {
    this.heads = heads.filter((h): h is { seq: number; hash: string } => h !== undefined);
  }

  add(r: AuditRecord): void {
    const { problems, key } = this;
    this.rows++;
    if (r.seq !== this.expectedSeq) {
      problems.push({
        seq: this.expectedSeq,
        problem: "missing",
        detail: `rows ${this.expectedSeq}..${r.seq - 1} are missing (deleted)`,
      });
    }
    if (r.prevHash !== this.prevHash) {
      problems.push({
        seq: r.seq,
        problem: "broken_chain",
        detail: "prev_hash does not match the hash of the row before it",
      });
    }
    if (auditHash(r.prevHash, r, key) !== r.hash) {
      const how =
        key !== undefined && r.seq >= key.fromSeq
          ? "its keyed hash (edited, or its hash recomputed without the key)"
          : "its hash (edited after it was written)";
      problems.push({ seq: r.seq, problem: "edited", detail: `row content does not match ${how}` });
    }
    for (const [i, h] of this.heads.entries()) {
      if (h.seq === r.seq) {
        this.seen.add(i);
        if (h.hash !== r.hash)
          problems.push({
            seq: r.seq,
            problem: "head_mismatch",
            detail: `row ${r.seq} should have hash ${h.hash.slice(0, 12)}…`,
          });
      }
    }
    this.prevHash = r.hash;
    this.expectedSeq = r.seq + 1;
    this.last = { seq: r.seq, hash: r.hash };
  }

  finish(): AuditVerification {
    const { problems, last } = this;
    for (const [i, h] of this.heads.entries()) {
      if (!this.seen.has(i) && h.seq > 0) {
        problems.push({
          seq: h.seq,
          problem: "head_mismatch",
          detail: `the trail should reach row ${h.seq} but ends at row ${last.seq} (rows deleted from the end)`,
        });
      }
    }
    const firstBroken = problems.length === 0 ? undefined : Math.min(...problems.map((p) => p.seq));
    return {
      ok: problems.length === 0,
      rows: this.rows,
      head: last,
      problems,
      keyed: this.key !== undefined,
      ...(firstBroken !== undefined ? { firstBroken } : {}),
    };
  }
}
