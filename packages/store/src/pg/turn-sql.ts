// The statements of a turn's commit on PostgreSQL (turn.ts runs them). Both insert a turn's rows
// in one multi-row statement (unnest over one array per column, seqs counted on the server):
// - TURN_LOCK + TURN_INSERT run inside BEGIN … COMMIT: the first locks what the turn writes under
//   and reads the audit head, the second inserts (four round trips);
// - TURN_COMMIT is the same insert led by palisade_turn_lock() (schema version 5), which takes the
//   same locks, checks the audit head the caller chained from and reads the seq bases: one
//   statement, so one round trip and one implicit transaction, committed (durably) when it returns.
import { MESSAGE_COLUMNS as MESSAGE_ROW_COLUMNS, TOOL_CALL_COLUMNS } from "../new-rows.js";
import type { ToolCallColumn } from "../new-rows.js";
import { LEASE_NOW } from "./leases.js";

// $1 session, $2 fenced, $3 audit head wanted, $4.. counters (as addToSession).
export const TURN_LOCK = `WITH l AS (SELECT engine_id, expires_at > ${LEASE_NOW} AS live FROM session_leases WHERE session_id = $1 AND $2::boolean FOR UPDATE),
s AS (UPDATE sessions SET message_count = message_count + $4, updated_at = GREATEST(updated_at, $5), input_tokens = input_tokens + $6,
  output_tokens = output_tokens + $7, cache_read_tokens = cache_read_tokens + $8, cache_write_tokens = cache_write_tokens + $9 WHERE id = $1 RETURNING 1),
h AS (SELECT seq, hash FROM audit_head WHERE id = 1 AND $3::boolean FOR UPDATE)
SELECT (SELECT engine_id FROM l) AS lease_engine, (SELECT live FROM l) AS lease_live, (SELECT count(*) FROM s)::int AS found,
  (SELECT seq FROM h) AS head_seq, (SELECT hash FROM h) AS head_hash`;

const TOOL_CALL_TYPES: Record<ToolCallColumn, string> = {
  call_id: "text",
  message_id: "text",
  session_id: "text",
  sub_agent_run_id: "text",
  sub_agent_name: "text",
  tool_name: "text",
  arguments_json: "text",
  verdict_decision: "text",
  verdict_tier: "int",
  verdict_confidence: "float8",
  verdict_reason: "text",
  verdict_rule_ids: "text",
  verdict_evaluation_us: "bigint",
  approval_decision: "text",
  approval_by: "text",
  approval_at: "bigint",
  result: "text",
  is_error: "int",
  duration_ms: "bigint",
  artifacts_json: "text",
  created_at: "bigint",
  completed_at: "bigint",
  result_trust: "text",
  text_offset: "int",
};
/** The main messages' columns but the three the statement fills in (session, run, seq). */
export const MESSAGE_COLUMNS = MESSAGE_ROW_COLUMNS.filter(
  (c) => c !== "session_id" && c !== "sub_agent_run_id" && c !== "seq",
);
const MESSAGE_TYPES = MESSAGE_COLUMNS.map((c) => (c.endsWith("_at") || c.endsWith("_tokens") ? "bigint" : "text"));
const AUDIT_COLUMNS = ["seq", "ts", "session_id", "kind", "actor", "call_id", "payload", "prev_hash", "hash"] as const;
const AUDIT_TYPES = ["bigint", "bigint", "text", "text", "text", "text", "text", "text", "text"];

/**
 * Parameters in order: $1 session; messages; their tsvectors; tool calls; their tsvectors; events
 * (message_id, type, payload, created_at); audit; the head after them; the title, its source and
 * the sources it may replace; the words to add to the lexeme table (sorted, lexemes.ts). `locked`: TURN_COMMIT's, which go on with the fence's Engine (or
 * null), whether the audit head is wanted, the head the audit rows were chained from, and the
 * session's counters.
 */
