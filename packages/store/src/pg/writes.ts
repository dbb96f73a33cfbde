// What the Engine writes, on PostgreSQL: the same records and checks as ../writes.ts. A write
// to a session locks the session's row first, so writers of one session (in any Engine) take
// turns and each seq counter stays dense.
import { randomUUID } from "node:crypto";
import { StoreError, notFound } from "../errors.js";
import { messageFromRow, sessionFromRow, subAgentRunFromRow, toolCallFromRow } from "../rows.js";
import type { Row } from "../rows.js";
import type { MessageRecord, SessionRecord, SubAgentRunRecord, TokenUsage, ToolCallRecord } from "../types.js";
import {
  APPROVAL_COLUMNS,
  TOOL_CALL_COLUMNS,
  SUB_AGENT_RUN_COLUMNS,
  VERDICT_COLUMNS,
  approvalColumns,
  messageRow,
  subAgentRunPatchColumns,
  subAgentRunValues,
  toolCallRow,
  verdictColumns,
} from "../new-rows.js";
import { checkMessage, checkToolCall } from "../writes.js";
import type {
  MessagePatch,
  NewMessage,
  NewSession,
  NewSubAgentRun,
  NewToolCall,
  SubAgentRunPatch,
  ToolCallPatch,
} from "../inputs.js";
import type { Queryable } from "./db.js";
import { mapPgError } from "./errors.js";
import { searchVector } from "./fts-vector.js";
import { addLexemes } from "./lexemes.js";

export const ZERO: TokenUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

export async function getSessionRow(c: Queryable, id: string): Promise<SessionRecord | null> {
  const r = await c.query<Row>("SELECT * FROM sessions WHERE id = $1", [id]);
  return r.rows[0] ? sessionFromRow(r.rows[0]) : null;
}

export async function createSession(c: Queryable, input: NewSession = {}): Promise<SessionRecord> {
  const id = input.id ?? randomUUID();
  const now = input.createdAt ?? Date.now();
  const title = input.title ?? "";
  const titleSource = input.titleSource ?? (title === "" ? "none" : "user");
  if (input.mode !== undefined && input.mode !== "normal" && input.mode !== "heartbeat") {
    throw new StoreError(
      "INVALID_ARGUMENT",
      `session mode ${JSON.stringify(input.mode)} cannot be stored (off-the-record sessions are never persisted)`,
    );
  }
  try {
    const r = await c.query<Row>(
      `INSERT INTO sessions (id, title, title_source, mode, workspace, model, model_chosen, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING *`,
      [
        id,
        title,
        titleSource,
        input.mode ?? "normal",
        input.workspace ?? "",
        input.model ?? "",
        (input.modelChosen ?? Boolean(input.model)) ? 1 : 0,
        now,
      ],
    );
    return sessionFromRow(r.rows[0] as Row);
  } catch (cause) {
    return mapPgError(cause, {
      conflict: `session ${JSON.stringify(id)} already exists`,
      invalid: `invalid session ${JSON.stringify(id)}`,
    });
  }
}

/** Adds messages to the session's counters (and locks its row for the transaction); false when it does not exist. */
export async function addToSession(
  c: Queryable,
  sessionId: string,
  count: number,
  updatedAt: number,
  u: TokenUsage,
): Promise<boolean> {
  const r = await c.query(
    `UPDATE sessions SET message_count = message_count + $1, updated_at = GREATEST(updated_at, $2), input_tokens = input_tokens + $3,
       output_tokens = output_tokens + $4, cache_read_tokens = cache_read_tokens + $5, cache_write_tokens = cache_write_tokens + $6 WHERE id = $7`,
    [count, updatedAt, u.inputTokens, u.outputTokens, u.cacheReadTokens, u.cacheWriteTokens, sessionId],
  );
  return (r.rowCount ?? 0) > 0;
}

/** Locks the session's row for the transaction; false when it does not exist. */
export async function lockSession(c: Queryable, sessionId: string): Promise<boolean> {
  return ((await c.query("SELECT 1 FROM sessions WHERE id = $1 FOR UPDATE", [sessionId])).rowCount ?? 0) > 0;
}

