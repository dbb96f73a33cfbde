// What callers give the store to write: new rows and patches, before the store fills in ids,
// times and defaults (new-rows.ts makes the rows, writes.ts and records.ts run the SQL).
import type {
  Approval,
  ArtifactRef,
  Role,
  SessionMode,
  SubAgentState,
  TitleSource,
  TokenUsage,
  Verdict,
} from "./types.js";

export interface NewSession {
  id?: string;
  title?: string;
  titleSource?: TitleSource;
  mode?: SessionMode;
  workspace?: string;
  model?: string;
  /** The model was asked for (default: true when a model is given). */
  modelChosen?: boolean;
  createdAt?: number;
}

export interface NewMessage {
  id?: string;
  sessionId: string;
  role: Role;
  content: string;
  createdAt?: number;
  usage?: TokenUsage;
  parentId?: string;
  toolCallId?: string;
  /** Transcript message of a sub-agent run (kept out of the session's history). */
  subAgentRunId?: string;
}

export interface MessagePatch {
  content?: string;
  /** Replaces the message's usage; the session totals are adjusted by the difference. */
  usage?: TokenUsage;
}

export interface NewToolCall {
  callId: string;
  messageId: string;
  toolName: string;
  argumentsJson: string;
  verdict?: Verdict;
  approval?: Approval;
  result?: string;
  isError?: boolean;
  durationMs?: number;
  artifacts?: ArtifactRef[];
  subAgentName?: string;
  subAgentRunId?: string;
  createdAt?: number;
  completedAt?: number;
  /** The provenance label of the delivered result (workspace, untrusted, secret), or "". */
  resultTrust?: string;
  /** How much of the message's text came before the call (see ToolCallRecord.textOffset). */
  textOffset?: number;
}

export type ToolCallPatch = Partial<
  Pick<
    NewToolCall,
    | "verdict"
    | "approval"
    | "result"
    | "isError"
    | "durationMs"
    | "artifacts"
    | "completedAt"
    | "argumentsJson"
    | "resultTrust"
  >
>;

export interface NewSubAgentRun {
  id?: string;
  sessionId: string;
  parentMessageId?: string;
  name: string;
  task: string;
  state?: SubAgentState;
  result?: string;
  error?: string;
  llmCalls?: number;
  toolCalls?: number;
  startedAt?: number;
  endedAt?: number;
}

export type SubAgentRunPatch = Partial<
  Pick<NewSubAgentRun, "state" | "result" | "error" | "llmCalls" | "toolCalls" | "endedAt">
>;

export interface NewEvent {
  sessionId: string;
  messageId?: string;
  type: string;
  /** JSON text, or a value serialized with JSON.stringify. */
  payload?: unknown;
  createdAt?: number;
}

export interface NewMemory {
  sessionId: string;
  messageId?: string;
  content: string;
  summary?: string;
  compactedMessages?: number;
  createdAt?: number;
}

export interface NewArtifact {
  id?: string;
  sessionId?: string;
  owner?: string;
  callId?: string;
  filename: string;
  mimeType?: string;
  sizeBytes: number;
  sha256?: string;
  /** Either a file path (bytes on disk) or the bytes themselves. */
  path?: string;
  data?: Uint8Array;
  createdAt?: number;
  expiresAt?: number;
}
