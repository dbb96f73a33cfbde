// Rows copied verbatim into an empty PostgreSQL store (`palisade store copy`): ids, seqs,
// timestamps, counters and audit hashes as the source has them, so the copy reads and verifies
// exactly like the original.
import type {
  AuditRecord,
  ArtifactRecord,
  EventRecord,
  MemoryRecord,
  MessageRecord,
  SessionRecord,
  SubAgentRunRecord,
} from "../types.js";
import type { Queryable } from "./db.js";
import { searchVector } from "./fts-vector.js";
import { addLexemes } from "./lexemes.js";
import type { KnownLexemes } from "./lexemes.js";

export interface SessionRows {
  session: SessionRecord;
  /** Main history and sub-agent transcripts, each with its tool calls. */
  messages: MessageRecord[];
  subAgentRuns: SubAgentRunRecord[];
  events: EventRecord[];
  memory: MemoryRecord[];
  /** Artifacts stored in the source, with their bytes when kept in the row. */
  artifacts: Array<ArtifactRecord & { data: Buffer | null }>;
}

type Column = readonly [name: string, type: string];

/** Rows of one table in one statement: a column of values per array parameter (unnest). */
async function insertAll(c: Queryable, table: string, columns: readonly Column[], rows: unknown[][]): Promise<void> {
  if (rows.length === 0) return;
  const arrays = columns.map(([, type], i) => `$${String(i + 1)}::${type}[]`);
  await c.query(
    `INSERT INTO ${table} (${columns.map(([name]) => name).join(", ")}) SELECT * FROM unnest(${arrays.join(", ")})`,
    columns.map((_, i) => rows.map((r) => r[i])),
  );
}

const SESSION: Column[] = [
  ["id", "text"],
  ["title", "text"],
  ["title_source", "text"],
  ["mode", "text"],
  ["workspace", "text"],
  ["model", "text"],
  ["model_chosen", "int"],
  ["created_at", "bigint"],
  ["updated_at", "bigint"],
  ["message_count", "int"],
  ["input_tokens", "bigint"],
  ["output_tokens", "bigint"],
  ["cache_read_tokens", "bigint"],
  ["cache_write_tokens", "bigint"],
];
const MESSAGE: Column[] = [
  ["id", "text"],
  ["session_id", "text"],
  ["sub_agent_run_id", "text"],
  ["seq", "int"],
  ["role", "text"],
  ["content", "text"],
  ["created_at", "bigint"],
  ["parent_id", "text"],
  ["tool_call_id", "text"],
  ["input_tokens", "bigint"],
  ["output_tokens", "bigint"],
  ["cache_read_tokens", "bigint"],
  ["cache_write_tokens", "bigint"],
  ["tsv", "tsvector"],
];
const RUN: Column[] = [
  ["id", "text"],
  ["session_id", "text"],
  ["parent_message_id", "text"],
  ["name", "text"],
  ["task", "text"],
  ["state", "text"],
  ["result", "text"],
  ["error", "text"],
  ["llm_calls", "int"],
  ["tool_calls", "int"],
  ["started_at", "bigint"],
  ["ended_at", "bigint"],
];
const TOOL_CALL: Column[] = [
  ["call_id", "text"],
  ["message_id", "text"],
  ["session_id", "text"],
  ["sub_agent_run_id", "text"],
  ["sub_agent_name", "text"],
  ["tool_name", "text"],
  ["arguments_json", "text"],
  ["verdict_decision", "text"],
  ["verdict_tier", "int"],
  ["verdict_confidence", "float8"],
  ["verdict_reason", "text"],
  ["verdict_rule_ids", "text"],
  ["verdict_evaluation_us", "bigint"],
  ["approval_decision", "text"],
  ["approval_by", "text"],
  ["approval_at", "bigint"],
  ["result", "text"],
  ["is_error", "int"],
  ["duration_ms", "bigint"],
  ["artifacts_json", "text"],
  ["created_at", "bigint"],
  ["completed_at", "bigint"],
  ["result_trust", "text"],
  ["text_offset", "int"],
  ["tsv", "tsvector"],
];
const EVENT: Column[] = [
  ["session_id", "text"],
  ["seq", "int"],
  ["message_id", "text"],
  ["type", "text"],
  ["payload", "text"],
  ["created_at", "bigint"],
];
const MEMORY: Column[] = [
  ["session_id", "text"],
  ["message_id", "text"],
  ["content", "text"],
  ["summary", "text"],
  ["compacted_messages", "int"],
  ["created_at", "bigint"],
];
const ARTIFACT: Column[] = [
  ["id", "text"],
  ["session_id", "text"],
  ["owner", "text"],
  ["call_id", "text"],
  ["filename", "text"],
  ["mime_type", "text"],
  ["size_bytes", "bigint"],
  ["sha256", "text"],
  ["path", "text"],
  ["data", "bytea"],
  ["created_at", "bigint"],
  ["expires_at", "bigint"],
];
const AUDIT: Column[] = [
  ["seq", "bigint"],
  ["ts", "bigint"],
  ["session_id", "text"],
  ["kind", "text"],
  ["actor", "text"],
  ["call_id", "text"],
  ["payload", "text"],
  ["prev_hash", "text"],
  ["hash", "text"],
];

