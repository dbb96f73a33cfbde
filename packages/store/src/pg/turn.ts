// A turn's rows in one PostgreSQL transaction (../turn.ts on SQLite), in four round trips
// whatever the turn holds: BEGIN; one statement that locks what the turn writes under (the
// session's lease when fenced, the session's row with its counters updated, the audit chain's
// head); one statement that inserts the messages, tool calls, events and audit entries
// (multi-row, seqs counted on the server) and moves the audit head and the title; COMMIT.
// The rare rows (sub-agent runs and their transcripts, artifacts, memory, a call of an earlier
// message) take their own statements between a first insert of the main messages and the rest.
import type { PoolClient } from "pg";
import { chainRows, GENESIS_HASH } from "../audit.js";
import type { AuditKey } from "../audit.js";
import { StoreError, notFound } from "../errors.js";
import { MESSAGE_COLUMNS as MESSAGE_ROW_COLUMNS, TOOL_CALL_COLUMNS, messageRow, toolCallRow } from "../new-rows.js";
import type { ToolCallColumn } from "../new-rows.js";
import { messageFromRow, toolCallFromRow } from "../rows.js";
import type { Row } from "../rows.js";
import type { CommittedTurn, TurnRows } from "../turn.js";
import { turnMessages } from "../turn.js";
import type { AuditRecord, EventRecord, MessageRecord } from "../types.js";
import { checkToolCall } from "../writes.js";
import type { NewToolCall } from "../writes.js";
import { mapPgError } from "./errors.js";
import { tsvectorOf } from "./fts-vector.js";
import { LEASE_NOW, takenOver } from "./leases.js";
import { appendMemory, recordArtifact } from "./records.js";
import { insertMessage, nextMessageSeq, recordSubAgentRun, recordToolCall } from "./writes.js";

// $1 session, $2 fenced, $3 audit head wanted, $4.. counters (as addToSession).
const LOCK = `WITH l AS (SELECT engine_id, expires_at > ${LEASE_NOW} AS live FROM session_leases WHERE session_id = $1 AND $2::boolean FOR UPDATE),
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
// The main messages' columns but the three the statement fills in (session, run, seq).
const MESSAGE_COLUMNS = MESSAGE_ROW_COLUMNS.filter(
  (c) => c !== "session_id" && c !== "sub_agent_run_id" && c !== "seq",
);
const MESSAGE_TYPES = MESSAGE_COLUMNS.map((c) => (c.endsWith("_at") || c.endsWith("_tokens") ? "bigint" : "text"));
const AUDIT_COLUMNS = ["seq", "ts", "session_id", "kind", "actor", "call_id", "payload", "prev_hash", "hash"] as const;
const AUDIT_TYPES = ["bigint", "bigint", "text", "text", "text", "text", "text", "text", "text"];

// Parameters in order: $1 session; messages; their tsvectors; tool calls; their tsvectors;
// events (message_id, type, payload, created_at); audit; the head after them; the title.
function insertStatement(): string {
  let n = 1;
  const arrays = (types: readonly string[]): string[] => types.map((t) => `$${String(++n)}::${t}[]`);
  const m = arrays([...MESSAGE_TYPES, "text"]);
  const tc = arrays([...TOOL_CALL_COLUMNS.map((c) => TOOL_CALL_TYPES[c]), "text"]);
  const e = arrays(["text", "text", "text", "bigint"]);
  const a = arrays(AUDIT_TYPES);
  const [headSeq, headHash, title, source, allowed] = [++n, ++n, ++n, ++n, ++n].map((i) => `$${String(i)}`);
  return `WITH mb AS (SELECT COALESCE(MAX(seq), 0) AS base FROM messages WHERE session_id = $1 AND sub_agent_run_id IS NULL),
m AS (INSERT INTO messages (session_id, seq, ${MESSAGE_COLUMNS.join(", ")}, tsv)
  SELECT $1, mb.base + t.n, ${MESSAGE_COLUMNS.map((c) => `t.${c}`).join(", ")}, t.tsv::tsvector
  FROM mb, unnest(${m.join(", ")}) WITH ORDINALITY AS t(${MESSAGE_COLUMNS.join(", ")}, tsv, n) RETURNING 1),
c AS (INSERT INTO tool_calls (${TOOL_CALL_COLUMNS.join(", ")}, tsv)
  SELECT ${TOOL_CALL_COLUMNS.map((c) => `t.${c}`).join(", ")}, t.tsv::tsvector
  FROM unnest(${tc.join(", ")}) AS t(${TOOL_CALL_COLUMNS.join(", ")}, tsv) RETURNING 1),