export async function nextMessageSeq(c: Queryable, sessionId: string, runId: string | null): Promise<number> {
  const r =
    runId === null
      ? await c.query<{ s: number | null }>(
          "SELECT MAX(seq) AS s FROM messages WHERE session_id = $1 AND sub_agent_run_id IS NULL",
          [sessionId],
        )
      : await c.query<{ s: number | null }>("SELECT MAX(seq) AS s FROM messages WHERE sub_agent_run_id = $1", [runId]);
  return (r.rows[0]?.s ?? 0) + 1;
}

/** `lexemes: false`: the caller adds the row's words to the lexeme table (a turn adds all its rows' at once). */
export async function insertMessage(
  c: Queryable,
  input: NewMessage,
  seq: number,
  lexemes = true,
): Promise<MessageRecord> {
  const row = messageRow(input, seq);
  const id = row.id as string;
  const vector = searchVector([input.content]);
  try {
    if (lexemes) await addLexemes(c, vector.lexemes);
    await c.query(
      `INSERT INTO messages (id, session_id, sub_agent_run_id, seq, role, content, created_at, parent_id, tool_call_id,
         input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, tsv)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::tsvector)`,
      [
        id,
        input.sessionId,
        row.sub_agent_run_id,
        seq,
        input.role,
        input.content,
        row.created_at,
        row.parent_id,
        row.tool_call_id,
        row.input_tokens,
        row.output_tokens,
        row.cache_read_tokens,
        row.cache_write_tokens,
        vector.tsv,
      ],
    );
  } catch (cause) {
    mapPgError(cause, {
      missing: `cannot append message ${id}: session ${input.sessionId}, parent or sub-agent run does not exist`,
      conflict: `message ${JSON.stringify(id)} already exists`,
      invalid: `invalid message role ${JSON.stringify(input.role)}`,
    });
  }
  return messageFromRow(row);
}

export async function appendMessage(c: Queryable, input: NewMessage): Promise<MessageRecord> {
  checkMessage(input);
  const main = (input.subAgentRunId ?? null) === null;
  const createdAt = input.createdAt ?? Date.now();
  // The session's row first: it locks the session's seq counter until the commit.
  if (!(await addToSession(c, input.sessionId, main ? 1 : 0, main ? createdAt : 0, input.usage ?? ZERO))) {
    throw new StoreError("NOT_FOUND", `cannot append message: session ${input.sessionId} does not exist`);
  }
  return insertMessage(
    c,
    { ...input, createdAt },
    await nextMessageSeq(c, input.sessionId, input.subAgentRunId ?? null),
  );
}

export async function messageById(c: Queryable, id: string): Promise<MessageRecord | null> {
  const r = await c.query<Row>("SELECT * FROM messages WHERE id = $1", [id]);
  return r.rows[0] ? messageFromRow(r.rows[0]) : null;
}

async function addUsage(c: Queryable, sessionId: string, u: TokenUsage, sign: 1 | -1): Promise<void> {
  await c.query(
    `UPDATE sessions SET input_tokens = input_tokens + $1, output_tokens = output_tokens + $2,
       cache_read_tokens = cache_read_tokens + $3, cache_write_tokens = cache_write_tokens + $4 WHERE id = $5`,
    [sign * u.inputTokens, sign * u.outputTokens, sign * u.cacheReadTokens, sign * u.cacheWriteTokens, sessionId],
  );
}

