// Full-text search over message text and tool calls (name, arguments, result), bm25-ranked,
// with highlighted snippets. Read-only.
import type { Db } from "./db.js";
import { StoreError } from "./errors.js";
import { buildFtsQuery } from "./fts-query.js";
import { clampInt } from "./history.js";
import type { Role, SearchHit, VerdictDecision } from "./types.js";

export interface SearchOptions {
  sessionId?: string;
  /** Inclusive lower bound on created_at (unix ms). */
  from?: number;
  /** Exclusive upper bound on created_at (unix ms). */
  to?: number;
  /** "tool" also matches tool calls; other roles match messages only. */
  role?: Role;
  /** Only tool calls of this tool. */
  toolName?: string;
  /** Only tool calls with this Shield decision. */
  decision?: VerdictDecision;
  /** Default 20, at most 200. */
  limit?: number;
  offset?: number;
  /** Count all matches (costs a second pass over the matches). Default true. */
  withTotal?: boolean;
}

export interface SearchResult {
  hits: SearchHit[];
  total: number;
}

const SNIPPET_TOKENS = 12;

interface Filters {
  where: string[];
  params: unknown[];
}

function messageFilters(o: SearchOptions): Filters {
  const where: string[] = [];
  const params: unknown[] = [];
  if (o.sessionId !== undefined) { where.push("m.session_id = ?"); params.push(o.sessionId); }
  if (o.from !== undefined) { where.push("m.created_at >= ?"); params.push(o.from); }
  if (o.to !== undefined) { where.push("m.created_at < ?"); params.push(o.to); }
  if (o.role !== undefined) { where.push("m.role = ?"); params.push(o.role); }
  return { where, params };
}

function toolFilters(o: SearchOptions): Filters {
  const where: string[] = [];
  const params: unknown[] = [];
  if (o.sessionId !== undefined) { where.push("t.session_id = ?"); params.push(o.sessionId); }
  if (o.from !== undefined) { where.push("t.created_at >= ?"); params.push(o.from); }
  if (o.to !== undefined) { where.push("t.created_at < ?"); params.push(o.to); }
  if (o.toolName !== undefined) { where.push("t.tool_name = ?"); params.push(o.toolName); }
  if (o.decision !== undefined) { where.push("t.verdict_decision = ?"); params.push(o.decision); }
  return { where, params };
}

interface MessageHitRow { id: string; session_id: string; seq: number; role: string; created_at: number; title: string | null; score: number; snippet: string | null }
interface ToolHitRow { call_id: string; tool_name: string; message_id: string; session_id: string; created_at: number; seq: number; title: string | null; score: number; snippet: string | null }

const and = (where: string[]): string => where.map((w) => ` AND ${w}`).join("");

function searchMessages(db: Db, match: string, o: SearchOptions, n: number, withTotal: boolean): { hits: SearchHit[]; total: number } {
  const f = messageFilters(o);
  // With a session filter, walk that session's messages and probe the index per row; otherwise
  // let FTS5 drive in rank order. Both are far cheaper than the other way round.
  const from = o.sessionId !== undefined
    ? "messages m CROSS JOIN messages_fts ON messages_fts.rowid = m.pk"
    : "messages_fts JOIN messages m ON m.pk = messages_fts.rowid";
  // Rank first, then build snippets for the page only (a snippet per match would cost more than the search).
  const rows = db.stmt(
    `WITH top AS MATERIALIZED (
       SELECT m.pk AS pk, messages_fts.rank AS score FROM ${from}
       WHERE messages_fts MATCH ?${and(f.where)} ORDER BY messages_fts.rank LIMIT ?)
     SELECT m.id, m.session_id, m.seq, m.role, m.created_at, s.title, top.score,
       snippet(messages_fts, 0, '[', ']', '…', ${SNIPPET_TOKENS}) AS snippet
     FROM top CROSS JOIN messages_fts ON messages_fts.rowid = top.pk CROSS JOIN messages m ON m.pk = top.pk
       JOIN sessions s ON s.id = m.session_id
     WHERE messages_fts MATCH ? ORDER BY top.score`,
  ).all(match, ...f.params, n, match) as MessageHitRow[];
  const total = withTotal
    ? (db.stmt(`SELECT COUNT(*) AS n FROM ${from} WHERE messages_fts MATCH ?${and(f.where)}`).get(match, ...f.params) as { n: number }).n
    : rows.length;
  return {
    total,
    hits: rows.map((r) => ({
      sessionId: r.session_id, sessionTitle: r.title ?? "", messageId: r.id, callId: "", toolName: "",
      role: r.role, snippet: r.snippet ?? "", rank: r.score, createdAt: r.created_at, seq: r.seq,
    })),
  };
}