function insertStatement(locked: boolean): string {
  let n = 1;
  const arrays = (types: readonly string[]): string[] => types.map((t) => `$${String(++n)}::${t}[]`);
  const m = arrays([...MESSAGE_TYPES, "text"]);
  const tc = arrays([...TOOL_CALL_COLUMNS.map((c) => TOOL_CALL_TYPES[c]), "text"]);
  const e = arrays(["text", "text", "text", "bigint"]);
  const a = arrays(AUDIT_TYPES);
  const [headSeq, headHash, title, source, allowed, lexemes] = [++n, ++n, ++n, ++n, ++n, ++n].map(
    (i) => `$${String(i)}`,
  );
  const titled = `${title}::text IS NOT NULL AND title_source = ANY(${allowed}::text[])`;
  // Without the lock function: the seq bases are read here, the counters were updated by TURN_LOCK.
  // With it: every write joins lk, so none happens before palisade_turn_lock() returned (it raises
  // when the turn must not be written), and the session row is updated once, counters and title.
  let head: string;
  let session: string;
  let lk = "";
  if (locked) {
    const [engine, auditWanted, expectSeq, expectHash, count, newest, inTok, outTok, crTok, cwTok] = Array.from(
      { length: 10 },
      () => `$${String(++n)}`,
    );
    head = `lk AS (SELECT message_base, event_base FROM palisade_turn_lock($1, ${engine as string}::text, ${auditWanted as string}::boolean, ${expectSeq as string}::bigint, ${expectHash as string}::text)),
mb AS (SELECT message_base AS base FROM lk),
eb AS (SELECT event_base AS base FROM lk),`;
    session = `ti AS (UPDATE sessions SET message_count = message_count + ${count as string}::int, updated_at = GREATEST(updated_at, ${newest as string}::bigint),
  input_tokens = input_tokens + ${inTok as string}::bigint, output_tokens = output_tokens + ${outTok as string}::bigint,
  cache_read_tokens = cache_read_tokens + ${crTok as string}::bigint, cache_write_tokens = cache_write_tokens + ${cwTok as string}::bigint,
  title = CASE WHEN ${titled} THEN ${title}::text ELSE title END,
  title_source = CASE WHEN ${titled} THEN ${source}::text ELSE title_source END
  FROM lk WHERE id = $1 RETURNING 1)`;
    lk = "lk, ";
  } else {
    head = `mb AS (SELECT COALESCE(MAX(seq), 0) AS base FROM messages WHERE session_id = $1 AND sub_agent_run_id IS NULL),
eb AS (SELECT COALESCE(MAX(seq), 0) AS base FROM events WHERE session_id = $1),`;
    session = `ti AS (UPDATE sessions SET title = ${title}::text, title_source = ${source}::text
  WHERE id = $1 AND ${titled} RETURNING 1)`;
  }
  return `WITH ${head}
m AS (INSERT INTO messages (session_id, seq, ${MESSAGE_COLUMNS.join(", ")}, tsv)
  SELECT $1, mb.base + t.n, ${MESSAGE_COLUMNS.map((c) => `t.${c}`).join(", ")}, t.tsv::tsvector
  FROM mb, unnest(${m.join(", ")}) WITH ORDINALITY AS t(${MESSAGE_COLUMNS.join(", ")}, tsv, n) RETURNING 1),
c AS (INSERT INTO tool_calls (${TOOL_CALL_COLUMNS.join(", ")}, tsv)
  SELECT ${TOOL_CALL_COLUMNS.map((c) => `t.${c}`).join(", ")}, t.tsv::tsvector
  FROM ${lk}unnest(${tc.join(", ")}) AS t(${TOOL_CALL_COLUMNS.join(", ")}, tsv) RETURNING 1),
e AS (INSERT INTO events (session_id, seq, message_id, type, payload, created_at)
  SELECT $1, eb.base + t.n, t.message_id, t.type, t.payload, t.created_at
  FROM eb, unnest(${e.join(", ")}) WITH ORDINALITY AS t(message_id, type, payload, created_at, n) RETURNING 1),
a AS (INSERT INTO audit (${AUDIT_COLUMNS.join(", ")}) SELECT t.* FROM ${lk}unnest(${a.join(", ")}) AS t RETURNING 1),
x AS (INSERT INTO search_lexemes (lexeme) SELECT t.lexeme FROM ${lk}unnest(${lexemes}::text[]) AS t(lexeme) ON CONFLICT DO NOTHING RETURNING 1),
h AS (UPDATE audit_head SET seq = ${headSeq}::bigint, hash = ${headHash}::text${locked ? " FROM lk" : ""} WHERE id = 1 AND ${headSeq}::bigint IS NOT NULL RETURNING 1),
${session}
SELECT (SELECT base FROM mb) AS message_base, (SELECT base FROM eb) AS event_base,
  (SELECT count(*) FROM m) + (SELECT count(*) FROM c) + (SELECT count(*) FROM e) + (SELECT count(*) FROM a)
  + (SELECT count(*) FROM h) + (SELECT count(*) FROM ti) AS written`;
}

export const TURN_INSERT = insertStatement(false);
export const TURN_COMMIT = insertStatement(true);

/** SQLSTATEs palisade_turn_lock() raises (schema version 5). */
export const TURN_TAKEN_OVER = "PA001";
export const TURN_NO_SESSION = "PA002";
export const TURN_HEAD_MOVED = "PA003";
