// The PostgreSQL store: the SQLite store's records and guarantees (see ../store.ts) over a pool
// of connections, asynchronous, shared by several Engines. Each write is one transaction; a
// turn's rows are one transaction, committed (and durable: synchronous_commit) when it resolves.
import { createHash } from "node:crypto";
import type { PoolClient } from "pg";
import type { AuditKey, AuditVerification, NewAudit } from "../audit.js";
import { StoreError } from "../errors.js";
import type { ExportFormat, ExportOptions, ExportResult } from "../export.js";
import type { HistoryOptions, HistoryPage, ListSessionsOptions, SessionPage } from "../history.js";
import type { DeleteResult, RetentionOptions, RetentionResult, StoreStats } from "../lifecycle.js";
import type { MigrationStep } from "../migrations.js";
import type { HistoryStore } from "../port.js";
import type { NewArtifact, NewEvent, NewMemory } from "../inputs.js";
import type { SearchOptions, SearchResult } from "../search.js";
import type { CommittedTurn, TurnRows } from "../turn.js";
import type {
  ArtifactRecord,
  AuditRecord,
  EventRecord,
  MemoryRecord,
  MessageRecord,
  SessionRecord,
  SubAgentRunRecord,
  ToolCallRecord,
} from "../types.js";
import type {
  MessagePatch,
  NewMessage,
  NewSession,
  NewSubAgentRun,
  NewToolCall,
  SubAgentRunPatch,
  ToolCallPatch,
} from "../inputs.js";
import * as audit from "./audit.js";
import { describeTarget } from "./config.js";
import type { PgConnectOptions } from "./config.js";
import { PgDb } from "./db.js";
import * as history from "./history.js";
import { buildIndexes, dropSearchIndexes, importAudit, importSessions, tableCounts } from "./import.js";
import type { SessionRows, TableCounts } from "./import.js";
import * as leases from "./leases.js";
import { KnownLexemes } from "./lexemes.js";
import type { Claim, LeaseOwner, TurnInFlight } from "./leases.js";
import * as lifecycle from "./lifecycle.js";
import { migratePg, pgSchemaVersion } from "./migrate.js";
import * as records from "./records.js";
import { search } from "./search.js";
import { commitTurn } from "./turn.js";
import type { HeadHint } from "./turn.js";
import * as writes from "./writes.js";

/** What prepareToServe() did. */
export interface ServeReady {
  analyzed: true;
  checkpoint: boolean;
  /** Why there was no checkpoint (the server's refusal). */
  checkpointSkipped?: string;
}

/** Names a key without revealing it (stored in the database to tell Engines holding another key). */
function keyFingerprint(secret: Buffer): string {
  return createHash("sha256").update("palisade audit key\n").update(secret).digest("hex").slice(0, 32);
}

export class PgStore implements HistoryStore {
  private auditKey: AuditKey | undefined;
  private closed = false;
  /** The audit head as this store last wrote it: a turn's commit chains from it (turn.ts). */
  private readonly head: HeadHint = {};
  /** Words known to be in the lexeme table: a turn's commit sends only the others (lexemes.ts). */
  private readonly lexemes = new KnownLexemes();

  private constructor(private readonly db: PgDb) {}

  /** Connects, checks the credentials, and migrates the schema (one Engine at a time). */
  static async open(options: PgConnectOptions & { onMigration?: (step: MigrationStep) => void }): Promise<PgStore> {
    const db = new PgDb(options);
    try {
      await migratePg(db, options.onMigration);
    } catch (cause) {
      await db.close().catch(() => undefined);
      if (cause instanceof StoreError) throw cause;
      throw new StoreError(
        "UNAVAILABLE",
        `cannot open the PostgreSQL store at ${describeTarget(db.target)}: ${(cause as Error).message}`,
        { cause },
      );
    }
    return new PgStore(db);
  }

  /** Where the history lives, for status pages (no secret). */
  get description(): string {
    return describeTarget(this.db.target);
  }

  schemaVersion(): Promise<number> {
    return pgSchemaVersion(this.db);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.db.close();
  }

  private tx<T>(fn: (c: PoolClient) => Promise<T>, options: { durable?: boolean } = {}): Promise<T> {
    if (this.closed) return Promise.reject(new StoreError("CLOSED", `store ${this.description} is closed`));
    return this.db.tx(fn, options);
  }

