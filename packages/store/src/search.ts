// Full-text search over message text and tool calls (name, arguments, result), bm25-ranked,
// with highlighted snippets. Read-only.
//
// Cost control: FTS5's bm25() is exact but scans every row of every phrase (IDF) and scores
// every match. When each phrase is in fewer than RARE rows that is cheap and used as is; when a
// phrase is common, the newest WINDOW matches (after filters) are ranked with the same formula
// in JS (rank.ts) and the total is reported as a lower bound.
import type { Db } from "./db.js";
import { StoreError } from "./errors.js";
import { buildFtsQuery } from "./fts-query.js";
import type { ParsedQuery } from "./fts-query.js";
import { clampInt } from "./history.js";
import { bm25Scores, phraseOf } from "./rank.js";
import type { RankPhrase } from "./rank.js";
import { snippet } from "./snippet.js";
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
}

export interface SearchResult {
  hits: SearchHit[];
  /** Number of matches; a lower bound when `totalIsLowerBound`. */
  total: number;
  /** True when a common term limited ranking to the newest matches. */
  totalIsLowerBound: boolean;
}

export const RARE = 500;
export const WINDOW = 200;

interface Side {
  fts: "messages_fts" | "tool_calls_fts";
  table: string;
  alias: "m" | "t";
  /** Text the JS ranker scores (the FTS columns). */
  text: string;
  where(o: SearchOptions): { sql: string; params: unknown[] };
  /** The hits of these pks (any order), snippets included, in one query. */
  hits(db: Db, pks: number[], phrases: RankPhrase[]): Map<number, SearchHit>;
}

function filters(alias: string, o: SearchOptions, extra: Array<[string, unknown]>): { sql: string; params: unknown[] } {
  const conds: Array<[string, unknown]> = [];
  if (o.sessionId !== undefined) conds.push([`${alias}.session_id = ?`, o.sessionId]);
  if (o.from !== undefined) conds.push([`${alias}.created_at >= ?`, o.from]);
  if (o.to !== undefined) conds.push([`${alias}.created_at < ?`, o.to]);
  conds.push(...extra);
  return { sql: conds.map(([c]) => ` AND ${c}`).join(""), params: conds.map(([, v]) => v) };
}

interface MessageHitRow {
  pk: number;
  id: string;
  session_id: string;
  seq: number;
  role: string;
  created_at: number;
  title: string | null;
  content: string;
}
interface ToolHitRow {
  pk: number;
  call_id: string;
  tool_name: string;
  message_id: string;
  session_id: string;
  created_at: number;
  seq: number;
  title: string | null;
  arguments_json: string;
  result: string | null;
}

/** pks as a JSON array for `IN (SELECT value FROM json_each(?))`: one statement for any number of hits. */
const PKS = "(SELECT value FROM json_each(?))";

const MESSAGES: Side = {
  fts: "messages_fts",
  table: "messages",
  alias: "m",
  text: "m.content",
  where: (o) => filters("m", o, o.role !== undefined ? [["m.role = ?", o.role]] : []),
  hits(db, pks, phrases) {
    const rows = db
      .stmt(
        `SELECT m.pk, m.id, m.session_id, m.seq, m.role, m.created_at, m.content, s.title FROM messages m JOIN sessions s ON s.id = m.session_id WHERE m.pk IN ${PKS}`,
      )
      .all(JSON.stringify(pks)) as MessageHitRow[];
    return new Map(
      rows.map((r) => [
        r.pk,
        {
          sessionId: r.session_id,
          sessionTitle: r.title ?? "",
          messageId: r.id,
          callId: "",
          toolName: "",
          role: r.role,
          snippet: snippet([r.content], phrases),
          rank: 0,
          createdAt: r.created_at,
          seq: r.seq,
        },
      ]),
    );
  },
};

const TOOL_CALLS: Side = {
  fts: "tool_calls_fts",
  table: "tool_calls",
  alias: "t",
  text: "t.tool_name || ' ' || t.arguments_json || ' ' || COALESCE(t.result, '')",
  where: (o) => {
    const extra: Array<[string, unknown]> = [];
    if (o.toolName !== undefined) extra.push(["t.tool_name = ?", o.toolName]);
    if (o.decision !== undefined) extra.push(["t.verdict_decision = ?", o.decision]);
    return filters("t", o, extra);
  },
  hits(db, pks, phrases) {
    const rows = db
      .stmt(
        `SELECT t.pk, t.call_id, t.tool_name, t.message_id, t.session_id, t.created_at, t.arguments_json, t.result, m.seq, s.title
       FROM tool_calls t JOIN messages m ON m.id = t.message_id JOIN sessions s ON s.id = t.session_id WHERE t.pk IN ${PKS}`,
      )
      .all(JSON.stringify(pks)) as ToolHitRow[];
    return new Map(
      rows.map((r) => [
        r.pk,
        {
          sessionId: r.session_id,
          sessionTitle: r.title ?? "",
          messageId: r.message_id,
          callId: r.call_id,
          toolName: r.tool_name,
          role: "tool",
          snippet: snippet([r.tool_name, r.arguments_json, r.result], phrases),
          rank: 0,
          createdAt: r.created_at,
          seq: r.seq,
        },
      ]),
    );
  },
};

