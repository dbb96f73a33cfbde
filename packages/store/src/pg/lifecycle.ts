// Deleting sessions, retention and statistics on PostgreSQL (../lifecycle.ts on SQLite).
import type { DeleteResult, RetentionOptions, RetentionResult, StoreStats } from "../lifecycle.js";
import type { PgDb, Queryable } from "./db.js";
import { PG_SCHEMA_VERSION } from "./schema.js";

export async function deleteSession(c: Queryable, id: string): Promise<DeleteResult> {
  const paths = (
    await c.query<{ path: string }>("SELECT path FROM artifacts WHERE session_id = $1 AND path IS NOT NULL", [id])
  ).rows.map((r) => r.path);
  const r = await c.query("DELETE FROM sessions WHERE id = $1", [id]);
  await c.query("DELETE FROM session_leases WHERE session_id = $1", [id]);
  const deleted = (r.rowCount ?? 0) > 0;
  return { deleted, artifactPaths: deleted ? paths : [] };
}

const TABLES = ["sessions", "messages", "tool_calls", "events", "memory", "sub_agent_runs", "artifacts"];

/**
 * Bytes the history's rows take. PostgreSQL keeps freed space in its files for reuse (VACUUM),
 * so the files' size would not fall after a deletion: the rows are measured instead.
 */
export async function usedBytes(c: Queryable): Promise<number> {
  const sql = TABLES.map((t) => `SELECT COALESCE(SUM(pg_column_size(x.*)), 0)::bigint AS n FROM ${t} x`).join(
    " UNION ALL ",
  );
  return (await c.query<{ n: number }>(`SELECT COALESCE(SUM(n), 0)::bigint AS n FROM (${sql}) s`)).rows.reduce(
    (a, r) => a + r.n,
    0,
  );
}

export async function applyRetention(db: PgDb, options: RetentionOptions): Promise<RetentionResult> {
  const now = options.now ?? Date.now();
  const bytesBefore = await usedBytes(db);
  const deletedSessions: string[] = [];
  const artifactPaths: string[] = [];
  const expiredArtifacts: string[] = [];
  const drop = (ids: string[]): Promise<void> =>
    db.tx(async (c) => {
      for (const id of ids) {
        const r = await deleteSession(c, id);
        if (r.deleted) {
          deletedSessions.push(id);
          artifactPaths.push(...r.artifactPaths);
        }
      }
    });
  if (options.maxAgeDays !== undefined) {
    const cutoff = now - options.maxAgeDays * 86_400_000;
    await drop(
      (
        await db.query<{ id: string }>("SELECT id FROM sessions WHERE updated_at < $1 ORDER BY updated_at", [cutoff])
      ).rows.map((r) => r.id),
    );
  }
  if (options.expireArtifacts ?? true) {
    const rows = (
      await db.query<{ id: string; path: string | null }>(
        "DELETE FROM artifacts WHERE expires_at IS NOT NULL AND expires_at <= $1 RETURNING id, path",
        [now],
      )
    ).rows;
    for (const r of rows) {
      expiredArtifacts.push(r.id);
      if (r.path !== null) artifactPaths.push(r.path);
    }
  }
  if (options.maxBytes !== undefined) {
    for (;;) {
      const used = await usedBytes(db);
      if (used <= options.maxBytes) break;
      const count = (await db.query<{ n: number }>("SELECT COUNT(*) AS n FROM sessions")).rows[0]?.n ?? 0;
      if (count === 0) break;
      const batch = Math.max(1, Math.ceil(count * ((used - options.maxBytes) / used)));
      await drop(
        (await db.query<{ id: string }>("SELECT id FROM sessions ORDER BY updated_at, id LIMIT $1", [batch])).rows.map(
          (r) => r.id,
        ),
      );
    }
  }
  return { deletedSessions, expiredArtifacts, artifactPaths, bytesBefore, bytesAfter: await usedBytes(db) };
}

export async function stats(db: PgDb, since?: number): Promise<StoreStats> {
  const midnight = new Date();
  midnight.setHours(0, 0, 0, 0);
  const r = await db.query<{ sessions: number; messages: number; tool_calls: number; today: number }>(
    `SELECT (SELECT COUNT(*) FROM sessions) AS sessions, (SELECT COALESCE(SUM(message_count), 0)::bigint FROM sessions) AS messages,
       (SELECT COUNT(*) FROM tool_calls) AS tool_calls, (SELECT COUNT(*) FROM tool_calls WHERE created_at >= $1) AS today`,
    [since ?? midnight.getTime()],
  );
  const row = r.rows[0];
  return {
    sessions: row?.sessions ?? 0,
    messages: row?.messages ?? 0,
    toolCalls: row?.tool_calls ?? 0,
    actionsToday: row?.today ?? 0,
    dbBytes: await usedBytes(db),
    schemaVersion: PG_SCHEMA_VERSION,
  };
}

export async function countSessions(c: Queryable): Promise<number> {
  return (await c.query<{ n: number }>("SELECT COUNT(*) AS n FROM sessions")).rows[0]?.n ?? 0;
}

export async function countToolCallsSince(c: Queryable, since: number): Promise<number> {
  return (
    (await c.query<{ n: number }>("SELECT COUNT(*) AS n FROM tool_calls WHERE created_at >= $1", [since])).rows[0]?.n ??
    0
  );
}