  private get q(): PgDb {
    if (this.closed) throw new StoreError("CLOSED", `store ${this.description} is closed`);
    return this.db;
  }

  /**
   * Keys the audit chain with the deployment's secret. The database records which key (a
   * fingerprint) and from which seq; an Engine holding another key is refused, since its
   * entries would not verify with the others'.
   */
  async adoptAuditKey(secret: Buffer, keyFile: string): Promise<AuditKey> {
    const fingerprint = keyFingerprint(secret);
    const fromSeq = await this.tx(async (c) => {
      const head =
        (await c.query<{ seq: number }>("SELECT seq FROM audit_head WHERE id = 1 FOR UPDATE")).rows[0]?.seq ?? 0;
      await c.query(
        "INSERT INTO audit_keying (id, from_seq, key_fingerprint) VALUES (1, $1, $2) ON CONFLICT DO NOTHING",
        [head + 1, fingerprint],
      );
      const row = (
        await c.query<{ from_seq: number; key_fingerprint: string }>(
          "SELECT from_seq, key_fingerprint FROM audit_keying WHERE id = 1",
        )
      ).rows[0];
      if (row === undefined) throw new StoreError("AUDIT_KEY", "the audit keying row is missing");
      if (row.key_fingerprint !== fingerprint) {
        throw new StoreError(
          "AUDIT_KEY",
          `the audit chain of ${this.description} is keyed with another key (fingerprint ${row.key_fingerprint.slice(0, 12)}…, this Engine's ${keyFile} has ${fingerprint.slice(0, 12)}…): every Engine of a deployment needs the same key file; copy it from an Engine already serving this database`,
        );
      }
      return row.from_seq;
    });
    this.auditKey = { key: secret, fromSeq };
    return this.auditKey;
  }

  setAuditKey(key: AuditKey): void {
    this.auditKey = key;
  }

  // --- writes ---
  createSession(input: NewSession = {}): Promise<SessionRecord> {
    return writes.createSession(this.q, input);
  }
  appendMessage(input: NewMessage): Promise<MessageRecord> {
    return this.tx((c) => writes.appendMessage(c, input));
  }
  updateMessage(id: string, patch: MessagePatch): Promise<MessageRecord> {
    return this.tx((c) => writes.updateMessage(c, id, patch));
  }
  recordToolCall(input: NewToolCall): Promise<ToolCallRecord> {
    return writes.recordToolCall(this.q, input);
  }
  updateToolCall(messageId: string, callId: string, patch: ToolCallPatch): Promise<ToolCallRecord> {
    return this.tx((c) => writes.updateToolCall(c, messageId, callId, patch));
  }
  appendEvent(input: NewEvent): Promise<EventRecord> {
    return this.tx(async (c) => {
      if (!(await writes.lockSession(c, input.sessionId)))
        throw new StoreError(
          "NOT_FOUND",
          `session ${JSON.stringify(input.sessionId)} does not exist (deleted, or never created in this store)`,
        );
      return records.insertEvent(c, input, await records.nextEventSeq(c, input.sessionId));
    });
  }
  appendMemory(input: NewMemory): Promise<MemoryRecord> {
    return records.appendMemory(this.q, input);
  }
  recordSubAgentRun(input: NewSubAgentRun): Promise<SubAgentRunRecord> {
    return writes.recordSubAgentRun(this.q, input);
  }
  updateSubAgentRun(id: string, patch: SubAgentRunPatch): Promise<SubAgentRunRecord> {
    return this.tx((c) => writes.updateSubAgentRun(c, id, patch));
  }
  recordArtifact(input: NewArtifact): Promise<ArtifactRecord> {
    return records.recordArtifact(this.q, input);
  }
  async appendAudit(input: NewAudit): Promise<AuditRecord> {
    return (await this.appendAudits([input]))[0] as AuditRecord;
  }
  /** `durable: false`: committed (every Engine sees it) but not yet flushed when it resolves; the next durable commit flushes it too. */
  appendAudits(inputs: readonly NewAudit[], options: { durable?: boolean } = {}): Promise<AuditRecord[]> {
    if (inputs.length === 0) return Promise.resolve([]);
    return this.tx(async (c) => {
      const rows = await audit.appendAuditRows(c, inputs, this.auditKey);
      const last = rows[rows.length - 1];
      if (last) this.head.head = { seq: last.seq, hash: last.hash };
      return rows;
    }, options);
  }
  auditHead(): Promise<{ seq: number; hash: string }> {
    return audit.auditHead(this.q);
  }
  renameSession(id: string, title: string): Promise<SessionRecord> {
    return writes.renameSession(this.q, id, title);
  }
  recordSessionModel(id: string, model: string): Promise<boolean> {
    return writes.recordSessionModel(this.q, id, model);
  }
  setAutoTitle(id: string, title: string, source: "auto" | "first_message" = "auto"): Promise<boolean> {
    return writes.setAutoTitle(this.q, id, title, source);
  }
  /**
   * `fence.engineId`: refused (CONFLICT, nothing written) when another Engine holds the session's
   * lease now — it took the session over while this Engine's turn ran past its lease.
   */
  async commitTurn(sessionId: string, turn: TurnRows, fence?: { engineId: string }): Promise<CommittedTurn> {
    return commitTurn(this.q, sessionId, turn, this.auditKey, this.head, this.lexemes, fence);
  }
  async deleteSession(id: string): Promise<DeleteResult> {
    return this.tx((c) => lifecycle.deleteSession(c, id));
  }
  applyRetention(options: RetentionOptions): Promise<RetentionResult> {
    return lifecycle.applyRetention(this.q, options);
  }