interface SideResult {
  hits: SearchHit[];
  total: number;
  lowerBound: boolean;
}

/** pks in CAST: FTS5 ignores a rowid constraint whose value is not an INTEGER, and better-sqlite3 binds JS numbers as REAL. */
function searchSide(db: Db, side: Side, q: ParsedQuery, o: SearchOptions, n: number): SideResult {
  const { fts, table, alias } = side;
  let lo = 0;
  let hi = Number.MAX_SAFE_INTEGER;
  if (o.sessionId !== undefined) {
    // A session's rows lie in a pk window: FTS5 seeks to it instead of walking every match.
    const r = db.stmt(`SELECT MIN(pk) AS lo, MAX(pk) AS hi FROM ${table} WHERE session_id = +?`).get(o.sessionId) as {
      lo: number | null;
      hi: number | null;
    };
    if (r.lo === null || r.hi === null) return { hits: [], total: 0, lowerBound: false };
    lo = r.lo;
    hi = r.hi;
  }
  const w = side.where(o);
  const base = `FROM ${fts} JOIN ${table} ${alias} ON ${alias}.pk = ${fts}.rowid WHERE ${fts} MATCH ? AND ${fts}.rowid BETWEEN CAST(? AS INTEGER) AND CAST(? AS INTEGER)${w.sql}`;
  const params = [q.match, lo, hi, ...w.params];
  const df = q.parts.map(
    (part) =>
      db
        .stmt(`SELECT COUNT(*) FROM (SELECT 1 FROM ${fts} WHERE ${fts} MATCH ? LIMIT ${RARE})`)
        .pluck()
        .get(part) as number,
  );
  const phrases = q.terms.map((t, i) => phraseOf(t, q.prefixes[i] ?? false));
  let ranked: Array<{ pk: number; rank: number }>;
  let total: number;
  let lowerBound = false;
  if (df.every((d) => d < RARE)) {
    // Fewer than RARE matches: all of them with FTS5's exact bm25, counted and sorted here.
    const all = db.stmt(`SELECT ${alias}.pk AS pk, ${fts}.rank AS rank ${base}`).all(...params) as typeof ranked;
    total = all.length;
    ranked = all.sort((a, b) => a.rank - b.rank || b.pk - a.pk).slice(0, n);
  } else {
    const rows = db
      .stmt(`SELECT ${alias}.pk AS pk, ${side.text} AS body ${base} ORDER BY ${fts}.rowid DESC LIMIT ${WINDOW}`)
      .all(...params) as Array<{ pk: number; body: string }>;
    const totalDocs = (db.stmt(`SELECT MAX(pk) FROM ${table}`).pluck().get() as number | null) ?? rows.length;
    const scores = bm25Scores(
      rows.map((r) => r.body),
      phrases,
      df,
      totalDocs,
    );
    ranked = rows
      .map((r, i) => ({ pk: r.pk, rank: -(scores[i] ?? 0) }))
      .sort((a, b) => a.rank - b.rank || b.pk - a.pk)
      .slice(0, n);
    total = rows.length;
    lowerBound = rows.length === WINDOW;
  }
  const byPk =
    ranked.length > 0
      ? side.hits(
          db,
          ranked.map((r) => r.pk),
          phrases,
        )
      : new Map<number, SearchHit>();
  const hits: SearchHit[] = [];
  for (const r of ranked) {
    const h = byPk.get(r.pk);
    if (h) hits.push({ ...h, rank: r.rank });
  }
  return { hits, total, lowerBound };
}

/** Searches messages and tool calls; hits of both kinds are merged by bm25 (best first). */
export function search(db: Db, query: string, options: SearchOptions = {}): SearchResult {
  const limit = clampInt(options.limit, 20, 1, 200, "limit");
  const offset = options.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0)
    throw new StoreError("INVALID_ARGUMENT", `offset must be an integer >= 0, got ${offset}`);
  const q = buildFtsQuery(query);
  if (q.match === "") return { hits: [], total: 0, totalIsLowerBound: false };
  const n = offset + limit;
  const wantMessages = options.toolName === undefined && options.decision === undefined;
  const wantTools = options.role === undefined || options.role === "tool";
  const none: SideResult = { hits: [], total: 0, lowerBound: false };
  const parts = [
    wantMessages ? searchSide(db, MESSAGES, q, options, n) : none,
    wantTools ? searchSide(db, TOOL_CALLS, q, options, n) : none,
  ];
  const hits = parts.flatMap((p) => p.hits).sort((a, b) => a.rank - b.rank || b.createdAt - a.createdAt);
  return {
    hits: hits.slice(offset, offset + limit),
    total: parts.reduce((t, p) => t + p.total, 0),
    totalIsLowerBound: parts.some((p) => p.lowerBound),
  };
}