export async function updateMessage(c: Queryable, id: string, patch: MessagePatch): Promise<MessageRecord> {
  const old = await messageById(c, id);
  if (!old) throw notFound("message", id);
  if (patch.content !== undefined) {
    const vector = searchVector([patch.content]);
    await addLexemes(c, vector.lexemes);
    await c.query("UPDATE messages SET content = $1, tsv = $2::tsvector WHERE id = $3", [
      patch.content,
      vector.tsv,
      id,
    ]);
  }
  if (patch.usage) {
    const u = patch.usage;
    await c.query(
      "UPDATE messages SET input_tokens = $1, output_tokens = $2, cache_read_tokens = $3, cache_write_tokens = $4 WHERE id = $5",
      [u.inputTokens, u.outputTokens, u.cacheReadTokens, u.cacheWriteTokens, id],
    );
    await addUsage(c, old.sessionId, old.usage ?? ZERO, -1);
    await addUsage(c, old.sessionId, u, 1);
  }
  return (await messageById(c, id)) as MessageRecord;
}

const INSERT_TOOL_CALL = `INSERT INTO tool_calls (${TOOL_CALL_COLUMNS.join(", ")}, tsv) VALUES (${TOOL_CALL_COLUMNS.map((_, i) => `$${String(i + 1)}`).join(", ")}, $${String(TOOL_CALL_COLUMNS.length + 1)}::tsvector)`;

/** `lexemes: false`: the caller adds the row's words to the lexeme table. */
export async function insertToolCall(
  c: Queryable,
  input: NewToolCall,
  sessionId: string,
  lexemes = true,
): Promise<ToolCallRecord> {
  const row = toolCallRow(input, sessionId);
  const vector = searchVector([input.toolName, input.argumentsJson, input.result]);
  try {
    if (lexemes) await addLexemes(c, vector.lexemes);
    await c.query(INSERT_TOOL_CALL, [...TOOL_CALL_COLUMNS.map((k) => row[k]), vector.tsv]);
  } catch (cause) {
    mapPgError(cause, {
      conflict: `tool call ${input.callId} of message ${input.messageId} is already recorded: use updateToolCall`,
      missing: `cannot record tool call ${input.callId}: message ${input.messageId} or its sub-agent run does not exist`,
      invalid: `invalid tool call ${input.callId} (verdict or approval decision)`,
    });
  }
  return toolCallFromRow(row);
}

export async function recordToolCall(c: Queryable, input: NewToolCall, lexemes = true): Promise<ToolCallRecord> {
  checkToolCall(input);
  const m = await c.query<{ session_id: string }>("SELECT session_id FROM messages WHERE id = $1", [input.messageId]);
  const sessionId = m.rows[0]?.session_id;
  if (sessionId === undefined) throw notFound("message", input.messageId);
  return insertToolCall(c, input, sessionId, lexemes);
}

export async function getToolCall(c: Queryable, messageId: string, callId: string): Promise<ToolCallRecord> {
  const r = await c.query<Row>("SELECT * FROM tool_calls WHERE message_id = $1 AND call_id = $2", [messageId, callId]);
  if (!r.rows[0]) throw notFound("tool call", `${messageId}/${callId}`);
  return toolCallFromRow(r.rows[0]);
}

export async function updateToolCall(
  c: Queryable,
  messageId: string,
  callId: string,
  patch: ToolCallPatch,
): Promise<ToolCallRecord> {
  const old = await getToolCall(c, messageId, callId);
  const sets: string[] = [];
  const values: unknown[] = [];
  const add = (col: string, value: unknown): void => {
    values.push(value);
    sets.push(`${col} = $${String(values.length)}`);
  };
  const addAll = (cols: string[], vals: unknown[]): void => cols.forEach((col, i) => add(col, vals[i]));
  if (patch.verdict) addAll([...VERDICT_COLUMNS], verdictColumns(patch.verdict));
  if (patch.approval) addAll([...APPROVAL_COLUMNS], approvalColumns(patch.approval));
  if (patch.result !== undefined) add("result", patch.result);
  if (patch.isError !== undefined) add("is_error", patch.isError ? 1 : 0);
  if (patch.durationMs !== undefined) add("duration_ms", patch.durationMs);
  if (patch.artifacts) add("artifacts_json", JSON.stringify(patch.artifacts));
  if (patch.completedAt !== undefined) add("completed_at", patch.completedAt);
  if (patch.argumentsJson !== undefined) add("arguments_json", patch.argumentsJson);
  if (patch.resultTrust !== undefined) add("result_trust", patch.resultTrust);
  if (patch.result !== undefined || patch.argumentsJson !== undefined) {
    const vector = searchVector([old.toolName, patch.argumentsJson ?? old.argumentsJson, patch.result ?? old.result]);
    await addLexemes(c, vector.lexemes);
    add("tsv", vector.tsv);
    sets[sets.length - 1] += "::tsvector";
  }
  if (sets.length > 0) {
    try {
      await c.query(
        `UPDATE tool_calls SET ${sets.join(", ")} WHERE message_id = $${String(values.length + 1)} AND call_id = $${String(values.length + 2)}`,
        [...values, messageId, callId],
      );
    } catch (cause) {
      mapPgError(cause, { invalid: `invalid update of tool call ${callId} (verdict or approval decision)` });
    }
  }
  return getToolCall(c, messageId, callId);
}

