// Everything the Engine writes. Nothing here runs unless the Engine calls it (no implicit writes:
// off-the-record sessions simply never reach these functions).
import { randomUUID } from "node:crypto";
import type { Db } from "./db.js";
import { StoreError, notFound } from "./errors.js";
import {
  APPROVAL_COLUMNS,
  MESSAGE_COLUMNS,
  TOOL_CALL_COLUMNS,
  SUB_AGENT_RUN_COLUMNS,
  VERDICT_COLUMNS,
  approvalColumns,
  messageRow,
  subAgentRunPatchColumns,
  subAgentRunValues,
  textOffsetOf,
  toolCallRow,
  verdictColumns,
} from "./new-rows.js";
import type {
  MessagePatch,
  NewMessage,
  NewSession,
  NewSubAgentRun,
  NewToolCall,
  SubAgentRunPatch,
  ToolCallPatch,
} from "./inputs.js";
import { messageFromRow, sessionFromRow, subAgentRunFromRow, toolCallFromRow } from "./rows.js";
import type { MessageRecord, SessionRecord, SubAgentRunRecord, TokenUsage, ToolCallRecord } from "./types.js";

const ZERO: TokenUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

function requireText(value: unknown, field: string): string {
  if (typeof value !== "string" || value === "") {
    throw new StoreError("INVALID_ARGUMENT", `${field} must be a non-empty string, got ${JSON.stringify(value)}`);
  }
  return value;
}

export function getSessionRow(db: Db, id: string): SessionRecord | null {
  const row = db.stmt("SELECT * FROM sessions WHERE id = ?").get(id) as Record<string, unknown> | undefined;
  return row ? sessionFromRow(row) : null;
}

function mustSession(db: Db, id: string): SessionRecord {
  const s = getSessionRow(db, id);
  if (!s) throw notFound("session", id);
  return s;
}

