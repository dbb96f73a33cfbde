// Append-style records attached to a session: pipeline events, memory flushes, artifacts.
import type { Db } from "./db.js";
import { StoreError, notFound } from "./errors.js";
import type { NewArtifact, NewEvent, NewMemory } from "./inputs.js";
import { ARTIFACT_INSERT_COLUMNS, artifactValues } from "./new-rows.js";
import { artifactFromRow, eventFromRow, memoryFromRow } from "./rows.js";
import type { ArtifactRecord, EventRecord, MemoryRecord } from "./types.js";

function fkError(cause: unknown, what: string, sessionId: string): never {
  if ((cause as { code?: string }).code === "SQLITE_CONSTRAINT_FOREIGNKEY") throw notFound("session", sessionId);
  throw new StoreError("INVALID_ARGUMENT", `cannot store ${what}: ${(cause as Error).message}`, { cause });
}

/** Appends a pipeline event; the store assigns the per-session seq (1, 2, ...). */
export function appendEvent(db: Db, input: NewEvent): EventRecord {
  return db.tx(() => insertEvent(db, input, nextEventSeq(db, input.sessionId)));
}

export function nextEventSeq(db: Db, sessionId: string): number {
  // `= +?`, not `= ?`: see "Plans that stay prepared" in db.ts.
  const last = db.stmt("SELECT MAX(seq) AS s FROM events WHERE session_id = +?").get(sessionId) as { s: number | null };
  return (last.s ?? 0) + 1;
}

/** Inserts an event at `seq` (the caller's transaction assigns seqs). */
export function insertEvent(db: Db, input: NewEvent, seq: number): EventRecord {
  const payload = typeof input.payload === "string" ? input.payload : JSON.stringify(input.payload ?? {});
  const createdAt = input.createdAt ?? Date.now();
  try {
    db.stmt(
      "INSERT INTO events (session_id, seq, message_id, type, payload, created_at) VALUES (?, ?, ?, ?, ?, ?)",
    ).run(input.sessionId, seq, input.messageId ?? "", input.type, payload, createdAt);
  } catch (cause) {
    fkError(cause, "event", input.sessionId);
  }
  return { sessionId: input.sessionId, seq, messageId: input.messageId ?? "", type: input.type, payload, createdAt };
}

export function listEvents(db: Db, sessionId: string, afterSeq = 0, limit = 1000): EventRecord[] {
  const rows = db
    .stmt("SELECT * FROM events WHERE session_id = +? AND seq > ? ORDER BY seq LIMIT +?")
    .all(sessionId, afterSeq, limit);
  return (rows as Array<Record<string, unknown>>).map(eventFromRow);
}

/** The newest event of a session (highest seq), or null. */
export function lastEvent(db: Db, sessionId: string): EventRecord | null {
  const row = db.stmt("SELECT * FROM events WHERE session_id = +? ORDER BY seq DESC LIMIT 1").get(sessionId) as
    Record<string, unknown> | undefined;
  return row ? eventFromRow(row) : null;
}

export function appendMemory(db: Db, input: NewMemory): MemoryRecord {
  const createdAt = input.createdAt ?? Date.now();
  try {
    db.stmt(
      "INSERT INTO memory (session_id, message_id, content, summary, compacted_messages, created_at) VALUES (?, ?, ?, ?, ?, ?)",
    ).run(
      input.sessionId,
      input.messageId ?? "",
      input.content,
      input.summary ?? "",
      input.compactedMessages ?? 0,
      createdAt,
    );
  } catch (cause) {
    fkError(cause, "memory", input.sessionId);
  }
  return {
    sessionId: input.sessionId,
    messageId: input.messageId ?? "",
    content: input.content,
    summary: input.summary ?? "",
    compactedMessages: input.compactedMessages ?? 0,
    createdAt,
  };
}

export function listMemory(db: Db, sessionId: string): MemoryRecord[] {
  // Read at every turn (the system prompt); `= +?`, not `= ?`: see "Plans that stay prepared" in db.ts.
  return (
    db.stmt("SELECT * FROM memory WHERE session_id = +? ORDER BY pk").all(sessionId) as Array<Record<string, unknown>>
  ).map(memoryFromRow);
}

const ARTIFACT_COLUMNS =
  "id, session_id, owner, call_id, filename, mime_type, size_bytes, sha256, path, data IS NOT NULL AS has_data, created_at, expires_at";

export function recordArtifact(db: Db, input: NewArtifact): ArtifactRecord {
  const { id, values } = artifactValues(input);
  try {
    db.stmt(
      `INSERT INTO artifacts (${ARTIFACT_INSERT_COLUMNS.join(", ")}) VALUES (${ARTIFACT_INSERT_COLUMNS.map(() => "?").join(", ")})`,
    ).run(values);
  } catch (cause) {
    fkError(cause, `artifact ${input.filename}`, input.sessionId ?? "");
  }
  return getArtifact(db, id);
}

export function getArtifact(db: Db, id: string): ArtifactRecord {
  const row = db.stmt(`SELECT ${ARTIFACT_COLUMNS} FROM artifacts WHERE id = ?`).get(id) as
    Record<string, unknown> | undefined;
  if (!row) throw notFound("artifact", id);
  return artifactFromRow(row);
}

export function getArtifactData(db: Db, id: string): Buffer | null {
  const row = db.stmt("SELECT data FROM artifacts WHERE id = ?").get(id) as { data: Buffer | null } | undefined;
  if (!row) throw notFound("artifact", id);
  return row.data;
}

export function listArtifacts(db: Db, sessionId: string): ArtifactRecord[] {
  const rows = db
    .stmt(`SELECT ${ARTIFACT_COLUMNS} FROM artifacts WHERE session_id = ? ORDER BY created_at, id`)
    .all(sessionId);
  return (rows as Array<Record<string, unknown>>).map(artifactFromRow);
}
