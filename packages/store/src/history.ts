// Browsing: session lists and paginated history. Read-only.
import type { Db } from "./db.js";
import { StoreError } from "./errors.js";
import { messageFromRow, sessionFromRow, subAgentRunFromRow, toolCallFromRow } from "./rows.js";
import type { Row } from "./rows.js";
import type { MessageRecord, SessionRecord, SessionSort, SubAgentRunRecord, ToolCallRecord } from "./types.js";

export interface ListSessionsOptions {
  limit?: number;
  offset?: number;
  sort?: SessionSort;
  /** Case-insensitive substring of the title. */
  titleFilter?: string;
}

export interface SessionPage {
  sessions: SessionRecord[];
  total: number;
}

export interface HistoryOptions {
  /** Messages per page, 1..1000, default 50. */
  limit?: number;
  /** Opaque; omit for the newest page, pass nextCursor for the page before it. */
  cursor?: string;
}

export interface HistoryPage {
  /** Oldest first within the page. */
  messages: MessageRecord[];
  /** Cursor of the next (older) page, or "" when this page reaches the first message. */
  nextCursor: string;
}

const ORDER: Record<SessionSort, string> = {
  updated_desc: "updated_at DESC, id DESC",
  updated_asc: "updated_at ASC, id ASC",
  created_desc: "created_at DESC, id DESC",
  created_asc: "created_at ASC, id ASC",
  title: "title COLLATE NOCASE ASC, id ASC",
};

export const SORTS = Object.keys(ORDER);

export function clampInt(value: number | undefined, fallback: number, min: number, max: number, field: string): number {
  if (value === undefined || value === 0) return fallback;
  if (!Number.isInteger(value) || value < min) {
    throw new StoreError("INVALID_ARGUMENT", `${field} must be an integer >= ${min}, got ${value}`);
  }
  return Math.min(value, max);
}

export function listSessions(db: Db, options: ListSessionsOptions = {}): SessionPage {
  const limit = clampInt(options.limit, 50, 1, 1000, "limit");
  const offset = options.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0)
    throw new StoreError("INVALID_ARGUMENT", `offset must be an integer >= 0, got ${offset}`);
  const order = ORDER[options.sort ?? "updated_desc"];
  if (order === undefined)
    throw new StoreError(
      "INVALID_ARGUMENT",
      `unknown sort ${JSON.stringify(options.sort)}: use one of ${Object.keys(ORDER).join(", ")}`,
    );
  const filter = options.titleFilter ?? "";
  if (filter === "") {
    const rows = db.stmt(`SELECT * FROM sessions ORDER BY ${order} LIMIT +? OFFSET +?`).all(limit, offset) as Row[];
    const total = (db.stmt("SELECT COUNT(*) AS n FROM sessions").get() as { n: number }).n;
    return { sessions: rows.map(sessionFromRow), total };
  }
  const like = `%${filter.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const rows = db
    .stmt(`SELECT * FROM sessions WHERE title LIKE +? ESCAPE '\\' ORDER BY ${order} LIMIT +? OFFSET +?`)
    .all(like, limit, offset) as Row[];
  const total = (
    db.stmt("SELECT COUNT(*) AS n FROM sessions WHERE title LIKE +? ESCAPE '\\'").get(like) as { n: number }
  ).n;
  return { sessions: rows.map(sessionFromRow), total };
}

export function getSession(db: Db, id: string): SessionRecord | null {
  const row = db.stmt("SELECT * FROM sessions WHERE id = ?").get(id) as Row | undefined;
  return row ? sessionFromRow(row) : null;
}

export function encodeCursor(beforeSeq: number): string {
  return Buffer.from(JSON.stringify({ v: 1, before: beforeSeq })).toString("base64url");
}

export function decodeCursor(cursor: string): number {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { v?: unknown; before?: unknown };
    if (parsed.v === 1 && typeof parsed.before === "number" && Number.isInteger(parsed.before) && parsed.before > 0)
      return parsed.before;
  } catch {
    // fall through to the error below
  }
  throw new StoreError(
    "BAD_CURSOR",
    `history cursor ${JSON.stringify(cursor.slice(0, 40))} is not one this store issued: pass nextCursor from a previous page, or omit it for the newest page`,
  );
}

function attachToolCalls(messages: MessageRecord[], calls: ToolCallRecord[]): void {
  const byMessage = new Map(messages.map((m) => [m.id, m]));
  for (const c of calls) byMessage.get(c.messageId)?.toolCalls.push(c);
}

/** Newest page first; within a page messages are oldest first, with their tool calls attached. */
export function getHistory(db: Db, sessionId: string, options: HistoryOptions = {}): HistoryPage {
  const limit = clampInt(options.limit, 50, 1, 1000, "limit");
  const before = options.cursor ? decodeCursor(options.cursor) : Number.MAX_SAFE_INTEGER;
  const rows = db
    .stmt(
      `SELECT * FROM messages WHERE session_id = +? AND sub_agent_run_id IS NULL AND seq < ? ORDER BY seq DESC LIMIT +?`,
    )
    .all(sessionId, before, limit + 1) as Row[];
  const more = rows.length > limit;
  const page = rows
    .slice(0, limit)
    .reverse()
    .map((r) => messageFromRow(r, []));
  const first = page[0];
  const lastMsg = page[page.length - 1];
  if (first && lastMsg) {
    // By the page's message ids (the UNIQUE (message_id, call_id) index): no second walk of the messages.
    const calls = db
      .stmt(`SELECT * FROM tool_calls WHERE message_id IN (SELECT value FROM json_each(?)) ORDER BY pk`)
      .all(JSON.stringify(page.map((m) => m.id))) as Row[];
    attachToolCalls(page, calls.map(toolCallFromRow));
  }
  return { messages: page, nextCursor: more && first ? encodeCursor(first.seq) : "" };
}

export function listSubAgentRuns(db: Db, sessionId: string): SubAgentRunRecord[] {
  const rows = db
    .stmt("SELECT * FROM sub_agent_runs WHERE session_id = ? ORDER BY started_at, id")
    .all(sessionId) as Row[];
  return rows.map(subAgentRunFromRow);
}

/** The transcript of one sub-agent run: its messages (oldest first) with their tool calls. */
export function getSubAgentTranscript(db: Db, runId: string): MessageRecord[] {
  const messages = (db.stmt("SELECT * FROM messages WHERE sub_agent_run_id = ? ORDER BY seq").all(runId) as Row[]).map(
    (r) => messageFromRow(r, []),
  );
  const calls = (db.stmt("SELECT * FROM tool_calls WHERE sub_agent_run_id = ? ORDER BY pk").all(runId) as Row[]).map(
    toolCallFromRow,
  );
  attachToolCalls(messages, calls);
  return messages;
}
