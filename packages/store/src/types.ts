// Records of the store. Field names follow proto/palisade/v1 (SessionInfo, ChatMessage,
// ToolCallRecord, ShieldVerdict, SearchHit, ArtifactRef) in camelCase; times are unix ms.

/** Persisted session modes. Off-the-record sessions are never written, so there is no "otr". */
export type SessionMode = "normal" | "heartbeat";
/** Where the title came from; a "user" title is never replaced by setAutoTitle. */
export type TitleSource = "none" | "first_message" | "auto" | "user";
export type Role = "user" | "assistant" | "system" | "tool";
export type VerdictDecision = "allow" | "block" | "escalate";
export type ApprovalDecision = "allow_once" | "allow_session" | "deny" | "timeout";
export type SubAgentState = "running" | "completed" | "failed" | "cancelled";
export type SessionSort = "updated_desc" | "updated_asc" | "created_desc" | "created_asc" | "title";

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export interface SessionRecord {
  id: string;
  title: string;
  titleSource: TitleSource;
  mode: SessionMode;
  workspace: string;
  model: string;
  /** The model was asked for when the session started (it stays); otherwise the configured one, recorded. */
  modelChosen: boolean;
  createdAt: number;
  updatedAt: number;
  messageCount: number;
  usage: TokenUsage;
}

export interface Verdict {
  decision: VerdictDecision;
  /** 0 policy, 1 detectors, 2 LLM judge, 3 human. */
  tier: number;
  confidence: number;
  reason: string;
  ruleIds: string[];
  evaluationUs: number;
}

export interface Approval {
  decision: ApprovalDecision;
  /** Who answered: a client id, "user"; or what settled it instead: "session" (a grant), "timeout", "cancelled", ... */
  by: string;
  at: number;
}

export interface ArtifactRef {
  artifactId: string;
  filename: string;
  mimeType: string;
  sizeBytes: number;
}

export interface ToolCallRecord {
  callId: string;
  messageId: string;
  sessionId: string;
  toolName: string;
  argumentsJson: string;
  verdict: Verdict | null;
  approval: Approval | null;
  result: string | null;
  isError: boolean;
  durationMs: number | null;
  artifacts: ArtifactRef[];
  subAgentName: string;
  subAgentRunId: string | null;
  createdAt: number;
  completedAt: number | null;
  /** The provenance label of the delivered result (workspace, untrusted, secret); "" when none. */
  resultTrust: string;
  /**
   * Where in its message's content the call happened: how much of the text (UTF-16 code units)
   * came before it. 0 for calls recorded before this was kept (they show before the text).
   */
  textOffset: number;
}

export interface MessageRecord {
  id: string;
  sessionId: string;
  seq: number;
  role: Role;
  content: string;
  createdAt: number;
  usage: TokenUsage | null;
  /** For tool rounds: the message this one continues (e.g. the turn's user message). */
  parentId: string | null;
  /** For role "tool": the call this message answers. */
  toolCallId: string | null;
  /** Set for the transcript of a sub-agent run; such messages are not in the session's history. */
  subAgentRunId: string | null;
  toolCalls: ToolCallRecord[];
}

export interface EventRecord {
  sessionId: string;
  seq: number;
  messageId: string;
  type: string;
  /** JSON text (e.g. the PipelineEvent as protobuf JSON). */
  payload: string;
  createdAt: number;
}

export interface MemoryRecord {
  sessionId: string;
  messageId: string;
  content: string;
  summary: string;
  compactedMessages: number;
  createdAt: number;
}

export interface SubAgentRunRecord {
  id: string;
  sessionId: string;
  parentMessageId: string | null;
  name: string;
  task: string;
  state: SubAgentState;
  result: string | null;
  error: string | null;
  llmCalls: number;
  toolCalls: number;
  startedAt: number;
  endedAt: number | null;
}

export interface ArtifactRecord {
  id: string;
  sessionId: string | null;
  owner: string;
  callId: string | null;
  filename: string;
  mimeType: string;
  sizeBytes: number;
  sha256: string | null;
  /** File on disk holding the bytes, or null when they are stored in the row. */
  path: string | null;
  hasData: boolean;
  createdAt: number;
  expiresAt: number | null;
}

export interface AuditRecord {
  seq: number;
  ts: number;
  sessionId: string;
  /** "proposal", "verdict", "approval", "execution", ... */
  kind: string;
  actor: string;
  callId: string;
  /** Canonical JSON (keys sorted). */
  payload: string;
  prevHash: string;
  hash: string;
}

export interface SearchHit {
  sessionId: string;
  sessionTitle: string;
  messageId: string;
  /** Set when the hit is a tool call (name, arguments or result). */
  callId: string;
  toolName: string;
  role: string;
  /** Matches wrapped in "[" and "]". */
  snippet: string;
  /** bm25: lower is better. */
  rank: number;
  createdAt: number;
  seq: number;
}