const messageValues = (m: MessageRecord, tsv: string): unknown[] => [
  m.id,
  m.sessionId,
  m.subAgentRunId,
  m.seq,
  m.role,
  m.content,
  m.createdAt,
  m.parentId,
  m.toolCallId,
  m.usage?.inputTokens ?? null,
  m.usage?.outputTokens ?? null,
  m.usage?.cacheReadTokens ?? null,
  m.usage?.cacheWriteTokens ?? null,
  tsv,
];

/**
 * Several sessions' rows, one statement per table (references first: main history, runs,
 * transcripts), their words first into the lexeme table (those `known` does not have); returns
 * the words added, for `known` to learn once the transaction is committed.
 */
export async function importSessions(
  c: Queryable,
  batch: readonly SessionRows[],
  known: KnownLexemes,
): Promise<string[]> {
  const words: string[] = [];
  const vector = (texts: Array<string | null>): string => {
    const v = searchVector(texts);
    for (const w of v.lexemes) words.push(w);
    return v.tsv;
  };
  const vectors = new Map<MessageRecord, string>();
  const callVectors = new Map<object, string>();
  for (const r of batch)
    for (const m of r.messages) {
      vectors.set(m, vector([m.content]));
      for (const t of m.toolCalls) callVectors.set(t, vector([t.toolName, t.argumentsJson, t.result]));
    }
  const added = known.unknown(words);
  await addLexemes(c, added);
  await insertAll(
    c,
    "sessions",
    SESSION,
    batch.map(({ session: s }) => [
      s.id,
      s.title,
      s.titleSource,
      s.mode,
      s.workspace,
      s.model,
      s.modelChosen ? 1 : 0,
      s.createdAt,
      s.updatedAt,
      s.messageCount,
      s.usage.inputTokens,
      s.usage.outputTokens,
      s.usage.cacheReadTokens,
      s.usage.cacheWriteTokens,
    ]),
  );
  const messages = batch.flatMap((r) => r.messages.map((m) => ({ m, sessionId: r.session.id })));
  const values = ({ m, sessionId }: (typeof messages)[number]): unknown[] =>
    messageValues({ ...m, sessionId }, vectors.get(m) as string);
  await insertAll(c, "messages", MESSAGE, messages.filter(({ m }) => m.subAgentRunId === null).map(values));
  await insertAll(
    c,
    "sub_agent_runs",
    RUN,
    batch.flatMap((r) =>
      r.subAgentRuns.map((run) => [
        run.id,
        r.session.id,
        run.parentMessageId,
        run.name,
        run.task,
        run.state,
        run.result,
        run.error,
        run.llmCalls,
        run.toolCalls,
        run.startedAt,
        run.endedAt,
      ]),
    ),
  );
  await insertAll(c, "messages", MESSAGE, messages.filter(({ m }) => m.subAgentRunId !== null).map(values));
  await insertAll(
    c,
    "tool_calls",
    TOOL_CALL,
    messages.flatMap(({ m, sessionId }) =>
      m.toolCalls.map((t) => [
        t.callId,
        t.messageId,
        sessionId,
        t.subAgentRunId,
        t.subAgentName,
        t.toolName,
        t.argumentsJson,
        t.verdict?.decision ?? null,
        t.verdict?.tier ?? null,
        t.verdict?.confidence ?? null,
        t.verdict?.reason ?? null,
        t.verdict ? JSON.stringify(t.verdict.ruleIds) : null,
        t.verdict?.evaluationUs ?? null,
        t.approval?.decision ?? null,
        t.approval?.by ?? null,
        t.approval?.at ?? null,
        t.result,
        t.isError ? 1 : 0,
        t.durationMs,
        JSON.stringify(t.artifacts),
        t.createdAt,
        t.completedAt,
        t.resultTrust,
        t.textOffset,
        callVectors.get(t),
      ]),
    ),
  );
  await insertAll(
    c,
    "events",
    EVENT,
    batch.flatMap((r) => r.events.map((e) => [r.session.id, e.seq, e.messageId, e.type, e.payload, e.createdAt])),
  );
  await insertAll(
    c,
    "memory",
    MEMORY,
    batch.flatMap((r) =>
      r.memory.map((m) => [r.session.id, m.messageId, m.content, m.summary, m.compactedMessages, m.createdAt]),
    ),
  );
  await insertAll(
    c,
    "artifacts",
    ARTIFACT,
    batch.flatMap((r) =>
      r.artifacts.map((a) => [
        a.id,
        r.session.id,
        a.owner,
        a.callId,
        a.filename,
        a.mimeType,
        a.sizeBytes,
        a.sha256,
        a.path,
        a.data,
        a.createdAt,
        a.expiresAt,
      ]),
    ),
  );
  return added;
}

