// Which Engine serves a live session, when several share one database: a lease row per session
// with an expiry on the database's clock (Engines' clocks may differ). An Engine claims a session
// when it accepts a message, renews the lease by heartbeat while the turn runs, and lets it run
// out after the turn. A claim commits the turn's user message. A claim on a lease that ran out
// takes the session over; if a turn was in flight there (its Engine died), the taker records it
// as interrupted.
import { randomUUID } from "node:crypto";
import { StoreError } from "../errors.js";
import type { PgDb, Queryable } from "./db.js";
import { searchVector } from "./fts-vector.js";
import { addLexemes } from "./lexemes.js";
import { ZERO, addToSession, insertMessage, nextMessageSeq } from "./writes.js";
import { insertEvent, nextEventSeq } from "./records.js";

/** The database's clock in unix ms: leases are timed by it, never by an Engine's clock. */
export const LEASE_NOW = "(extract(epoch from clock_timestamp()) * 1000)::bigint";
const NOW = LEASE_NOW;

export interface LeaseOwner {
  engineId: string;
  /** Where clients reach that Engine, as it registered itself. */
  address: string;
  /** Unix ms (database clock) when the lease runs out unless renewed. */
  expiresAt: number;
}

export interface InterruptedTurn {
  engineId: string;
  userMessageId: string;
  startedAt: number;
}

export type Claim = { ok: true; interrupted?: InterruptedTurn } | { ok: false; owner: LeaseOwner };

export interface TurnInFlight {
  userMessageId: string;
  content: string;
  createdAt: number;
}

interface LeaseRow {
  engine_id: string;
  expires_at: number;
  now: number;
  turn_message_id: string;
  turn_content: string;
  turn_started_at: number;
  address: string | null;
}

export async function registerEngine(db: PgDb, engineId: string, address: string): Promise<void> {
  await db.query(
    `INSERT INTO engines (id, address, started_at, heartbeat_at) VALUES ($1, $2, ${NOW}, ${NOW})
     ON CONFLICT (id) DO UPDATE SET address = EXCLUDED.address, heartbeat_at = EXCLUDED.heartbeat_at`,
    [engineId, address],
  );
}

/** Renews the Engine's leases of sessions with a turn running; returns how many it holds. */
export async function heartbeat(db: PgDb, engineId: string, leaseMs: number): Promise<number> {
  await db.query(`UPDATE engines SET heartbeat_at = ${NOW} WHERE id = $1`, [engineId]);
  const r = await db.query(
    `UPDATE session_leases SET expires_at = ${NOW} + $2 WHERE engine_id = $1 AND turn_message_id <> ''`,
    [engineId, leaseMs],
  );
  return r.rowCount ?? 0;
}

/**
 * Claims the session for a turn: granted when no live lease of another Engine exists. Taking
 * over from an Engine whose turn was in flight records that turn (its user message, if it was
 * not committed, and a TURN_INTERRUPTED event) in the same transaction.
 */
export async function claimSession(
  db: PgDb,
  sessionId: string,
  engineId: string,
  leaseMs: number,
  turn: TurnInFlight,
): Promise<Claim> {
  return db.tx(async (c) => {
    await c.query(
      `INSERT INTO session_leases (session_id, engine_id, acquired_at, expires_at) VALUES ($1, $2, ${NOW}, 0) ON CONFLICT DO NOTHING`,
      [sessionId, engineId],
    );
    const row = (
      await c.query<LeaseRow>(
        `SELECT l.engine_id, l.expires_at, ${NOW} AS now, l.turn_message_id, l.turn_content, l.turn_started_at, e.address
       FROM session_leases l LEFT JOIN engines e ON e.id = l.engine_id WHERE l.session_id = $1 FOR UPDATE OF l`,
        [sessionId],
      )
    ).rows[0] as LeaseRow;
    if (row.engine_id !== engineId && row.expires_at > row.now) {
      return { ok: false, owner: { engineId: row.engine_id, address: row.address ?? "", expiresAt: row.expires_at } };
    }
    let interrupted: InterruptedTurn | undefined;
    if (row.turn_message_id !== "" && (row.engine_id !== engineId || row.turn_message_id !== turn.userMessageId)) {
      interrupted = { engineId: row.engine_id, userMessageId: row.turn_message_id, startedAt: row.turn_started_at };
      await recordInterrupted(c, sessionId, row, engineId);
    }
    await c.query(
      `UPDATE session_leases SET engine_id = $2, acquired_at = CASE WHEN engine_id = $2 THEN acquired_at ELSE ${NOW} END,
         expires_at = ${NOW} + $3, turn_message_id = $4, turn_content = $5, turn_started_at = $6 WHERE session_id = $1`,
      [sessionId, engineId, leaseMs, turn.userMessageId, turn.content, turn.createdAt],
    );
    // The turn's user message is committed with its claim, before the model is asked: a crash of
    // this Engine mid-turn keeps it (the turn's commit adds the rest).
    await commitUserMessage(c, sessionId, turn);
    return interrupted ? { ok: true, interrupted } : { ok: true };
  });
}

