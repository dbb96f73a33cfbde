// Deleting sessions, retention, statistics.
import { statSync } from "node:fs";
import type { Db } from "./db.js";

export interface DeleteResult {
  deleted: boolean;
  /** Files of the session's artifacts: the caller deletes them after the rows are gone. */
  artifactPaths: string[];
}

export interface RetentionOptions {
  /** Delete sessions not updated for this many days. */
  maxAgeDays?: number;
  /** Delete the least recently updated sessions until the database holds at most this many bytes. */
  maxBytes?: number;
  /** Also drop artifact rows whose expires_at has passed (default true). */
  expireArtifacts?: boolean;
  now?: number;
}

export interface RetentionResult {
  deletedSessions: string[];
  expiredArtifacts: string[];
  artifactPaths: string[];
  bytesBefore: number;
  bytesAfter: number;
}

export interface StoreStats {
  sessions: number;
  messages: number;
  toolCalls: number;
  /** Tool calls created since `since` (default: local midnight today). */
  actionsToday: number;
  /** Main file plus WAL, in bytes. */
  dbBytes: number;
  schemaVersion: number;
}

/** Deletes a session and, by cascade, its messages, tool calls, events, memory, artifacts and sub-agent runs. */
export function deleteSession(db: Db, id: string): DeleteResult {
  return db.tx(() => {
    const paths = db
      .stmt("SELECT path FROM artifacts WHERE session_id = ? AND path IS NOT NULL")
      .pluck()
      .all(id) as string[];
    const r = db.stmt("DELETE FROM sessions WHERE id = ?").run(id);
    return { deleted: r.changes > 0, artifactPaths: r.changes > 0 ? paths : [] };
  });
}

/** Bytes in use by live pages (the file itself only shrinks when freed pages are vacuumed). */
export function usedBytes(db: Db): number {
  const pageSize = db.raw.pragma("page_size", { simple: true }) as number;
  const pages = db.raw.pragma("page_count", { simple: true }) as number;
  const free = db.raw.pragma("freelist_count", { simple: true }) as number;
  return (pages - free) * pageSize;
}

const FTS_MERGE_PAGES = 500;

export function applyRetention(db: Db, options: RetentionOptions): RetentionResult {
  const now = options.now ?? Date.now();
  const bytesBefore = usedBytes(db);
  const deletedSessions: string[] = [];
  const artifactPaths: string[] = [];
  const expiredArtifacts: string[] = [];
  const drop = (ids: string[]): void => {
    db.tx(() => {
      for (const id of ids) {
        const r = deleteSession(db, id);
        if (r.deleted) {
          deletedSessions.push(id);
          artifactPaths.push(...r.artifactPaths);
        }
      }
    });
  };
  if (options.maxAgeDays !== undefined) {
    const cutoff = now - options.maxAgeDays * 86_400_000;
    drop(db.stmt("SELECT id FROM sessions WHERE updated_at < ? ORDER BY updated_at").pluck().all(cutoff) as string[]);
  }
  if (options.expireArtifacts ?? true) {
    db.tx(() => {
      const rows = db
        .stmt("SELECT id, path FROM artifacts WHERE expires_at IS NOT NULL AND expires_at <= ?")
        .all(now) as Array<{ id: string; path: string | null }>;
      for (const r of rows) {
        expiredArtifacts.push(r.id);
        if (r.path !== null) artifactPaths.push(r.path);
      }
      db.stmt("DELETE FROM artifacts WHERE expires_at IS NOT NULL AND expires_at <= ?").run(now);
    });
  }
  if (options.maxBytes !== undefined) {
    // Oldest first, in batches sized from the average session, re-measuring after each batch.
    for (;;) {
      const used = usedBytes(db);
      if (used <= options.maxBytes) break;
      const count = db.stmt("SELECT COUNT(*) FROM sessions").pluck().get() as number;
      if (count === 0) break;
      const batch = Math.max(1, Math.ceil(count * ((used - options.maxBytes) / used)));
      drop(db.stmt("SELECT id FROM sessions ORDER BY updated_at, id LIMIT +?").pluck().all(batch) as string[]);
      // FTS5 records deletes as new index entries (more of them with prefix indexes) and frees
      // space only when segments merge: a bounded merge (-N: merge even small levels, ~N pages
      // of work) makes the next measure see freed space instead of deleting more sessions.
      for (const fts of ["messages_fts", "tool_calls_fts"])
        db.stmt(`INSERT INTO ${fts} (${fts}, rank) VALUES ('merge', -${FTS_MERGE_PAGES})`).run();
    }
  }
  if (deletedSessions.length > 0 || expiredArtifacts.length > 0) {
    db.raw.pragma("incremental_vacuum");
    db.raw.pragma("wal_checkpoint(TRUNCATE)");
  }
  return { deletedSessions, expiredArtifacts, artifactPaths, bytesBefore, bytesAfter: usedBytes(db) };
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

export function stats(db: Db, since?: number): StoreStats {
  const midnight = new Date();
  midnight.setHours(0, 0, 0, 0);
  const count = (sql: string, ...params: unknown[]): number =>
    db
      .stmt(sql)
      .pluck()
      .get(...params) as number;
  const file = db.raw.name;
  return {
    sessions: count("SELECT COUNT(*) FROM sessions"),
    messages: count("SELECT COALESCE(SUM(message_count), 0) FROM sessions"),
    toolCalls: count("SELECT COUNT(*) FROM tool_calls"),
    actionsToday: count("SELECT COUNT(*) FROM tool_calls WHERE created_at >= ?", since ?? midnight.getTime()),
    dbBytes: file === ":memory:" || file === "" ? usedBytes(db) : fileSize(file) + fileSize(`${file}-wal`),
    schemaVersion: db.raw.pragma("user_version", { simple: true }) as number,
  };
}