export function createSession(db: Db, input: NewSession = {}): SessionRecord {
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
    db.stmt(
      `INSERT INTO sessions (id, title, title_source, mode, workspace, model, model_chosen, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      id,
      title,
      titleSource,
      input.mode ?? "normal",
      input.workspace ?? "",
      input.model ?? "",
      (input.modelChosen ?? Boolean(input.model)) ? 1 : 0,
      now,
      now,
    );
  } catch (cause) {
    if ((cause as { code?: string }).code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
      throw new StoreError("CONFLICT", `session ${JSON.stringify(id)} already exists`, { cause });
    }
    throw cause;
  }
  return mustSession(db, id);
}

function addUsage(db: Db, sessionId: string, u: TokenUsage, sign: 1 | -1): void {
  db.stmt(
    `UPDATE sessions SET input_tokens = input_tokens + ?, output_tokens = output_tokens + ?,
       cache_read_tokens = cache_read_tokens + ?, cache_write_tokens = cache_write_tokens + ? WHERE id = ?`,
  ).run(sign * u.inputTokens, sign * u.outputTokens, sign * u.cacheReadTokens, sign * u.cacheWriteTokens, sessionId);
}

/** The next seq of a session's main history, or of a sub-agent run's transcript. */
export function nextMessageSeq(db: Db, sessionId: string, runId: string | null): number {
  // `= +?`, not `= ?`: see "Plans that stay prepared" in db.ts.
  const last = (
    runId === null
      ? db.stmt("SELECT MAX(seq) AS s FROM messages WHERE session_id = +? AND sub_agent_run_id IS NULL").get(sessionId)
      : db.stmt("SELECT MAX(seq) AS s FROM messages WHERE sub_agent_run_id = +?").get(runId)
  ) as { s: number | null };
  return (last.s ?? 0) + 1;
}

export function checkMessage(input: NewMessage): void {
  requireText(input.sessionId, "sessionId");
  if (typeof input.content !== "string") throw new StoreError("INVALID_ARGUMENT", "message content must be a string");
}

/**
 * Inserts a message row at `seq`; the caller updates the session's counters and runs this in its
 * transaction. Returns the record as a read of the row would give it.
 */
export function insertMessage(db: Db, input: NewMessage, seq: number): MessageRecord {
  const row = messageRow(input, seq);
  const id = row.id as string;
  try {
    db.stmt(INSERT_MESSAGE).run(MESSAGE_COLUMNS.map((c) => row[c]));
  } catch (cause) {
    const code = (cause as { code?: string }).code;
    if (code === "SQLITE_CONSTRAINT_FOREIGNKEY") {
      throw new StoreError(
        "NOT_FOUND",
        `cannot append message ${id}: session ${input.sessionId}, parent or sub-agent run does not exist`,
        { cause },
      );
    }
    if (code === "SQLITE_CONSTRAINT_UNIQUE")
      throw new StoreError("CONFLICT", `message ${JSON.stringify(id)} already exists`, { cause });
    if (code === "SQLITE_CONSTRAINT_CHECK")
      throw new StoreError("INVALID_ARGUMENT", `invalid message role ${JSON.stringify(input.role)}`, { cause });
    throw cause;
  }
  return messageFromRow(row);
}

export function appendMessage(db: Db, input: NewMessage): MessageRecord {
  checkMessage(input);
  return db.tx(() => {
    const rec = insertMessage(db, input, nextMessageSeq(db, input.sessionId, input.subAgentRunId ?? null));
    // A sub-agent's transcript message adds its usage only (updated_at 0 leaves it as it is).
    const main = rec.subAgentRunId === null;
    if (main || input.usage)
      addToSession(db, input.sessionId, main ? 1 : 0, main ? rec.createdAt : 0, input.usage ?? ZERO);
    return rec;
  });
}

/**
 * Adds a turn's messages to the session's counters in one statement: `count` main-history
 * messages (the newest created at `updatedAt`) and `usage` of all of them. False when the session
 * does not exist.
 */
export function addToSession(db: Db, sessionId: string, count: number, updatedAt: number, u: TokenUsage): boolean {
  return (
    db
      .stmt(
        `UPDATE sessions SET message_count = message_count + ?, updated_at = MAX(updated_at, ?), input_tokens = input_tokens + ?,
       output_tokens = output_tokens + ?, cache_read_tokens = cache_read_tokens + ?, cache_write_tokens = cache_write_tokens + ? WHERE id = ?`,
      )
      .run(count, updatedAt, u.inputTokens, u.outputTokens, u.cacheReadTokens, u.cacheWriteTokens, sessionId).changes >
    0
  );
}

export function updateMessage(db: Db, id: string, patch: MessagePatch): MessageRecord {
  return db.tx(() => {
    const row = db.stmt("SELECT * FROM messages WHERE id = ?").get(id) as Record<string, unknown> | undefined;
    if (!row) throw notFound("message", id);
    const old = messageFromRow(row);
    if (patch.content !== undefined) db.stmt("UPDATE messages SET content = ? WHERE id = ?").run(patch.content, id);
    if (patch.usage) {
      const u = patch.usage;
      db.stmt(
        "UPDATE messages SET input_tokens = ?, output_tokens = ?, cache_read_tokens = ?, cache_write_tokens = ? WHERE id = ?",
      ).run(u.inputTokens, u.outputTokens, u.cacheReadTokens, u.cacheWriteTokens, id);
      addUsage(db, old.sessionId, old.usage ?? ZERO, -1);
      addUsage(db, old.sessionId, u, 1);
    }
    return messageFromRow(db.stmt("SELECT * FROM messages WHERE id = ?").get(id) as Record<string, unknown>);
  });
}

export function recordToolCall(db: Db, input: NewToolCall): ToolCallRecord {
  checkToolCall(input);
  const msg = db.stmt("SELECT session_id FROM messages WHERE id = ?").get(input.messageId) as
    { session_id: string } | undefined;
  if (!msg) throw notFound("message", input.messageId);
  return insertToolCall(db, input, msg.session_id);
}

export function checkToolCall(input: NewToolCall): void {
  requireText(input.callId, "callId");
  requireText(input.toolName, "toolName");
  textOffsetOf(input);
}

const INSERT_MESSAGE = `INSERT INTO messages (${MESSAGE_COLUMNS.join(", ")}) VALUES (${MESSAGE_COLUMNS.map(() => "?").join(", ")})`;
const INSERT_TOOL_CALL = `INSERT INTO tool_calls (${TOOL_CALL_COLUMNS.join(", ")}) VALUES (${TOOL_CALL_COLUMNS.map(() => "?").join(", ")})`;

/** Inserts a tool call of a message of `sessionId`; returns the record as a read of the row would give it. */
export function insertToolCall(db: Db, input: NewToolCall, sessionId: string): ToolCallRecord {
  const row = toolCallRow(input, sessionId);
  try {
    db.stmt(INSERT_TOOL_CALL).run(TOOL_CALL_COLUMNS.map((c) => row[c]));
  } catch (cause) {
    const code = (cause as { code?: string }).code;
    if (code === "SQLITE_CONSTRAINT_UNIQUE") {
      throw new StoreError(
        "CONFLICT",
        `tool call ${input.callId} of message ${input.messageId} is already recorded: use updateToolCall`,
        { cause },
      );
    }
    throw cause;
  }
  return toolCallFromRow(row);
}

export function getToolCall(db: Db, messageId: string, callId: string): ToolCallRecord {
  const row = db.stmt("SELECT * FROM tool_calls WHERE message_id = ? AND call_id = ?").get(messageId, callId) as
    Record<string, unknown> | undefined;
  if (!row) throw notFound("tool call", `${messageId}/${callId}`);
  return toolCallFromRow(row);
}

export function updateToolCall(db: Db, messageId: string, callId: string, patch: ToolCallPatch): ToolCallRecord {
  return db.tx(() => {
    getToolCall(db, messageId, callId);
    const sets: string[] = [];
    const values: unknown[] = [];
    const set = (cols: readonly string[], vals: unknown[]): void => {
      for (const c of cols) sets.push(`${c} = ?`);
      values.push(...vals);
    };
    if (patch.verdict) set(VERDICT_COLUMNS, verdictColumns(patch.verdict));
    if (patch.approval) set(APPROVAL_COLUMNS, approvalColumns(patch.approval));
    if (patch.result !== undefined) set(["result"], [patch.result]);
    if (patch.isError !== undefined) set(["is_error"], [patch.isError ? 1 : 0]);
    if (patch.durationMs !== undefined) set(["duration_ms"], [patch.durationMs]);
    if (patch.artifacts) set(["artifacts_json"], [JSON.stringify(patch.artifacts)]);
    if (patch.completedAt !== undefined) set(["completed_at"], [patch.completedAt]);
    if (patch.argumentsJson !== undefined) set(["arguments_json"], [patch.argumentsJson]);
    if (patch.resultTrust !== undefined) set(["result_trust"], [patch.resultTrust]);
    if (sets.length > 0) {
      db.stmt(`UPDATE tool_calls SET ${sets.join(", ")} WHERE message_id = ? AND call_id = ?`).run(
        ...values,
        messageId,
        callId,
      );
    }
    return getToolCall(db, messageId, callId);
  });
}

export function recordSubAgentRun(db: Db, input: NewSubAgentRun): SubAgentRunRecord {
  const id = input.id ?? randomUUID();
  db.stmt(
    `INSERT INTO sub_agent_runs (${SUB_AGENT_RUN_COLUMNS.join(", ")}) VALUES (${SUB_AGENT_RUN_COLUMNS.map(() => "?").join(", ")})`,
  ).run(subAgentRunValues({ ...input, id }));
  return getSubAgentRun(db, id);
}

export function getSubAgentRun(db: Db, id: string): SubAgentRunRecord {
  const row = db.stmt("SELECT * FROM sub_agent_runs WHERE id = ?").get(id) as Record<string, unknown> | undefined;
  if (!row) throw notFound("sub-agent run", id);
  return subAgentRunFromRow(row);
}

export function updateSubAgentRun(db: Db, id: string, patch: SubAgentRunPatch): SubAgentRunRecord {
  return db.tx(() => {
    getSubAgentRun(db, id);
    const cols = subAgentRunPatchColumns(patch);
    if (cols.length > 0) {
      db.stmt(`UPDATE sub_agent_runs SET ${cols.map(([c]) => `${c} = ?`).join(", ")} WHERE id = ?`).run(
        ...cols.map(([, v]) => v),
        id,
      );
    }
    return getSubAgentRun(db, id);
  });
}

/** Renames a session; the title becomes a user title that automatic titles never overwrite. */
/**
 * Records the configured model a session's turn runs with, unless the session's model was chosen
 * (then it stays). Returns whether the row changed.
 */
export function recordSessionModel(db: Db, id: string, model: string): boolean {
  return (
    db.stmt(`UPDATE sessions SET model = ? WHERE id = ? AND model_chosen = 0 AND model <> ?`).run(model, id, model)
      .changes > 0
  );
}

export function renameSession(db: Db, id: string, title: string): SessionRecord {
  const r = db.stmt("UPDATE sessions SET title = ?, title_source = 'user' WHERE id = ?").run(title, id);
  if (r.changes === 0) throw notFound("session", id);
  return mustSession(db, id);
}

/**
 * Sets a generated title ("auto", from a model call) or a fallback ("first_message").
 * Returns false, changing nothing, when the user already chose a title, and when a fallback
 * would replace a generated title.
 */
export function setAutoTitle(db: Db, id: string, title: string, source: "auto" | "first_message" = "auto"): boolean {
  const allowed = source === "auto" ? "('none', 'first_message', 'auto')" : "('none', 'first_message')";
  const r = db
    .stmt(`UPDATE sessions SET title = ?, title_source = ? WHERE id = ? AND title_source IN ${allowed}`)
    .run(title, source, id);
  if (r.changes === 0 && !getSessionRow(db, id)) throw notFound("session", id);
  return r.changes > 0;
}

export function messageById(db: Db, id: string): MessageRecord | null {
  const row = db.stmt("SELECT * FROM messages WHERE id = ?").get(id) as Record<string, unknown> | undefined;
  return row ? messageFromRow(row) : null;
}
