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
import { tsvectorOf } from "./fts-vector.js";

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

export async function importSession(c: Queryable, r: SessionRows): Promise<void> {
  const s = r.session;
  await c.query(
    `INSERT INTO sessions (id, title, title_source, mode, workspace, model, model_chosen, created_at, updated_at, message_count,
       input_tokens, output_tokens, cache_read_tokens, cache_write_tokens) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
    [
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
    ],
  );
  const insertMessage = (m: MessageRecord): Promise<unknown> =>
    c.query(
      `INSERT INTO messages (id, session_id, sub_agent_run_id, seq, role, content, created_at, parent_id, tool_call_id,
         input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, tsv) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::tsvector)`,
      [
        m.id,
        s.id,
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
        tsvectorOf([m.content]),
      ],
    );
  // Main history first (runs point at their parent message), then the runs, then their transcripts.
  for (const m of r.messages.filter((x) => x.subAgentRunId === null)) await insertMessage(m);
  for (const run of r.subAgentRuns) {
    await c.query(
      `INSERT INTO sub_agent_runs (id, session_id, parent_message_id, name, task, state, result, error, llm_calls, tool_calls, started_at, ended_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [
        run.id,
        s.id,
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
      ],
    );
  }
  for (const m of r.messages.filter((x) => x.subAgentRunId !== null)) await insertMessage(m);
  for (const m of r.messages) {
    for (const t of m.toolCalls) {
      await c.query(
        `INSERT INTO tool_calls (call_id, message_id, session_id, sub_agent_run_id, sub_agent_name, tool_name, arguments_json, verdict_decision,
           verdict_tier, verdict_confidence, verdict_reason, verdict_rule_ids, verdict_evaluation_us, approval_decision, approval_by, approval_at,
           result, is_error, duration_ms, artifacts_json, created_at, completed_at, tsv)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23::tsvector)`,
        [
          t.callId,
          t.messageId,
          s.id,
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
          tsvectorOf([t.toolName, t.argumentsJson, t.result]),
        ],
      );
    }
  }
  for (const e of r.events) {
    await c.query(
      "INSERT INTO events (session_id, seq, message_id, type, payload, created_at) VALUES ($1, $2, $3, $4, $5, $6)",
      [s.id, e.seq, e.messageId, e.type, e.payload, e.createdAt],
    );
  }
  for (const m of r.memory) {
    await c.query(
      "INSERT INTO memory (session_id, message_id, content, summary, compacted_messages, created_at) VALUES ($1, $2, $3, $4, $5, $6)",
      [s.id, m.messageId, m.content, m.summary, m.compactedMessages, m.createdAt],
    );
  }
  for (const a of r.artifacts) {
    await c.query(
      `INSERT INTO artifacts (id, session_id, owner, call_id, filename, mime_type, size_bytes, sha256, path, data, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [
        a.id,
        s.id,
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
      ],
    );
  }
}

/** Audit rows in seq order, as they are (hashes included), and the head after them. */
export async function importAudit(c: Queryable, rows: readonly AuditRecord[]): Promise<void> {
  for (const r of rows) {
    await c.query(
      "INSERT INTO audit (seq, ts, session_id, kind, actor, call_id, payload, prev_hash, hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
      [r.seq, r.ts, r.sessionId, r.kind, r.actor, r.callId, r.payload, r.prevHash, r.hash],
    );
  }
  const last = rows[rows.length - 1];
  if (last) await c.query("UPDATE audit_head SET seq = $1, hash = $2 WHERE id = 1", [last.seq, last.hash]);
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
