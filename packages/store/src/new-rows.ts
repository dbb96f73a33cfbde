// The rows a new message or tool call is stored as, the same on SQLite and PostgreSQL: each
// store's writes insert these columns and build the records they return from the same rows.
import { randomUUID } from "node:crypto";
import { StoreError } from "./errors.js";
import type { NewArtifact, NewMessage, NewSubAgentRun, NewToolCall, SubAgentRunPatch } from "./inputs.js";
import type { Row } from "./rows.js";
import type { Approval, Verdict } from "./types.js";

export const MESSAGE_COLUMNS = [
  "id",
  "session_id",
  "sub_agent_run_id",
  "seq",
  "role",
  "content",
  "created_at",
  "parent_id",
  "tool_call_id",
  "input_tokens",
  "output_tokens",
  "cache_read_tokens",
  "cache_write_tokens",
] as const;

/** A new message's row at `seq` (a default id and creation time filled in once). */
export function messageRow(input: NewMessage, seq: number): Row {
  const u = input.usage;
  return {
    id: input.id ?? randomUUID(),
    session_id: input.sessionId,
    sub_agent_run_id: input.subAgentRunId ?? null,
    seq,
    role: input.role,
    content: input.content,
    created_at: input.createdAt ?? Date.now(),
    parent_id: input.parentId ?? null,
    tool_call_id: input.toolCallId ?? null,
    input_tokens: u?.inputTokens ?? null,
    output_tokens: u?.outputTokens ?? null,
    cache_read_tokens: u?.cacheReadTokens ?? null,
    cache_write_tokens: u?.cacheWriteTokens ?? null,
  };
}

export const VERDICT_COLUMNS = [
  "verdict_decision",
  "verdict_tier",
  "verdict_confidence",
  "verdict_reason",
  "verdict_rule_ids",
  "verdict_evaluation_us",
] as const;
export const APPROVAL_COLUMNS = ["approval_decision", "approval_by", "approval_at"] as const;

export function verdictColumns(
  v: Verdict | undefined,
): [string | null, number | null, number | null, string | null, string | null, number | null] {
  return v
    ? [v.decision, v.tier, v.confidence, v.reason, JSON.stringify(v.ruleIds), v.evaluationUs]
    : [null, null, null, null, null, null];
}

export function approvalColumns(a: Approval | undefined): [string | null, string | null, number | null] {
  return a ? [a.decision, a.by, a.at] : [null, null, null];
}

export const TOOL_CALL_COLUMNS = [
  "call_id",
  "message_id",
  "session_id",
  "sub_agent_run_id",
  "sub_agent_name",
  "tool_name",
  "arguments_json",
  ...VERDICT_COLUMNS,
  ...APPROVAL_COLUMNS,
  "result",
  "is_error",
  "duration_ms",
  "artifacts_json",
  "created_at",
  "completed_at",
  "result_trust",
  "text_offset",
] as const;
export type ToolCallColumn = (typeof TOOL_CALL_COLUMNS)[number];

/** A new tool call's row, of a message of `sessionId` (a default creation time filled in once). */
export function toolCallRow(input: NewToolCall, sessionId: string): Record<ToolCallColumn, unknown> {
  const v = verdictColumns(input.verdict);
  const a = approvalColumns(input.approval);
  return {
    call_id: input.callId,
    message_id: input.messageId,
    session_id: sessionId,
    sub_agent_run_id: input.subAgentRunId ?? null,
    sub_agent_name: input.subAgentName ?? "",
    tool_name: input.toolName,
    arguments_json: input.argumentsJson,
    ...Object.fromEntries(VERDICT_COLUMNS.map((c, i) => [c, v[i]])),
    ...Object.fromEntries(APPROVAL_COLUMNS.map((c, i) => [c, a[i]])),
    result: input.result ?? null,
    is_error: input.isError ? 1 : 0,
    duration_ms: input.durationMs ?? null,
    artifacts_json: JSON.stringify(input.artifacts ?? []),
    created_at: input.createdAt ?? Date.now(),
    completed_at: input.completedAt ?? null,
    result_trust: input.resultTrust ?? "",
    text_offset: textOffsetOf(input),
  } as Record<ToolCallColumn, unknown>;
}

/** The call's text offset as stored: a whole number of characters, 0 when not given. */
export function textOffsetOf(input: NewToolCall): number {
  const n = input.textOffset ?? 0;
  if (!Number.isSafeInteger(n) || n < 0)
    throw new StoreError(
      "INVALID_ARGUMENT",
      `tool call ${input.callId}: textOffset must be a whole number of characters >= 0, got ${String(n)}`,
    );
  return n;
}

export const SUB_AGENT_RUN_COLUMNS = [
  "id",
  "session_id",
  "parent_message_id",
  "name",
  "task",
  "state",
  "result",
  "error",
  "llm_calls",
  "tool_calls",
  "started_at",
  "ended_at",
] as const;

/** A new sub-agent run's values, in SUB_AGENT_RUN_COLUMNS order (`id` filled in when missing). */
export function subAgentRunValues(input: NewSubAgentRun & { id: string }): unknown[] {
  return [
    input.id,
    input.sessionId,
    input.parentMessageId ?? null,
    input.name,
    input.task,
    input.state ?? "running",
    input.result ?? null,
    input.error ?? null,
    input.llmCalls ?? 0,
    input.toolCalls ?? 0,
    input.startedAt ?? Date.now(),
    input.endedAt ?? null,
  ];
}

/** The columns a sub-agent run's patch sets, with their values. */
export function subAgentRunPatchColumns(patch: SubAgentRunPatch): Array<[string, unknown]> {
  const cols: Array<[string, unknown]> = [];
  if (patch.state !== undefined) cols.push(["state", patch.state]);
  if (patch.result !== undefined) cols.push(["result", patch.result]);
  if (patch.error !== undefined) cols.push(["error", patch.error]);
  if (patch.llmCalls !== undefined) cols.push(["llm_calls", patch.llmCalls]);
  if (patch.toolCalls !== undefined) cols.push(["tool_calls", patch.toolCalls]);
  if (patch.endedAt !== undefined) cols.push(["ended_at", patch.endedAt]);
  return cols;
}

export const ARTIFACT_INSERT_COLUMNS = [
  "id",
  "session_id",
  "owner",
  "call_id",
  "filename",
  "mime_type",
  "size_bytes",
  "sha256",
  "path",
  "data",
  "created_at",
  "expires_at",
] as const;

/** A new artifact's id and values in ARTIFACT_INSERT_COLUMNS order; refuses one with both or neither of path and data. */
export function artifactValues(input: NewArtifact): { id: string; values: unknown[] } {
  if ((input.path === undefined) === (input.data === undefined)) {
    throw new StoreError(
      "INVALID_ARGUMENT",
      `artifact ${input.filename}: give exactly one of path (bytes on disk) or data (bytes in the row)`,
    );
  }
  const id = input.id ?? randomUUID();
  return {
    id,
    values: [
      id,
      input.sessionId ?? null,
      input.owner ?? "",
      input.callId ?? null,
      input.filename,
      input.mimeType ?? "application/octet-stream",
      input.sizeBytes,
      input.sha256 ?? null,
      input.path ?? null,
      input.data ? Buffer.from(input.data) : null,
      input.createdAt ?? Date.now(),
      input.expiresAt ?? null,
    ],
  };
}