  // --- reads ---
  getSession(id: string): Promise<SessionRecord | null> {
    return writes.getSessionRow(this.q, id);
  }
  listSessions(options: ListSessionsOptions = {}): Promise<SessionPage> {
    return history.listSessions(this.q, options);
  }
  getHistory(sessionId: string, options: HistoryOptions = {}): Promise<HistoryPage> {
    return history.getHistory(this.q, sessionId, options);
  }
  getMessage(id: string): Promise<MessageRecord | null> {
    return writes.messageById(this.q, id);
  }
  getToolCall(messageId: string, callId: string): Promise<ToolCallRecord> {
    return writes.getToolCall(this.q, messageId, callId);
  }
  listEvents(sessionId: string, afterSeq = 0, limit = 1000): Promise<EventRecord[]> {
    return records.listEvents(this.q, sessionId, afterSeq, limit);
  }
  lastEvent(sessionId: string): Promise<EventRecord | null> {
    return records.lastEvent(this.q, sessionId);
  }
  listMemory(sessionId: string): Promise<MemoryRecord[]> {
    return records.listMemory(this.q, sessionId);
  }
  listSubAgentRuns(sessionId: string): Promise<SubAgentRunRecord[]> {
    return history.listSubAgentRuns(this.q, sessionId);
  }
  getSubAgentTranscript(runId: string): Promise<MessageRecord[]> {
    return history.getSubAgentTranscript(this.q, runId);
  }
  getArtifact(id: string): Promise<ArtifactRecord> {
    return records.getArtifact(this.q, id);
  }
  getArtifactData(id: string): Promise<Buffer | null> {
    return records.getArtifactData(this.q, id);
  }
  listArtifacts(sessionId: string): Promise<ArtifactRecord[]> {
    return records.listArtifacts(this.q, sessionId);
  }
  search(query: string, options: SearchOptions = {}): Promise<SearchResult> {
    return search(this.q, query, options);
  }
  exportSession(id: string, format: ExportFormat, options: ExportOptions = {}): Promise<ExportResult> {
    return history.exportSession(this.q, id, format, options);
  }
  listAudit(options: { sessionId?: string; afterSeq?: number; limit?: number } = {}): Promise<AuditRecord[]> {
    return audit.listAudit(this.q, options);
  }
  verifyAudit(expectedHead?: { seq: number; hash: string }, key?: AuditKey): Promise<AuditVerification> {
    return audit.verifyAudit(this.q, expectedHead, key ?? this.auditKey);
  }
  stats(since?: number): Promise<StoreStats> {
    return lifecycle.stats(this.q, since);
  }
  /** Cheap counts for status pages (stats() also measures the rows' bytes). */
  countSessions(): Promise<number> {
    return lifecycle.countSessions(this.q);
  }
  countToolCallsSince(since: number): Promise<number> {
    return lifecycle.countToolCallsSince(this.q, since);
  }

