// The Engine's records as @palisade/store rows and back: one mapping for the SQLite and the
// PostgreSQL adapters and for sub-agent runs, so a tool call is stored the same whoever made it.
import type {
  Approval,
  MessageRecord as StoredMessage,
  NewToolCall,
  SearchOptions,
  SessionRecord as StoredSession,
  ToolCallRecord as StoredCall,
} from "@palisade/store";
import type {
  AuditEntry,
  MessageRecord,
  RecordedApproval,
  SearchQuery,
  SessionRecord,
  StoredRun,
  ToolCallRecordRow,
} from "../ports.js";

export function session(s: StoredSession): SessionRecord {
  return {
    id: s.id,
    title: s.title,
    mode: s.mode,
    workspace: s.workspace,
    model: s.model,
    modelChosen: s.modelChosen,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    messageCount: s.messageCount,
    usage: { ...s.usage },
  };
}

/** The outcomes that settled an approval instead of a person: the row's `by` is the outcome itself. */
const SETTLED_WITHOUT_PERSON: ReadonlySet<string> = new Set<RecordedApproval>(["session", "cancelled", "unattended"]);

export function call(c: StoredCall): ToolCallRecordRow {
  return {
    callId: c.callId,
    toolName: c.toolName,
    argumentsJson: c.argumentsJson,
    ...(c.verdict ? { verdict: { ...c.verdict } } : {}),
    approval: c.approval
      ? SETTLED_WITHOUT_PERSON.has(c.approval.by)
        ? (c.approval.by as RecordedApproval)
        : c.approval.decision
      : "",
    result: c.result ?? "",
    isError: c.isError,
    durationMs: c.durationMs ?? 0,
    artifacts: c.artifacts.map((a) => ({ ...a })),
    startedAt: c.createdAt,
    ...(c.resultTrust ? { resultTrust: c.resultTrust } : {}),
    textOffset: c.textOffset,
  };
}

export function message(m: StoredMessage): MessageRecord {
  return {
    id: m.id,
    sessionId: m.sessionId,
    role: m.role,
    content: m.content,
    createdAt: m.createdAt,
    toolCalls: m.toolCalls.map(call),
    ...(m.usage ? { usage: { ...m.usage } } : {}),
    seq: m.seq,
  };
}

/** The stored approval of a record's `approval` (what calls/run.ts left there), settled at `at`. */
function approvalRow(approval: RecordedApproval, at: number): Approval | undefined {
  switch (approval) {
    case "":
      return undefined;
    case "session":
      return { decision: "allow_session", by: "session", at };
    case "cancelled":
      return { decision: "deny", by: "cancelled", at };
    case "timeout":
      return { decision: "timeout", by: "timeout", at };
    case "allow_once":
    case "allow_session":
    case "deny":
      return { decision: approval, by: "user", at };
    default:
      return { decision: "deny", by: approval, at };
  }
}

/** A tool call of a turn as the store's row, owned by the message `messageId`. */
export function callRow(c: ToolCallRecordRow, messageId: string): NewToolCall {
  const approval = approvalRow(c.approval, c.startedAt + c.durationMs);
  return {
    callId: c.callId,
    messageId,
    toolName: c.toolName,
    argumentsJson: c.argumentsJson,
    ...(c.verdict ? { verdict: { ...c.verdict } } : {}),
    ...(approval ? { approval } : {}),
    result: c.result,
    isError: c.isError,
    durationMs: c.durationMs,
    artifacts: c.artifacts,
    createdAt: c.startedAt,
    completedAt: c.startedAt + c.durationMs,
    ...(c.resultTrust ? { resultTrust: c.resultTrust } : {}),
    ...(c.textOffset !== undefined ? { textOffset: c.textOffset } : {}),
  };
}

/** A sub-agent's tool call as the store's row: a turn's row, linked to the run. */
export function runCallRow(c: ToolCallRecordRow, run: StoredRun, messageId: string): NewToolCall {
  return { ...callRow(c, messageId), subAgentName: run.name, subAgentRunId: run.id };
}

export function auditRow(e: AuditEntry): {
  kind: string;
  sessionId: string;
  actor: string;
  callId: string;
  payload: Record<string, unknown>;
  ts: number;
} {
  return { kind: e.kind, sessionId: e.sessionId, actor: e.actor, callId: e.callId, payload: e.payload, ts: e.ts };
}

/** A search's filters as the store takes them. */
export function searchOptions(q: SearchQuery): SearchOptions {
  return {
    limit: q.limit,
    offset: q.offset,
    ...(q.sessionId ? { sessionId: q.sessionId } : {}),
    ...(q.fromMs !== undefined ? { from: q.fromMs } : {}),
    ...(q.toMs !== undefined ? { to: q.toMs } : {}),
    ...(q.role ? { role: q.role as NonNullable<SearchOptions["role"]> } : {}),
    ...(q.toolName ? { toolName: q.toolName } : {}),
    ...(q.decision ? { decision: q.decision } : {}),
  };
}