/** The turn ended (committed): the lease runs out `leaseMs` from now unless another turn renews it. */
export async function finishTurn(db: PgDb, sessionId: string, engineId: string, leaseMs: number): Promise<void> {
  // Not durable: after a server crash the lease would merely run out lease_s later than it should.
  await db.tx(
    async (c) => {
      await c.query(
        `UPDATE session_leases SET turn_message_id = '', turn_content = '', turn_started_at = 0, expires_at = ${NOW} + $3
       WHERE session_id = $1 AND engine_id = $2`,
        [sessionId, engineId, leaseMs],
      );
    },
    { durable: false },
  );
}

/**
 * A turn's commit refused: another Engine holds a live lease on the session (it took the session
 * over after this Engine's lease ran out, and recorded this turn as interrupted). The commit
 * locks the lease row until it ends (turn.ts), so a takeover cannot slip in between.
 */
export function takenOver(sessionId: string, owner: string): StoreError {
  return new StoreError(
    "CONFLICT",
    `session ${sessionId} was taken over by Engine ${owner} while this turn ran (this Engine's lease had run out): the turn's answer is not saved; its message stays in the history, marked interrupted`,
  );
}

/** The Engine that holds a live lease on the session, or null (any Engine may serve it). */
export async function sessionOwner(c: Queryable, sessionId: string): Promise<LeaseOwner | null> {
  const row = (
    await c.query<LeaseRow>(
      `SELECT l.engine_id, l.expires_at, ${NOW} AS now, e.address FROM session_leases l LEFT JOIN engines e ON e.id = l.engine_id WHERE l.session_id = $1`,
      [sessionId],
    )
  ).rows[0];
  return row && row.expires_at > row.now
    ? { engineId: row.engine_id, address: row.address ?? "", expiresAt: row.expires_at }
    : null;
}

/** A clean shutdown: the Engine's leases end now (its turns were drained or recorded as cancelled). */
export async function releaseEngine(db: PgDb, engineId: string): Promise<void> {
  await db.query("DELETE FROM session_leases WHERE engine_id = $1", [engineId]);
  await db.query("DELETE FROM engines WHERE id = $1", [engineId]);
}

async function commitUserMessage(c: Queryable, sessionId: string, turn: TurnInFlight): Promise<void> {
  if (((await c.query("SELECT 1 FROM messages WHERE id = $1", [turn.userMessageId])).rowCount ?? 0) > 0) return;
  if (!(await addToSession(c, sessionId, 1, turn.createdAt, ZERO))) return;
  await insertMessage(
    c,
    { id: turn.userMessageId, sessionId, role: "user", content: turn.content, createdAt: turn.createdAt },
    await nextMessageSeq(c, sessionId, null),
  );
}

/** The interrupted turn's user message (when it was not committed) and a TURN_INTERRUPTED event, in history. */
async function recordInterrupted(c: Queryable, sessionId: string, row: LeaseRow, takenBy: string): Promise<void> {
  if (!(await addToSession(c, sessionId, 0, 0, ZERO))) return;
  const exists = ((await c.query("SELECT 1 FROM messages WHERE id = $1", [row.turn_message_id])).rowCount ?? 0) > 0;
  if (!exists && row.turn_content !== "") {
    const seq = await nextMessageSeq(c, sessionId, null);
    const vector = searchVector([row.turn_content]);
    await addLexemes(c, vector.lexemes);
    await c.query(
      `INSERT INTO messages (id, session_id, seq, role, content, created_at, tsv) VALUES ($1, $2, $3, 'user', $4, $5, $6::tsvector)`,
      [row.turn_message_id, sessionId, seq, row.turn_content, row.turn_started_at, vector.tsv],
    );
    await c.query(
      "UPDATE sessions SET message_count = message_count + 1, updated_at = GREATEST(updated_at, $2) WHERE id = $1",
      [sessionId, row.turn_started_at],
    );
  }
  const payload = {
    reason: `the Engine ${row.engine_id} stopped while this turn ran (its lease ran out); the Engine ${takenBy} took the session over`,
    userMessageId: row.turn_message_id,
    engineId: row.engine_id,
    takenOverBy: takenBy,
  };
  await insertEvent(
    c,
    { sessionId, messageId: `interrupted_${randomUUID()}`, type: "TURN_INTERRUPTED", payload },
    await nextEventSeq(c, sessionId),
  );
}
