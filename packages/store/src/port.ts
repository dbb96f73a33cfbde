// The store as the Engine and the contract tests see it, whichever database holds it: every
// call returns a promise (PostgreSQL answers over a socket). The SQLite Store stays synchronous
// underneath (better-sqlite3: a call costs microseconds, a promise hop would double some), and
// `sqliteHistory` presents it through this interface.
import type { AuditKey, AuditVerification, NewAudit } from "./audit.js";
import type { ExportFormat, ExportOptions, ExportResult } from "./export.js";
import type { HistoryOptions, HistoryPage, ListSessionsOptions, SessionPage } from "./history.js";
import type { DeleteResult, RetentionOptions, RetentionResult, StoreStats } from "./lifecycle.js";
import type { NewArtifact, NewEvent, NewMemory } from "./inputs.js";
import type { SearchOptions, SearchResult } from "./search.js";
import type { Store } from "./store.js";
import type { CommittedTurn, TurnRows } from "./turn.js";
import type {
  ArtifactRecord,
  AuditRecord,
  EventRecord,
  MemoryRecord,
  MessageRecord,
  SessionRecord,
  SubAgentRunRecord,
  ToolCallRecord,
} from "./types.js";
import type {
  MessagePatch,
  NewMessage,
  NewSession,
  NewSubAgentRun,
  NewToolCall,
  SubAgentRunPatch,
  ToolCallPatch,
} from "./inputs.js";

export interface HistoryStore {
  createSession(input?: NewSession): Promise<SessionRecord>;
  appendMessage(input: NewMessage): Promise<MessageRecord>;
  updateMessage(id: string, patch: MessagePatch): Promise<MessageRecord>;
  recordToolCall(input: NewToolCall): Promise<ToolCallRecord>;
  updateToolCall(messageId: string, callId: string, patch: ToolCallPatch): Promise<ToolCallRecord>;
  appendEvent(input: NewEvent): Promise<EventRecord>;
  appendMemory(input: NewMemory): Promise<MemoryRecord>;
  recordSubAgentRun(input: NewSubAgentRun): Promise<SubAgentRunRecord>;
  updateSubAgentRun(id: string, patch: SubAgentRunPatch): Promise<SubAgentRunRecord>;
  recordArtifact(input: NewArtifact): Promise<ArtifactRecord>;
  appendAudit(input: NewAudit): Promise<AuditRecord>;
  appendAudits(inputs: readonly NewAudit[]): Promise<AuditRecord[]>;
  setAuditKey(key: AuditKey): void;
  auditHead(): Promise<{ seq: number; hash: string }>;
  renameSession(id: string, title: string): Promise<SessionRecord>;
  recordSessionModel(id: string, model: string): Promise<boolean>;
  setAutoTitle(id: string, title: string, source?: "auto" | "first_message"): Promise<boolean>;
  commitTurn(sessionId: string, turn: TurnRows): Promise<CommittedTurn>;
  deleteSession(id: string): Promise<DeleteResult>;
  applyRetention(options: RetentionOptions): Promise<RetentionResult>;
  getSession(id: string): Promise<SessionRecord | null>;
  listSessions(options?: ListSessionsOptions): Promise<SessionPage>;
  getHistory(sessionId: string, options?: HistoryOptions): Promise<HistoryPage>;
  getMessage(id: string): Promise<MessageRecord | null>;
  getToolCall(messageId: string, callId: string): Promise<ToolCallRecord>;
  listEvents(sessionId: string, afterSeq?: number, limit?: number): Promise<EventRecord[]>;
  lastEvent(sessionId: string): Promise<EventRecord | null>;
  listMemory(sessionId: string): Promise<MemoryRecord[]>;
  listSubAgentRuns(sessionId: string): Promise<SubAgentRunRecord[]>;
  getSubAgentTranscript(runId: string): Promise<MessageRecord[]>;
  getArtifact(id: string): Promise<ArtifactRecord>;
  getArtifactData(id: string): Promise<Buffer | null>;
  listArtifacts(sessionId: string): Promise<ArtifactRecord[]>;
  search(query: string, options?: SearchOptions): Promise<SearchResult>;
  exportSession(id: string, format: ExportFormat, options?: ExportOptions): Promise<ExportResult>;
  listAudit(options?: { sessionId?: string; afterSeq?: number; limit?: number }): Promise<AuditRecord[]>;
  verifyAudit(expectedHead?: { seq: number; hash: string }, key?: AuditKey): Promise<AuditVerification>;
  stats(since?: number): Promise<StoreStats>;
  close(): Promise<void>;
}

type Method = {
  [K in keyof HistoryStore]: HistoryStore[K] extends (...args: never[]) => unknown ? K : never;
}[keyof HistoryStore];

/** The SQLite store through the asynchronous interface: each call runs synchronously, its result (or error) as a promise. */
export function sqliteHistory(store: Store): HistoryStore {
  const wrap = <K extends Method>(name: K): HistoryStore[K] => {
    const fn = (store[name as keyof Store] as (...args: unknown[]) => unknown).bind(store);
    return ((...args: unknown[]) => {
      try {
        return Promise.resolve(fn(...args));
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
    }) as HistoryStore[K];
  };
  const names: Method[] = [
    "createSession",
    "appendMessage",
    "updateMessage",
    "recordToolCall",
    "updateToolCall",
    "appendEvent",
    "appendMemory",
    "recordSubAgentRun",
    "updateSubAgentRun",
    "recordArtifact",
    "appendAudit",
    "appendAudits",
    "auditHead",
    "renameSession",
    "recordSessionModel",
    "setAutoTitle",
    "commitTurn",
    "deleteSession",
    "applyRetention",
    "getSession",
    "listSessions",
    "getHistory",
    "getMessage",
    "getToolCall",
    "listEvents",
    "lastEvent",
    "listMemory",
    "listSubAgentRuns",
    "getSubAgentTranscript",
    "getArtifact",
    "getArtifactData",
    "listArtifacts",
    "search",
    "exportSession",
    "listAudit",
    "verifyAudit",
    "stats",
    "close",
  ];
  const out = Object.fromEntries(names.map((n) => [n, wrap(n)])) as unknown as HistoryStore;
  out.setAuditKey = (key) => store.setAuditKey(key);
  return out;
}