/** Audit rows in seq order, as they are (hashes included), and the head after them. */
export async function importAudit(c: Queryable, rows: readonly AuditRecord[]): Promise<void> {
  await insertAll(
    c,
    "audit",
    AUDIT,
    rows.map((r) => [r.seq, r.ts, r.sessionId, r.kind, r.actor, r.callId, r.payload, r.prevHash, r.hash]),
  );
  const last = rows[rows.length - 1];
  if (last) await c.query("UPDATE audit_head SET seq = $1, hash = $2 WHERE id = 1", [last.seq, last.hash]);
}

/**
 * The full-text (GIN) indexes' definitions, dropped before a bulk copy into an empty database
 * and built again after it: one build over all rows is many times faster than an insert per row.
 */
export async function dropSearchIndexes(c: Queryable): Promise<string[]> {
  const defs = (
    await c.query<{ name: string; def: string }>(
      "SELECT indexname AS name, indexdef AS def FROM pg_indexes WHERE schemaname = current_schema() AND tablename IN ('messages', 'tool_calls') AND indexdef LIKE '%USING gin%'",
    )
  ).rows;
  for (const d of defs) await c.query(`DROP INDEX ${d.name}`);
  return defs.map((d) => d.def);
}

export async function buildIndexes(c: Queryable, defs: readonly string[]): Promise<void> {
  await c.query("SET LOCAL maintenance_work_mem = '256MB'");
  for (const def of defs) await c.query(def);
}

export const COUNTED = [
  "sessions",
  "messages",
  "tool_calls",
  "events",
  "memory",
  "sub_agent_runs",
  "artifacts",
  "audit",
] as const;
export type TableCounts = Record<(typeof COUNTED)[number], number>;

export async function tableCounts(c: Queryable): Promise<TableCounts> {
  const r = await c.query<Record<string, number>>(
    `SELECT ${COUNTED.map((t) => `(SELECT COUNT(*) FROM ${t}) AS ${t}`).join(", ")}`,
  );
  return r.rows[0] as TableCounts;
}