  // --- copying a history in (import.ts) ---
  /**
   * Sessions' rows as the source has them, in one transaction: committed, not yet flushed (the
   * copy's last transaction, durable, flushes them all).
   */
  async importSessions(rows: readonly SessionRows[]): Promise<void> {
    this.lexemes.learn(await this.tx((c) => importSessions(c, rows, this.lexemes), { durable: false }));
  }
  /** Runs a bulk copy into this empty store without its full-text indexes, built once after it. */
  async withoutSearchIndexes<T>(fn: () => Promise<T>): Promise<T> {
    const defs = await this.tx((c) => dropSearchIndexes(c));
    try {
      return await fn();
    } finally {
      await this.tx((c) => buildIndexes(c, defs));
    }
  }
  /** Audit rows as they are, and the key the source chain was keyed with (its fingerprint and first keyed seq). */
  importAudit(rows: readonly AuditRecord[], keyed?: { key: Buffer; fromSeq: number }): Promise<void> {
    return this.tx(
      async (c) => {
        await importAudit(c, rows);
        if (keyed)
          await c.query("INSERT INTO audit_keying (id, from_seq, key_fingerprint) VALUES (1, $1, $2)", [
            keyed.fromSeq,
            keyFingerprint(keyed.key),
          ]);
      },
      { durable: false },
    );
  }
  tableCounts(): Promise<TableCounts> {
    return tableCounts(this.q);
  }
  /**
   * After a bulk copy, so that the database serves at once: the planner's statistics, and the
   * visibility map and hint bits of every row set once (else the first searches of a new copy read
   * and write the heap to set them); then a checkpoint, so that the copy's dirty pages are on disk
   * before the first turn, not flushed by the server meanwhile. A checkpoint takes a superuser or
   * the pg_checkpoint role (PostgreSQL 15): without it, why it was skipped.
   */
  async prepareToServe(): Promise<ServeReady> {
    await this.q.query("VACUUM ANALYZE");
    try {
      await this.q.query("CHECKPOINT");
      return { analyzed: true, checkpoint: true };
    } catch (cause) {
      if ((cause as { code?: unknown }).code !== "42501") throw cause;
      return { analyzed: true, checkpoint: false, checkpointSkipped: (cause as Error).message };
    }
  }
  /** The deployment key's first seq, when the chain is keyed and `secret` is its key; undefined when not keyed. Writes nothing. */
  async auditKeyOf(secret: Buffer): Promise<AuditKey | undefined> {
    const row = (
      await this.q.query<{ from_seq: number; key_fingerprint: string }>(
        "SELECT from_seq, key_fingerprint FROM audit_keying WHERE id = 1",
      )
    ).rows[0];
    if (row === undefined) return undefined;
    if (row.key_fingerprint !== keyFingerprint(secret))
      throw new StoreError(
        "AUDIT_KEY",
        `the audit chain of ${this.description} is keyed with another key (fingerprint ${row.key_fingerprint.slice(0, 12)}…): use the deployment's key file`,
      );
    return { key: secret, fromSeq: row.from_seq };
  }

  // --- several Engines (leases.ts) ---
  registerEngine(engineId: string, address: string): Promise<void> {
    return leases.registerEngine(this.q, engineId, address);
  }
  heartbeat(engineId: string, leaseMs: number): Promise<number> {
    return leases.heartbeat(this.q, engineId, leaseMs);
  }
  claimSession(sessionId: string, engineId: string, leaseMs: number, turn: TurnInFlight): Promise<Claim> {
    return leases.claimSession(this.q, sessionId, engineId, leaseMs, turn);
  }
  finishTurn(sessionId: string, engineId: string, leaseMs: number): Promise<void> {
    return leases.finishTurn(this.q, sessionId, engineId, leaseMs);
  }
  sessionOwner(sessionId: string): Promise<LeaseOwner | null> {
    return leases.sessionOwner(this.q, sessionId);
  }
  releaseEngine(engineId: string): Promise<void> {
    return leases.releaseEngine(this.q, engineId);
  }
}
