// Full-text search on PostgreSQL: a GIN index over each row's tsvector (fts-vector.ts), ts_rank
// for ranking, and the same snippets as the SQLite store (snippet.ts, FTS5's algorithm over the
// text read for the hit).
import { StoreError } from "../errors.js";
import { buildFtsQuery } from "../fts-query.js";
import { clampInt } from "../history.js";
import { phraseOf } from "../rank.js";
import type { RankPhrase } from "../rank.js";
import { RARE, WINDOW } from "../search.js";
import type { SearchOptions, SearchResult } from "../search.js";
import { snippet } from "../snippet.js";
import type { SearchHit } from "../types.js";
import type { Queryable } from "./db.js";
import { tsqueryOf } from "./fts-vector.js";

interface Side {
  table: "messages" | "tool_calls";
  filters(o: SearchOptions, params: unknown[]): string;
  hits(c: Queryable, pks: number[], phrases: RankPhrase[]): Promise<Map<number, SearchHit>>;
}

function common(alias: string, o: SearchOptions, params: unknown[]): string[] {
  const conds: string[] = [];
  const p = (v: unknown): string => `$${String(params.push(v))}`;
  if (o.sessionId !== undefined) conds.push(`${alias}.session_id = ${p(o.sessionId)}`);
  if (o.from !== undefined) conds.push(`${alias}.created_at >= ${p(o.from)}`);
  if (o.to !== undefined) conds.push(`${alias}.created_at < ${p(o.to)}`);
  return conds;
}

const MESSAGES: Side = {
  table: "messages",
  filters(o, params) {
    const conds = common("x", o, params);
    if (o.role !== undefined) conds.push(`x.role = $${String(params.push(o.role))}`);
    return conds.map((cond) => ` AND ${cond}`).join("");
  },
  async hits(c, pks, phrases) {
    const r = await c.query<{
      pk: number;
      id: string;
      session_id: string;
      seq: number;
      role: string;
      created_at: number;
      content: string;
      title: string | null;
    }>(
      "SELECT m.pk, m.id, m.session_id, m.seq, m.role, m.created_at, m.content, s.title FROM messages m JOIN sessions s ON s.id = m.session_id WHERE m.pk = ANY($1)",
      [pks],
    );
    return new Map(
      r.rows.map((row) => [
        row.pk,
        {
          sessionId: row.session_id,
          sessionTitle: row.title ?? "",
          messageId: row.id,
          callId: "",
          toolName: "",
          role: row.role,
          snippet: snippet([row.content], phrases),
          rank: 0,
          createdAt: row.created_at,
          seq: row.seq,
        },
      ]),
    );
  },
};

const TOOL_CALLS: Side = {
  table: "tool_calls",
  filters(o, params) {
    const conds = common("x", o, params);
    if (o.toolName !== undefined) conds.push(`x.tool_name = $${String(params.push(o.toolName))}`);
    if (o.decision !== undefined) conds.push(`x.verdict_decision = $${String(params.push(o.decision))}`);
    return conds.map((cond) => ` AND ${cond}`).join("");
  },
  async hits(c, pks, phrases) {
    const r = await c.query<{
      pk: number;
      call_id: string;
      tool_name: string;
      message_id: string;
      session_id: string;
      created_at: number;
      arguments_json: string;
      result: string | null;
      seq: number;
      title: string | null;
    }>(
      `SELECT t.pk, t.call_id, t.tool_name, t.message_id, t.session_id, t.created_at, t.arguments_json, t.result, m.seq, s.title
       FROM tool_calls t JOIN messages m ON m.id = t.message_id JOIN sessions s ON s.id = t.session_id WHERE t.pk = ANY($1)`,
      [pks],
    );
    return new Map(
      r.rows.map((row) => [
        row.pk,
        {
          sessionId: row.session_id,
          sessionTitle: row.title ?? "",
          messageId: row.message_id,
          callId: row.call_id,
          toolName: row.tool_name,
          role: "tool",
          snippet: snippet([row.tool_name, row.arguments_json, row.result], phrases),
          rank: 0,
          createdAt: row.created_at,
          seq: row.seq,
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

async function searchSide(
  c: Queryable,
  side: Side,
  tsquery: string,
  phrases: RankPhrase[],
  o: SearchOptions,
  n: number,
): Promise<SideResult> {
  const params: unknown[] = [tsquery];
  const where = side.filters(o, params);
  const match = `FROM ${side.table} x WHERE x.tsv @@ $1::tsquery${where}`;
  // As on SQLite: fewer than RARE matches are all ranked and counted; more, and the newest
  // WINDOW of them are ranked, the total a lower bound. ts_rank: higher is better; a hit's rank
  // is its negation, so lower is better as with bm25.
  const count =
    (await c.query<{ n: number }>(`SELECT COUNT(*) AS n FROM (SELECT 1 ${match} LIMIT ${String(RARE)}) m`, params))
      .rows[0]?.n ?? 0;
  const common = count >= RARE;
  const r = await c.query<{ pk: number; score: number }>(
    common
      ? `SELECT pk, score FROM (SELECT x.pk, ts_rank(x.tsv, $1::tsquery)::float8 AS score ${match} ORDER BY x.pk DESC LIMIT ${String(WINDOW)}) w ORDER BY score DESC, pk DESC`
      : `SELECT x.pk, ts_rank(x.tsv, $1::tsquery)::float8 AS score ${match} ORDER BY score DESC, x.pk DESC LIMIT ${String(n)}`,
    params,
  );
  const total = common ? r.rows.length : count;
  const ranked = r.rows.slice(0, n);
  const byPk =
    ranked.length > 0
      ? await side.hits(
          c,
          ranked.map((x) => x.pk),
          phrases,
        )
      : new Map<number, SearchHit>();
  const hits: SearchHit[] = [];
  for (const x of ranked) {
    const h = byPk.get(x.pk);
    if (h) hits.push({ ...h, rank: -x.score });
  }
  return { hits, total, lowerBound: common && r.rows.length === WINDOW };
}

export async function search(c: Queryable, query: string, options: SearchOptions = {}): Promise<SearchResult> {
  const limit = clampInt(options.limit, 20, 1, 200, "limit");
  const offset = options.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0)
    throw new StoreError("INVALID_ARGUMENT", `offset must be an integer >= 0, got ${offset}`);
  const q = buildFtsQuery(query);
  const tsquery = tsqueryOf(q);
  if (tsquery === "") return { hits: [], total: 0, totalIsLowerBound: false };
  const phrases = q.terms.map((t, i) => phraseOf(t, q.prefixes[i] ?? false));
  const n = offset + limit;
  const none: SideResult = { hits: [], total: 0, lowerBound: false };
  const wantMessages = options.toolName === undefined && options.decision === undefined;
  const wantTools = options.role === undefined || options.role === "tool";
  const parts = await Promise.all([
    wantMessages ? searchSide(c, MESSAGES, tsquery, phrases, options, n) : none,
    wantTools ? searchSide(c, TOOL_CALLS, tsquery, phrases, options, n) : none,
  ]);
  const hits = parts.flatMap((p) => p.hits).sort((a, b) => a.rank - b.rank || b.createdAt - a.createdAt);
  return {
    hits: hits.slice(offset, offset + limit),
    total: parts.reduce((t, p) => t + p.total, 0),
    totalIsLowerBound: parts.some((p) => p.lowerBound),
  };
}
