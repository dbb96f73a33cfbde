// The public face of the store: one object the Engine opens once and closes on shutdown.
// The Engine process is the only writer; other processes may open the file with { readonly: true }.
import { appendAudit, appendAuditBatch, auditHead, listAudit, verifyAudit, type AuditKey } from "./audit.js";
import type { AuditVerification, NewAudit } from "./audit.js";
import { openDb } from "./db.js";
import type { Db, OpenOptions } from "./db.js";
import { StoreError } from "./errors.js";
import { exportSession } from "./export.js";
import type { ExportFormat, ExportOptions, ExportResult } from "./export.js";
import { getHistory, getSession, getSubAgentTranscript, listSessions, listSubAgentRuns } from "./history.js";
import type { HistoryOptions, HistoryPage, ListSessionsOptions, SessionPage } from "./history.js";
import { applyRetention, deleteSession, stats } from "./lifecycle.js";
import type { DeleteResult, RetentionOptions, RetentionResult, StoreStats } from "./lifecycle.js";
import { schemaVersion } from "./migrations.js";
import {
  appendEvent,
  appendMemory,
  getArtifact,
  lastEvent,
  getArtifactData,
  listArtifacts,
  listEvents,
  listMemory,
  recordArtifact,
} from "./records.js";
import type { NewArtifact, NewEvent, NewMemory } from "./inputs.js";
import { search } from "./search.js";
import { COUNTED } from "./pg/import.js";
import { WalSync } from "./sync.js";
import { commitTurn } from "./turn.js";
import type { CommittedTurn, TurnRows } from "./turn.js";
import type { SearchOptions, SearchResult } from "./search.js";
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
import {
  appendMessage,
  createSession,
  getToolCall,
  messageById,
  recordSessionModel,
  recordSubAgentRun,
  recordToolCall,
  renameSession,
  setAutoTitle,
  updateMessage,
  updateSubAgentRun,
  updateToolCall,
} from "./writes.js";
import type {
  MessagePatch,
  NewMessage,
  NewSession,
  NewSubAgentRun,
  NewToolCall,
  SubAgentRunPatch,
  ToolCallPatch,
} from "./inputs.js";

export class Store {
  private db: Db | null;
  private auditKey: AuditKey | undefined;
  readonly path: string;
  private readonly walSync: WalSync | undefined;

  private constructor(db: Db, path: string, relaxed: boolean) {
    this.db = db;
    this.path = path;
    this.walSync = relaxed ? new WalSync(path) : undefined;
  }

  /** Opens (creating if needed) and migrates the database at `path`. */
  static open(path: string, options: OpenOptions = {}): Store {
    return new Store(openDb(path, options), path, options.synchronous === "normal" && !options.readonly);
  }

  /**
   * Resolves once every commit made so far survives a power cut. With synchronous "full" each
   * commit already did (resolves at once); with "normal" this fsyncs the WAL on the thread pool,
   * one fsync for all callers waiting together, so a busy Engine neither blocks its event loop
   * on the disk nor pays one fsync per write.
   */
  sync(): Promise<void> {
    if (this.db === null) return Promise.reject(new StoreError("CLOSED", `store ${this.path} is closed`));
    return this.walSync ? this.walSync.sync() : Promise.resolve();
  }

  private get d(): Db {
    if (this.db === null) throw new StoreError("CLOSED", `store ${this.path} is closed`);
    return this.db;
  }

  get schemaVersion(): number {
    return schemaVersion(this.d.raw);
  }

  /** Checkpoints the WAL into the main file and closes. Idempotent. */
  close(): void {
    if (this.db === null) return;
    if (!this.db.raw.readonly) this.db.raw.pragma("wal_checkpoint(TRUNCATE)");
    this.walSync?.close();
    this.db.raw.close();
    this.db = null;
  }

  /** Runs fn in one transaction; Store calls inside it join that transaction. */
  transaction<T>(fn: () => T): T {
    return this.d.tx(fn);
  }

  // --- writes ---
  createSession(input: NewSession = {}): SessionRecord {
    return createSession(this.d, input);
  }
  appendMessage(input: NewMessage): MessageRecord {
    return appendMessage(this.d, input);
  }
  updateMessage(id: string, patch: MessagePatch): MessageRecord {
    return updateMessage(this.d, id, patch);
  }
  recordToolCall(input: NewToolCall): ToolCallRecord {
    return recordToolCall(this.d, input);
  }
  updateToolCall(messageId: string, callId: string, patch: ToolCallPatch): ToolCallRecord {
    return updateToolCall(this.d, messageId, callId, patch);
  }
  appendEvent(input: NewEvent): EventRecord {
    return appendEvent(this.d, input);
  }
  appendMemory(input: NewMemory): MemoryRecord {
    return appendMemory(this.d, input);
  }
  recordSubAgentRun(input: NewSubAgentRun): SubAgentRunRecord {
    return recordSubAgentRun(this.d, input);
  }
  updateSubAgentRun(id: string, patch: SubAgentRunPatch): SubAgentRunRecord {
    return updateSubAgentRun(this.d, id, patch);
  }
  recordArtifact(input: NewArtifact): ArtifactRecord {
    return recordArtifact(this.d, input);
  }
  appendAudit(input: NewAudit): AuditRecord {
    return appendAudit(this.d, input, this.auditKey);
  }
  /** Appends entries in order, in one transaction (one read and one write of the chain head). */
  appendAudits(inputs: readonly NewAudit[]): AuditRecord[] {
    return appendAuditBatch(this.d, inputs, this.auditKey);
  }
  /** From now on audit hashes are HMACs with this key (see audit-key.ts); verification uses it too. */
  setAuditKey(key: AuditKey): void {
    this.auditKey = key;
  }
  auditHead(): { seq: number; hash: string } {
    return auditHead(this.d);
  }
  renameSession(id: string, title: string): SessionRecord {
    return renameSession(this.d, id, title);
  }
  /** The configured model a turn of this session runs with; a chosen model is kept. */
  recordSessionModel(id: string, model: string): boolean {
    return recordSessionModel(this.d, id, model);
  }
  setAutoTitle(id: string, title: string, source: "auto" | "first_message" = "auto"): boolean {
    return setAutoTitle(this.d, id, title, source);
  }

