export { Store } from "./store.js";
export type { TurnRows, CommittedTurn, InTurn } from "./turn.js";
export type { OpenOptions, Synchronous } from "./db.js";
export { StoreError } from "./errors.js";
export type { StoreErrorCode } from "./errors.js";
export { SCHEMA_VERSION, MIGRATIONS } from "./migrations.js";
export type { MigrationStep } from "./migrations.js";
export { buildFtsQuery } from "./fts-query.js";
export type { ParsedQuery } from "./fts-query.js";
export { canonicalJson, GENESIS_HASH } from "./audit.js";
export type { NewAudit, AuditProblem, AuditVerification, AuditKey } from "./audit.js";
export { AUDIT_KEY_FILE, loadOrCreateAuditKey, loadOrCreateKeySecret, readAuditKey } from "./audit-key.js";
export type {
  NewSession,
  NewMessage,
  MessagePatch,
  NewToolCall,
  ToolCallPatch,
  NewSubAgentRun,
  SubAgentRunPatch,
  NewEvent,
  NewMemory,
  NewArtifact,
} from "./inputs.js";
export type { ListSessionsOptions, SessionPage, HistoryOptions, HistoryPage } from "./history.js";
export type { SearchOptions, SearchResult } from "./search.js";
export type { DeleteResult, RetentionOptions, RetentionResult, StoreStats } from "./lifecycle.js";
export type { ExportFormat, ExportOptions, ExportResult, SessionExport } from "./export.js";
export { inTextOrder } from "./text-order.js";
export type { InOrder } from "./text-order.js";
export type {
  SessionMode,
  TitleSource,
  Role,
  VerdictDecision,
  ApprovalDecision,
  SubAgentState,
  SessionSort,
  TokenUsage,
  SessionRecord,
  Verdict,
  Approval,
  ArtifactRef,
  ToolCallRecord,
  MessageRecord,
  EventRecord,
  MemoryRecord,
  SubAgentRunRecord,
  ArtifactRecord,
  AuditRecord,
  SearchHit,
} from "./types.js";
export { sqliteHistory } from "./port.js";
export type { HistoryStore } from "./port.js";
export { PgStore } from "./pg/store.js";
export type { ServeReady } from "./pg/store.js";
export { parsePgUrl, redact as redactPgUrl, describeTarget as describePgTarget } from "./pg/config.js";
export type { PgConnectOptions, PgTlsOptions, PgTarget } from "./pg/config.js";
export type { Claim, LeaseOwner, InterruptedTurn, TurnInFlight } from "./pg/leases.js";
export { PG_SCHEMA_VERSION } from "./pg/schema.js";
export { copyToPostgres } from "./copy.js";
export type { CopyReport } from "./copy.js";
export type { TableCounts } from "./pg/import.js";
