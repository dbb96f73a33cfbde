// Full-text search on PostgreSQL: a GIN index over each row's block of pks, filter columns and
// tsvector (fts-vector.ts), ts_rank for ranking, and the same snippets as the SQLite store
// (snippet.ts, FTS5's algorithm over the text read for the hit).
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
import { prefixTokens, tsqueryOf } from "./fts-vector.js";
import { expandPrefixes } from "./lexemes.js";
import { SEARCH_BLOCK_BITS } from "./schema.js";

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

/** Rows of a phrase's words a search reads at most, newest first, looking for the phrase (see searchSide). */
const PHRASE_BUDGET = 4 * RARE;
/** Blocks of the search index a search asks one at a time before one scan of the older rows. */
const NEWEST_BLOCKS = 8;

interface Query {
  /** The tsquery (what a row must match, and what it is ranked by). */
  match: string;
  /** The tsquery the search index is asked: match, with a phrase's words joined by & instead of <->, and
   * a prefix as the words it stands for (lexemes.ts). */
  index: string;
  /** Whether the query has a phrase: each row the index finds is then checked against match. */
  phrase: boolean;
}

async function searchSide(
  c: Queryable,
  side: Side,
  q: Query,
  phrases: RankPhrase[],
  o: SearchOptions,
  n: number,
): Promise<SideResult> {
  const params: unknown[] = [q.match, q.index];
  const where = side.filters(o, params);
  const t = side.table;
  const bits = String(SEARCH_BLOCK_BITS);
  // As on SQLite: fewer than RARE matches are all ranked and counted; more, and the newest
  // WINDOW of them are ranked, the total a lower bound. A GIN index returns its matches in no
  // useful order, so "the newest" of a common word would read every match from the table. The
  // index is keyed by block of pks too (schema.ts version 6): the newest NEWEST_BLOCKS blocks
  // are asked one at a time, newest first, stopping at RARE. If that did not find RARE, the older
  // rows are asked the same way when the matches were dense (the walk then stops soon), else in
  // one scan of the index (few matches: reading them all costs less than asking every block).
  // A session's rows are few: its matches come from its own index.
  // A prefix: the index is asked for the words it stands for (lexemes.ts), read once per search;
  // asked for the prefix, the index would read the matches of all those words again for every block.
  // A phrase: the index finds the rows with its words, and each of them is read for the phrase.
  // When the words are common and the phrase is not, that is every row with the words; the walk
  // stops after the newest PHRASE_BUDGET of them and ranks the matches among them, the total a
  // lower bound.
  const cap = q.phrase ? PHRASE_BUDGET : RARE;
  // Without a phrase every row the index finds matches: no row's tsvector is read for it.
  const hit = q.phrase ? "x.tsv @@ $1::tsquery" : "$1::tsquery IS NOT NULL";
  const select = `x.pk, ${hit} AS hit FROM ${t} x WHERE x.tsv @@ $2::tsquery${where}`;
  type Seen = { pk: number; hit: boolean };
  const walk = async (from: number, to: number, limit: number): Promise<Seen[]> =>
    (
      await c.query<Seen>(
        `SELECT w.pk, w.hit FROM generate_series(${String(from)}::bigint, ${String(to)}, -1) AS g(b)
         CROSS JOIN LATERAL (SELECT ${select} AND (x.pk >> ${bits}) = g.b ORDER BY x.pk + 0 DESC) w LIMIT ${String(limit)}`,
        params,
      )
    ).rows;
  // pk + 0: the rows come from the search index and are sorted after, never from a walk of the pk
  // index (which reads every row for a word the planner thinks common); a bound on pk + 0 filters
  // the rows the index found (as a pk range it would be a second index scan).
  const scan = async (below: number | undefined, limit: number): Promise<Seen[]> =>
    (
      await c.query<Seen>(
        `SELECT ${select}${below === undefined ? "" : ` AND x.pk + 0 < ${String(below)}`} ORDER BY x.pk + 0 DESC LIMIT ${String(limit)}`,
        params,
      )
    ).rows;
  let seen: Seen[];
  if (o.sessionId !== undefined) seen = await scan(undefined, cap);
  else {
    const top = Number(
      (await c.query<{ b: number }>(`SELECT COALESCE(MAX(pk), 0) >> ${bits} AS b FROM ${t}`)).rows[0]?.b ?? 0,
    );
    const oldest = Math.max(0, top - NEWEST_BLOCKS + 1);
    seen = await walk(top, oldest, cap);
    if (seen.length < cap && oldest > 0) {
      const rest = cap - seen.length;
      // At least an eighth of what is wanted in NEWEST_BLOCKS blocks: the rest is a few dozen blocks away at most.
      const dense = seen.length * 8 >= cap;
      seen = seen.concat(dense ? await walk(oldest - 1, 0, rest) : await scan(oldest << SEARCH_BLOCK_BITS, rest));
    }
  }
  const found = seen.filter((x) => x.hit).map((x) => x.pk);
  const budgetSpent = q.phrase && seen.length >= cap;
  const common = found.length >= RARE || budgetSpent;
  const window = common ? found.slice(0, WINDOW) : found;
  // ts_rank: higher is better; a hit's rank is its negation, so lower is better as with bm25.
  const scored =
    window.length > 0
      ? (
          await c.query<{ pk: number; score: number }>(
            `SELECT pk, ts_rank(tsv, $1::tsquery)::float8 AS score FROM ${t} WHERE pk = ANY($2)`,
            [q.match, window],
          )
        ).rows
      : [];
  const total = common ? window.length : found.length;
  const ranked = scored.sort((a, b) => b.score - a.score || b.pk - a.pk).slice(0, n);
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
  return { hits, total, lowerBound: budgetSpent || (common && window.length === WINDOW) };
}

export async function search(c: Queryable, query: string, options: SearchOptions = {}): Promise<SearchResult> {
  const limit = clampInt(options.limit, 20, 1, 200, "limit");
  const offset = options.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0)
    throw new StoreError("INVALID_ARGUMENT", `offset must be an integer >= 0, got ${offset}`);
  const q = buildFtsQuery(query);
  const match = tsqueryOf(q);
  if (match === "") return { hits: [], total: 0, totalIsLowerBound: false };
  const none: SideResult = { hits: [], total: 0, lowerBound: false };
  const expanded = await expandPrefixes(c, prefixTokens(q));
  // A prefix no stored word starts with: nothing matches.
  if ([...expanded.values()].some((words) => words?.length === 0))
    return { hits: [], total: 0, totalIsLowerBound: false };
  const loose = tsqueryOf(q, true);
  const tsq: Query = { match, index: tsqueryOf(q, true, expanded), phrase: loose !== match };
  const phrases = q.terms.map((t, i) => phraseOf(t, q.prefixes[i] ?? false));
  const n = offset + limit;
  const wantMessages = options.toolName === undefined && options.decision === undefined;
  const wantTools = options.role === undefined || options.role === "tool";
  const parts = await Promise.all([
    wantMessages ? searchSide(c, MESSAGES, tsq, phrases, options, n) : none,
    wantTools ? searchSide(c, TOOL_CALLS, tsq, phrases, options, n) : none,
  ]);
  const hits = parts.flatMap((p) => p.hits).sort((a, b) => a.rank - b.rank || b.createdAt - a.createdAt);
  return {
    hits: hits.slice(offset, offset + limit),
    total: parts.reduce((t, p) => t + p.total, 0),
    totalIsLowerBound: parts.some((p) => p.lowerBound),
  };
}