  /**
   * Writes a turn's rows in one transaction: when this returns they are durable (see OpenOptions.synchronous),
   * so the Engine may send RESPONSE_COMPLETE. On any error nothing of the turn is written.
   */
  commitTurn(sessionId: string, turn: TurnRows): CommittedTurn {
    return commitTurn(this.d, sessionId, turn, this.auditKey);
  }

  deleteSession(id: string): DeleteResult {
    return deleteSession(this.d, id);
  }
  applyRetention(options: RetentionOptions): RetentionResult {
    return applyRetention(this.d, options);
  }

  // --- reads (never write) ---
  getSession(id: string): SessionRecord | null {
    return getSession(this.d, id);
  }
  listSessions(options: ListSessionsOptions = {}): SessionPage {
    return listSessions(this.d, options);
  }
  getHistory(sessionId: string, options: HistoryOptions = {}): HistoryPage {
    return getHistory(this.d, sessionId, options);
  }
  getMessage(id: string): MessageRecord | null {
    return messageById(this.d, id);
  }
  getToolCall(messageId: string, callId: string): ToolCallRecord {
    return getToolCall(this.d, messageId, callId);
  }
  listEvents(sessionId: string, afterSeq = 0, limit = 1000): EventRecord[] {
    return listEvents(this.d, sessionId, afterSeq, limit);
  }
  lastEvent(sessionId: string): EventRecord | null {
    return lastEvent(this.d, sessionId);
  }
  listMemory(sessionId: string): MemoryRecord[] {
    return listMemory(this.d, sessionId);
  }
  listSubAgentRuns(sessionId: string): SubAgentRunRecord[] {
    return listSubAgentRuns(this.d, sessionId);
  }
  getSubAgentTranscript(runId: string): MessageRecord[] {
    return getSubAgentTranscript(this.d, runId);
  }
  getArtifact(id: string): ArtifactRecord {
    return getArtifact(this.d, id);
  }
  getArtifactData(id: string): Buffer | null {
    return getArtifactData(this.d, id);
  }
  listArtifacts(sessionId: string): ArtifactRecord[] {
    return listArtifacts(this.d, sessionId);
  }
  search(query: string, options: SearchOptions = {}): SearchResult {
    return search(this.d, query, options);
  }
  exportSession(id: string, format: ExportFormat, options: ExportOptions = {}): ExportResult {
    return exportSession(this.d, id, format, options);
  }
  listAudit(options: { sessionId?: string; afterSeq?: number; limit?: number } = {}): AuditRecord[] {
    return listAudit(this.d, options);
  }
  verifyAudit(expectedHead?: { seq: number; hash: string }, key?: AuditKey): AuditVerification {
    return verifyAudit(this.d, expectedHead, key ?? this.auditKey);
  }
  stats(since?: number): StoreStats {
    return stats(this.d, since);
  }
  /** The connection's durability settings, for status pages and tests. */
  settings(): { journalMode: string; synchronous: "off" | "normal" | "full" | "extra"; foreignKeys: boolean } {
    const p = (name: string): unknown => this.d.raw.pragma(name, { simple: true });
    const sync = (["off", "normal", "full", "extra"] as const)[p("synchronous") as number] ?? "full";
    return { journalMode: String(p("journal_mode")), synchronous: sync, foreignKeys: p("foreign_keys") === 1 };
  }

  /** Rows per table (`palisade store copy` compares them with the copy's). */
  tableCounts(): Record<(typeof COUNTED)[number], number> {
    return Object.fromEntries(
      COUNTED.map((t) => [t, this.d.stmt(`SELECT COUNT(*) FROM ${t}`).pluck().get() as number]),
    ) as Record<(typeof COUNTED)[number], number>;
  }

  /** `PRAGMA integrity_check`: "ok" or the problems SQLite found. */
  integrityCheck(): string {
    return (this.d.raw.pragma("integrity_check") as Array<{ integrity_check: string }>)
      .map((r) => r.integrity_check)
      .join("\n");
  }
}