export async function recordSubAgentRun(c: Queryable, input: NewSubAgentRun): Promise<SubAgentRunRecord> {
  const id = input.id ?? randomUUID();
  try {
    const r = await c.query<Row>(
      `INSERT INTO sub_agent_runs (${SUB_AGENT_RUN_COLUMNS.join(", ")}) VALUES (${SUB_AGENT_RUN_COLUMNS.map((_, i) => `$${String(i + 1)}`).join(", ")}) RETURNING *`,
      subAgentRunValues({ ...input, id }),
    );
    return subAgentRunFromRow(r.rows[0] as Row);
  } catch (cause) {
    return mapPgError(cause, {
      missing: `cannot record sub-agent run ${id}: session ${input.sessionId} or its parent message does not exist`,
      conflict: `sub-agent run ${id} already exists`,
    });
  }
}

export async function getSubAgentRun(c: Queryable, id: string): Promise<SubAgentRunRecord> {
  const r = await c.query<Row>("SELECT * FROM sub_agent_runs WHERE id = $1", [id]);
  if (!r.rows[0]) throw notFound("sub-agent run", id);
  return subAgentRunFromRow(r.rows[0]);
}

export async function updateSubAgentRun(c: Queryable, id: string, patch: SubAgentRunPatch): Promise<SubAgentRunRecord> {
  await getSubAgentRun(c, id);
  const cols = subAgentRunPatchColumns(patch);
  if (cols.length > 0) {
    await c.query(
      `UPDATE sub_agent_runs SET ${cols.map(([col], i) => `${col} = $${String(i + 1)}`).join(", ")} WHERE id = $${String(cols.length + 1)}`,
      [...cols.map(([, v]) => v), id],
    );
  }
  return getSubAgentRun(c, id);
}

export async function recordSessionModel(c: Queryable, id: string, model: string): Promise<boolean> {
  const r = await c.query("UPDATE sessions SET model = $1 WHERE id = $2 AND model_chosen = 0 AND model <> $1", [
    model,
    id,
  ]);
  return (r.rowCount ?? 0) > 0;
}

export async function renameSession(c: Queryable, id: string, title: string): Promise<SessionRecord> {
  const r = await c.query<Row>("UPDATE sessions SET title = $1, title_source = 'user' WHERE id = $2 RETURNING *", [
    title,
    id,
  ]);
  if (!r.rows[0]) throw notFound("session", id);
  return sessionFromRow(r.rows[0]);
}

export async function setAutoTitle(
  c: Queryable,
  id: string,
  title: string,
  source: "auto" | "first_message" = "auto",
): Promise<boolean> {
  const allowed = source === "auto" ? ["none", "first_message", "auto"] : ["none", "first_message"];
  const r = await c.query(
    "UPDATE sessions SET title = $1, title_source = $2 WHERE id = $3 AND title_source = ANY($4)",
    [title, source, id, allowed],
  );
  if ((r.rowCount ?? 0) === 0 && !(await getSessionRow(c, id))) throw notFound("session", id);
  return (r.rowCount ?? 0) > 0;
}
