// Events, memory and artifacts on PostgreSQL (../records.ts on SQLite).
import { notFound } from "../errors.js";
import { ARTIFACT_INSERT_COLUMNS, artifactValues } from "../new-rows.js";
import { artifactFromRow, eventFromRow, memoryFromRow } from "../rows.js";
import type { Row } from "../rows.js";
import type { NewArtifact, NewEvent, NewMemory } from "../inputs.js";
import type { ArtifactRecord, EventRecord, MemoryRecord } from "../types.js";
import type { Queryable } from "./db.js";
import { mapPgError } from "./errors.js";

export async function nextEventSeq(c: Queryable, sessionId: string): Promise<number> {
  const r = await c.query<{ s: number | null }>("SELECT MAX(seq) AS s FROM events WHERE session_id = $1", [sessionId]);
  return (r.rows[0]?.s ?? 0) + 1;
}

export async function insertEvent(c: Queryable, input: NewEvent, seq: number): Promise<EventRecord> {
  const payload = typeof input.payload === "string" ? input.payload : JSON.stringify(input.payload ?? {});
  const createdAt = input.createdAt ?? Date.now();
  try {
    await c.query(
      "INSERT INTO events (session_id, seq, message_id, type, payload, created_at) VALUES ($1, $2, $3, $4, $5, $6)",
      [input.sessionId, seq, input.messageId ?? "", input.type, payload, createdAt],
    );
  } catch (cause) {
    mapPgError(cause, {
      missing: `session ${JSON.stringify(input.sessionId)} does not exist (deleted, or never created in this store)`,
    });
  }
  return { sessionId: input.sessionId, seq, messageId: input.messageId ?? "", type: input.type, payload, createdAt };
}

/** Events at consecutive seqs from `firstSeq`, in one statement (a turn writes several). */
export async function insertEvents(
  c: Queryable,
  inputs: readonly NewEvent[],
  firstSeq: number,
): Promise<EventRecord[]> {
  if (inputs.length === 0) return [];
  const now = Date.now();
  const rows: EventRecord[] = inputs.map((e, i) => ({
    sessionId: e.sessionId,
    seq: firstSeq + i,
    messageId: e.messageId ?? "",
    type: e.type,
    payload: typeof e.payload === "string" ? e.payload : JSON.stringify(e.payload ?? {}),
    createdAt: e.createdAt ?? now,
  }));
  const values: unknown[] = [];
  const tuples = rows.map((r) => {
    const n = values.push(r.sessionId, r.seq, r.messageId, r.type, r.payload, r.createdAt);
    return `($${String(n - 5)}, $${String(n - 4)}, $${String(n - 3)}, $${String(n - 2)}, $${String(n - 1)}, $${String(n)})`;
  });
  try {
    await c.query(
      `INSERT INTO events (session_id, seq, message_id, type, payload, created_at) VALUES ${tuples.join(", ")}`,
      values,
    );
  } catch (cause) {
    mapPgError(cause, {
      missing: `session ${JSON.stringify(rows[0]?.sessionId ?? "")} does not exist (deleted, or never created in this store)`,
    });
  }
  return rows;
}

export async function listEvents(c: Queryable, sessionId: string, afterSeq = 0, limit = 1000): Promise<EventRecord[]> {
  const r = await c.query<Row>("SELECT * FROM events WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3", [
    sessionId,
    afterSeq,
    limit,
  ]);
  return r.rows.map(eventFromRow);
}

export async function lastEvent(c: Queryable, sessionId: string): Promise<EventRecord | null> {
  const r = await c.query<Row>("SELECT * FROM events WHERE session_id = $1 ORDER BY seq DESC LIMIT 1", [sessionId]);
  return r.rows[0] ? eventFromRow(r.rows[0]) : null;
}

export async function appendMemory(c: Queryable, input: NewMemory): Promise<MemoryRecord> {
  const createdAt = input.createdAt ?? Date.now();
  try {
    await c.query(
      "INSERT INTO memory (session_id, message_id, content, summary, compacted_messages, created_at) VALUES ($1, $2, $3, $4, $5, $6)",
      [
        input.sessionId,
        input.messageId ?? "",
        input.content,
        input.summary ?? "",
        input.compactedMessages ?? 0,
        createdAt,
      ],
    );
  } catch (cause) {
    mapPgError(cause, {
      missing: `session ${JSON.stringify(input.sessionId)} does not exist (deleted, or never created in this store)`,
    });
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

export async function listMemory(c: Queryable, sessionId: string): Promise<MemoryRecord[]> {
  return (await c.query<Row>("SELECT * FROM memory WHERE session_id = $1 ORDER BY pk", [sessionId])).rows.map(
    memoryFromRow,
  );
}

const ARTIFACT_COLUMNS =
  "id, session_id, owner, call_id, filename, mime_type, size_bytes, sha256, path, (data IS NOT NULL)::int AS has_data, created_at, expires_at";

export async function recordArtifact(c: Queryable, input: NewArtifact): Promise<ArtifactRecord> {
  const { id, values } = artifactValues(input);
  try {
    await c.query(
      `INSERT INTO artifacts (${ARTIFACT_INSERT_COLUMNS.join(", ")}) VALUES (${ARTIFACT_INSERT_COLUMNS.map((_, i) => `$${String(i + 1)}`).join(", ")})`,
      values,
    );
  } catch (cause) {
    mapPgError(cause, {
      missing: `session ${JSON.stringify(input.sessionId ?? "")} does not exist (deleted, or never created in this store)`,
      conflict: `artifact ${id} already exists`,
    });
  }
  return getArtifact(c, id);
}

export async function getArtifact(c: Queryable, id: string): Promise<ArtifactRecord> {
  const r = await c.query<Row>(`SELECT ${ARTIFACT_COLUMNS} FROM artifacts WHERE id = $1`, [id]);
  if (!r.rows[0]) throw notFound("artifact", id);
  return artifactFromRow(r.rows[0]);
}

export async function getArtifactData(c: Queryable, id: string): Promise<Buffer | null> {
  const r = await c.query<{ data: Buffer | null }>("SELECT data FROM artifacts WHERE id = $1", [id]);
  if (!r.rows[0]) throw notFound("artifact", id);
  return r.rows[0].data;
}

export async function listArtifacts(c: Queryable, sessionId: string): Promise<ArtifactRecord[]> {
  return (
    await c.query<Row>(`SELECT ${ARTIFACT_COLUMNS} FROM artifacts WHERE session_id = $1 ORDER BY created_at, id`, [
      sessionId,
    ])
  ).rows.map(artifactFromRow);
}
