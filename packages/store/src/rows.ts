// Row ↔ record mapping. SQL columns are snake_case; records are the camelCase shapes of types.ts.
import type {
  ArtifactRecord,
  ArtifactRef,
  AuditRecord,
  EventRecord,
  MemoryRecord,
  MessageRecord,
  Role,
  SessionMode,
  SessionRecord,
  SubAgentRunRecord,
  SubAgentState,
  TitleSource,
  TokenUsage,
  ToolCallRecord,
  ApprovalDecision,
  VerdictDecision,
} from "./types.js";

export type Row = Record<string, unknown>;

const str = (v: unknown): string =>
  typeof v === "string" ? v : typeof v === "number" || typeof v === "bigint" ? String(v) : "";
const num = (v: unknown): number => (typeof v === "number" ? v : typeof v === "bigint" ? Number(v) : 0);
const optStr = (v: unknown): string | null => (v == null ? null : str(v));
const optNum = (v: unknown): number | null => (v == null ? null : num(v));

export function sessionFromRow(r: Row): SessionRecord {
  return {
    id: str(r.id),
    title: str(r.title),
    titleSource: str(r.title_source) as TitleSource,
    mode: str(r.mode) as SessionMode,
    workspace: str(r.workspace),
    model: str(r.model),
    modelChosen: num(r.model_chosen) === 1,
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
    messageCount: num(r.message_count),
    usage: {
      inputTokens: num(r.input_tokens),
      outputTokens: num(r.output_tokens),
      cacheReadTokens: num(r.cache_read_tokens),
      cacheWriteTokens: num(r.cache_write_tokens),
    },
  };
}

function usageFromRow(r: Row): TokenUsage | null {
  if (r.input_tokens == null && r.output_tokens == null && r.cache_read_tokens == null && r.cache_write_tokens == null)
    return null;
  return {
    inputTokens: num(r.input_tokens),
    outputTokens: num(r.output_tokens),
    cacheReadTokens: num(r.cache_read_tokens),
    cacheWriteTokens: num(r.cache_write_tokens),
  };
}

export function messageFromRow(r: Row, toolCalls: ToolCallRecord[] = []): MessageRecord {
  return {
    id: str(r.id),
    sessionId: str(r.session_id),
    seq: num(r.seq),
    role: str(r.role) as Role,
    content: str(r.content),
    createdAt: num(r.created_at),
    usage: usageFromRow(r),
    parentId: optStr(r.parent_id),
    toolCallId: optStr(r.tool_call_id),
    subAgentRunId: optStr(r.sub_agent_run_id),
    toolCalls,
  };
}

function parseJson<T>(text: unknown, fallback: T): T {
  if (typeof text !== "string" || text === "") return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/** Rows written by earlier versions spell a session grant's `by` "session-grant"; it reads as the Engine says it. */
function approvalBy(v: unknown): string {
  const by = str(v);
  return by === "session-grant" ? "session" : by;
}

export function toolCallFromRow(r: Row): ToolCallRecord {
  return {
    callId: str(r.call_id),
    messageId: str(r.message_id),
    sessionId: str(r.session_id),
    toolName: str(r.tool_name),
    argumentsJson: str(r.arguments_json),
    verdict:
      r.verdict_decision == null
        ? null
        : {
            decision: str(r.verdict_decision) as VerdictDecision,
            tier: num(r.verdict_tier),
            confidence: num(r.verdict_confidence),
            reason: str(r.verdict_reason),
            ruleIds: parseJson<string[]>(r.verdict_rule_ids, []),
            evaluationUs: num(r.verdict_evaluation_us),
          },
    approval:
      r.approval_decision == null
        ? null
        : {
            decision: str(r.approval_decision) as ApprovalDecision,
            by: approvalBy(r.approval_by),
            at: num(r.approval_at),
          },
    result: optStr(r.result),
    isError: num(r.is_error) !== 0,
    durationMs: optNum(r.duration_ms),
    artifacts: parseJson<ArtifactRef[]>(r.artifacts_json, []),
    subAgentName: str(r.sub_agent_name),
    subAgentRunId: optStr(r.sub_agent_run_id),
    createdAt: num(r.created_at),
    completedAt: optNum(r.completed_at),
    resultTrust: r.result_trust == null ? "" : str(r.result_trust),
    textOffset: num(r.text_offset),
  };
}

export function eventFromRow(r: Row): EventRecord {
  return {
    sessionId: str(r.session_id),
    seq: num(r.seq),
    messageId: str(r.message_id),
    type: str(r.type),
    payload: str(r.payload),
    createdAt: num(r.created_at),
  };
}

export function memoryFromRow(r: Row): MemoryRecord {
  return {
    sessionId: str(r.session_id),
    messageId: str(r.message_id),
    content: str(r.content),
    summary: str(r.summary),
    compactedMessages: num(r.compacted_messages),
    createdAt: num(r.created_at),
  };
}

export function subAgentRunFromRow(r: Row): SubAgentRunRecord {
  return {
    id: str(r.id),
    sessionId: str(r.session_id),
    parentMessageId: optStr(r.parent_message_id),
    name: str(r.name),
    task: str(r.task),
    state: str(r.state) as SubAgentState,
    result: optStr(r.result),
    error: optStr(r.error),
    llmCalls: num(r.llm_calls),
    toolCalls: num(r.tool_calls),
    startedAt: num(r.started_at),
    endedAt: optNum(r.ended_at),
  };
}

export function artifactFromRow(r: Row): ArtifactRecord {
  return {
    id: str(r.id),
    sessionId: optStr(r.session_id),
    owner: str(r.owner),
    callId: optStr(r.call_id),
    filename: str(r.filename),
    mimeType: str(r.mime_type),
    sizeBytes: num(r.size_bytes),
    sha256: optStr(r.sha256),
    path: optStr(r.path),
    hasData: num(r.has_data) !== 0,
    createdAt: num(r.created_at),
    expiresAt: optNum(r.expires_at),
  };
}

export function auditFromRow(r: Row): AuditRecord {
  return {
    seq: num(r.seq),
    ts: num(r.ts),
    sessionId: str(r.session_id),
    kind: str(r.kind),
    actor: str(r.actor),
    callId: str(r.call_id),
    payload: str(r.payload),
    prevHash: str(r.prev_hash),
    hash: str(r.hash),
  };
}