function searchToolCalls(db: Db, match: string, o: SearchOptions, n: number, withTotal: boolean): { hits: SearchHit[]; total: number } {
  const f = toolFilters(o);
  const from = o.sessionId !== undefined
    ? "tool_calls t CROSS JOIN tool_calls_fts ON tool_calls_fts.rowid = t.pk"
    : "tool_calls_fts JOIN tool_calls t ON t.pk = tool_calls_fts.rowid";
  const rows = db.stmt(
    `WITH top AS MATERIALIZED (
       SELECT t.pk AS pk, tool_calls_fts.rank AS score FROM ${from}
       WHERE tool_calls_fts MATCH ?${and(f.where)} ORDER BY tool_calls_fts.rank LIMIT ?)
     SELECT t.call_id, t.tool_name, t.message_id, t.session_id, t.created_at, m.seq, s.title, top.score,
       snippet(tool_calls_fts, -1, '[', ']', '…', ${SNIPPET_TOKENS}) AS snippet
     FROM top CROSS JOIN tool_calls_fts ON tool_calls_fts.rowid = top.pk CROSS JOIN tool_calls t ON t.pk = top.pk
       JOIN messages m ON m.id = t.message_id JOIN sessions s ON s.id = t.session_id
     WHERE tool_calls_fts MATCH ? ORDER BY top.score`,
  ).all(match, ...f.params, n, match) as ToolHitRow[];
  const total = withTotal
    ? (db.stmt(`SELECT COUNT(*) AS n FROM ${from} WHERE tool_calls_fts MATCH ?${and(f.where)}`).get(match, ...f.params) as { n: number }).n
    : rows.length;
  return {
    total,
    hits: rows.map((r) => ({
      sessionId: r.session_id, sessionTitle: r.title ?? "", messageId: r.message_id, callId: r.call_id,
      toolName: r.tool_name, role: "tool", snippet: r.snippet ?? "", rank: r.score, createdAt: r.created_at, seq: r.seq,
    })),
  };
}

/** Searches messages and tool calls; hits of both kinds are merged by bm25 (best first). */
export function search(db: Db, query: string, options: SearchOptions = {}): SearchResult {
  const limit = clampInt(options.limit, 20, 1, 200, "limit");
  const offset = options.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0) throw new StoreError("INVALID_ARGUMENT", `offset must be an integer >= 0, got ${offset}`);
  const { match } = buildFtsQuery(query);
  if (match === "") return { hits: [], total: 0 };
  const withTotal = options.withTotal ?? true;
  const n = offset + limit;
  const wantMessages = options.toolName === undefined && options.decision === undefined;
  const wantTools = options.role === undefined || options.role === "tool";
  const parts = [
    wantMessages ? searchMessages(db, match, options, n, withTotal) : { hits: [], total: 0 },
    wantTools ? searchToolCalls(db, match, options, n, withTotal) : { hits: [], total: 0 },
  ];
  const hits = parts.flatMap((p) => p.hits).sort((a, b) => a.rank - b.rank || b.createdAt - a.createdAt);
  return { hits: hits.slice(offset, offset + limit), total: parts.reduce((t, p) => t + p.total, 0) };
}