eb AS (SELECT COALESCE(MAX(seq), 0) AS base FROM events WHERE session_id = $1),
e AS (INSERT INTO events (session_id, seq, message_id, type, payload, created_at)
  SELECT $1, eb.base + t.n, t.message_id, t.type, t.payload, t.created_at
  FROM eb, unnest(${e.join(", ")}) WITH ORDINALITY AS t(message_id, type, payload, created_at, n) RETURNING 1),
a AS (INSERT INTO audit (${AUDIT_COLUMNS.join(", ")}) SELECT * FROM unnest(${a.join(", ")}) RETURNING 1),
h AS (UPDATE audit_head SET seq = ${headSeq}::bigint, hash = ${headHash}::text WHERE id = 1 AND ${headSeq}::bigint IS NOT NULL RETURNING 1),
ti AS (UPDATE sessions SET title = ${title}::text, title_source = ${source}::text
  WHERE id = $1 AND ${title}::text IS NOT NULL AND title_source = ANY(${allowed}::text[]) RETURNING 1)
SELECT (SELECT base FROM mb) AS message_base, (SELECT base FROM eb) AS event_base,
  (SELECT count(*) FROM m) + (SELECT count(*) FROM c) + (SELECT count(*) FROM e) + (SELECT count(*) FROM a)
  + (SELECT count(*) FROM h) + (SELECT count(*) FROM ti) AS written`;
}
const INSERT = insertStatement();

interface Batch {
  /** Rows of main-history messages (seq not yet known) and of tool calls, built once. */
  messages: Row[];
  toolCalls: Row[];
  events: NonNullable<TurnRows["events"]>;
  audit: AuditRecord[];
  autoTitle?: TurnRows["autoTitle"];
}

/** The main messages, tool calls, events and audit rows of `b` in one statement; the seqs it gave the messages and events. */
async function insertBatch(
  c: PoolClient,
  sessionId: string,
  b: Batch,
): Promise<{ messageBase: number; eventBase: number }> {
  const column = <T>(rows: readonly T[], get: (r: T) => unknown): unknown[] => rows.map(get);
  const mrows = b.messages;
  const crows = b.toolCalls;
  const text = (v: unknown): string | null => (typeof v === "string" ? v : null);
  const last = b.audit[b.audit.length - 1];
  const source = b.autoTitle?.source ?? "auto";
  const params: unknown[] = [
    sessionId,
    ...MESSAGE_COLUMNS.map((col) => column(mrows, (r) => r[col])),
    mrows.map((m) => tsvectorOf([text(m.content)])),
    ...TOOL_CALL_COLUMNS.map((col) => column(crows, (r) => r[col])),
    crows.map((t) => tsvectorOf([text(t.tool_name), text(t.arguments_json), text(t.result)])),
    column(b.events, (e) => e.messageId ?? ""),
    column(b.events, (e) => e.type),
    column(b.events, (e) => (typeof e.payload === "string" ? e.payload : JSON.stringify(e.payload ?? {}))),
    column(b.events, (e) => e.createdAt),
    column(b.audit, (r) => r.seq),
    column(b.audit, (r) => r.ts),
    column(b.audit, (r) => r.sessionId),
    column(b.audit, (r) => r.kind),
    column(b.audit, (r) => r.actor),
    column(b.audit, (r) => r.callId),
    column(b.audit, (r) => r.payload),
    column(b.audit, (r) => r.prevHash),
    column(b.audit, (r) => r.hash),
    last?.seq ?? null,
    last?.hash ?? null,
    b.autoTitle?.title ?? null,
    source,
    source === "auto" ? ["none", "first_message", "auto"] : ["none", "first_message"],
  ];
  try {
    const r = await c.query<{ message_base: number; event_base: number }>({
      name: "palisade_commit_turn",
      text: INSERT,
      values: params,
    });
    const row = r.rows[0] as { message_base: number; event_base: number };
    return { messageBase: row.message_base, eventBase: row.event_base };
  } catch (cause) {
    const detail = (cause as { detail?: unknown }).detail;
    const what = `commitTurn(${sessionId}): ${typeof detail === "string" ? detail : (cause as Error).message}`;
    return mapPgError(cause, {
      conflict: `${what} (a message or tool call of this turn is already recorded)`,
      missing: `${what} (a parent message or sub-agent run does not exist)`,
      invalid: `${what} (a role, verdict or approval decision is not one the store knows)`,
    });
  }
}

export async function commitTurn(
  c: PoolClient,
  sessionId: string,
  turn: TurnRows,
  auditKey: AuditKey | undefined,
  fence?: { engineId: string },
): Promise<CommittedTurn> {
  const { own, mainMessages, runMessages, counters } = turnMessages(sessionId, turn);
  const { count, newest, usage } = counters;
  const auditIn = (turn.audit ?? []).map((a) => ({ ...a, sessionId: a.sessionId ?? sessionId }));
  const lock = (
    await c.query<{
      lease_engine: string | null;
      lease_live: boolean | null;
      found: number;
      head_seq: number | null;
      head_hash: string | null;
    }>(LOCK, [
      sessionId,
      fence !== undefined,
      auditIn.length > 0,
      count,
      newest,
      usage.inputTokens,
      usage.outputTokens,
      usage.cacheReadTokens,
      usage.cacheWriteTokens,
    ])
  ).rows[0];
  if (fence && lock?.lease_engine != null && lock.lease_engine !== fence.engineId && lock.lease_live === true)
    throw takenOver(sessionId, lock.lease_engine);
  if (!lock || lock.found === 0) throw notFound("session", sessionId);
  const head =
    lock.head_seq !== null && lock.head_hash !== null
      ? { seq: lock.head_seq, hash: lock.head_hash }
      : { seq: 0, hash: GENESIS_HASH };
  const audit = chainRows(head, auditIn, auditKey);

  // Every row is built once: a default id or time is the same in the database and in the records returned.
  const mainRows = mainMessages.map((m) => messageRow(m, 0));
  const mainIds = new Set(mainRows.map((r) => r.id as string));
  const toolCalls = turn.toolCalls ?? [];
  const now = Date.now();
  const events = (turn.events ?? []).map((e) => ({ ...own(e), createdAt: e.createdAt ?? now }));
  const rare =
    (turn.subAgentRuns?.length ?? 0) + runMessages.length + (turn.artifacts?.length ?? 0) + (turn.memory?.length ?? 0) >
      0 || toolCalls.some((t) => !mainIds.has(t.messageId));

  const messages: MessageRecord[] = [];
  const byId = new Map<string, MessageRecord>();
  const keep = (rec: MessageRecord): void => {
    messages.push(rec);
    byId.set(rec.id, rec);
  };
  const keepMain = (base: number): void =>
    mainRows.forEach((r, i) => keep(messageFromRow({ ...r, seq: base + i + 1 })));
  const ownCalls: Row[] = [];
  const ownCall = (call: NewToolCall): void => {
    checkToolCall(call);
    ownCalls.push(toolCallRow(call, sessionId));
  };
  const rest = (): Batch => ({
    messages: [],
    toolCalls: ownCalls,
    events,
    audit,
    ...(turn.autoTitle ? { autoTitle: turn.autoTitle } : {}),
  });
  let bases: { messageBase: number; eventBase: number };
  if (!rare) {
    toolCalls.forEach(ownCall);
    bases = await insertBatch(c, sessionId, { ...rest(), messages: mainRows });
    keepMain(bases.messageBase);
  } else {
    keepMain(
      (await insertBatch(c, sessionId, { messages: mainRows, toolCalls: [], events: [], audit: [] })).messageBase,
    );
    for (const r of turn.subAgentRuns ?? []) await recordSubAgentRun(c, own(r));
    const seqs = new Map<string, number>();
    for (const m of runMessages) {
      const run = m.subAgentRunId as string;
      const seq = seqs.get(run) ?? (await nextMessageSeq(c, sessionId, run));
      seqs.set(run, seq + 1);
      keep(await insertMessage(c, m, seq));
    }
    for (const call of toolCalls) {
      if (byId.has(call.messageId)) {
        ownCall(call);
        continue;
      }
      // A call of an earlier message: recordToolCall finds that message's session.
      const rec = await recordToolCall(c, call);
      if (rec.sessionId !== sessionId)
        throw new StoreError(
          "INVALID_ARGUMENT",
          `commitTurn(${sessionId}) got tool call ${call.callId} of session ${rec.sessionId}`,
        );
    }
    for (const a of turn.artifacts ?? []) await recordArtifact(c, own(a));
    for (const m of turn.memory ?? []) await appendMemory(c, own(m));
    bases = await insertBatch(c, sessionId, rest());
  }
  for (const r of ownCalls) byId.get(r.message_id as string)?.toolCalls.push(toolCallFromRow(r));
  const eventRecords: EventRecord[] = events.map((e, i) => ({
    sessionId,
    seq: bases.eventBase + i + 1,
    messageId: e.messageId ?? "",
    type: e.type,
    payload: typeof e.payload === "string" ? e.payload : JSON.stringify(e.payload ?? {}),
    createdAt: e.createdAt,
  }));
  return { messages, events: eventRecords, audit };
}
