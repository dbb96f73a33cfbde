// `palisade store copy`: an existing SQLite history into an empty PostgreSQL store, a batch of
// sessions per transaction (one multi-row statement per table), then the audit trail as it is,
// with the full-text indexes built once at the end, then VACUUM ANALYZE and a checkpoint so that
// the database serves at once. Afterwards every table's rows are counted on both sides and both
// chains are verified; the copy is good only if they agree.
import type { AuditKey, AuditVerification } from "./audit.js";
import { StoreError } from "./errors.js";
import type { PgStore, ServeReady } from "./pg/store.js";
import type { SessionRows, TableCounts } from "./pg/import.js";
import type { Store } from "./store.js";
import type { EventRecord, MessageRecord } from "./types.js";

export interface CopyReport {
  sessions: number;
  from: TableCounts;
  to: TableCounts;
  /** Tables whose counts differ (empty when the copy is complete). */
  mismatched: string[];
  auditFrom: AuditVerification;
  auditTo: AuditVerification;
  /** How the copy was made ready to serve (statistics, visibility map, checkpoint). */
  ready: ServeReady;
  ok: boolean;
}

/** Rows per transaction of the copy: large enough to amortize a round trip, small enough to stay in memory. */
const BATCH_ROWS = 5000;

function sessionRows(from: Store, id: string): SessionRows {
  const session = from.getSession(id);
  if (!session) throw new StoreError("NOT_FOUND", `session ${id} disappeared during the copy`);
  const messages: MessageRecord[] = [];
  let cursor = "";
  do {
    const page = from.getHistory(id, { limit: 1000, ...(cursor ? { cursor } : {}) });
    messages.unshift(...page.messages);
    cursor = page.nextCursor;
  } while (cursor !== "");
  const subAgentRuns = from.listSubAgentRuns(id);
  for (const run of subAgentRuns) messages.push(...from.getSubAgentTranscript(run.id));
  const events: EventRecord[] = [];
  for (
    let batch = from.listEvents(id, 0, 5000);
    batch.length > 0;
    batch = from.listEvents(id, batch[batch.length - 1]?.seq ?? 0, 5000)
  )
    events.push(...batch);
  const artifacts = from.listArtifacts(id).map((a) => ({ ...a, data: a.hasData ? from.getArtifactData(a.id) : null }));
  return { session, messages, subAgentRuns, events, memory: from.listMemory(id), artifacts };
}

export async function copyToPostgres(
  from: Store,
  to: PgStore,
  options: { auditKey?: AuditKey; onProgress?: (done: number, total: number) => void; signal?: AbortSignal } = {},
): Promise<CopyReport> {
  const before = await to.tableCounts();
  const used = Object.entries(before)
    .filter(([, n]) => n > 0)
    .map(([t, n]) => `${t} ${String(n)}`);
  if (used.length > 0) {
    throw new StoreError(
      "CONFLICT",
      `the target ${to.description} is not empty (${used.join(", ")}): copy into a new database (createdb), never over a history`,
    );
  }
  const total = from.listSessions({ limit: 1 }).total;
  let done = 0;
  await to.withoutSearchIndexes(async () => {
    let batch: SessionRows[] = [];
    let rows = 0;
    const flush = async (): Promise<void> => {
      if (batch.length === 0) return;
      await to.importSessions(batch);
      for (let i = 0; i < batch.length; i++) options.onProgress?.(++done, total);
      batch = [];
      rows = 0;
    };
    for (let offset = 0; ; offset += 500) {
      const page = from.listSessions({ sort: "created_asc", limit: 500, offset }).sessions;
      if (page.length === 0) break;
      for (const s of page) {
        options.signal?.throwIfAborted();
        const r = sessionRows(from, s.id);
        batch.push(r);
        rows += 1 + r.messages.length + r.events.length;
        if (rows >= BATCH_ROWS) await flush();
      }
    }
    await flush();
    let keyed = options.auditKey;
    for (let after = 0; ;) {
      const audit = from.listAudit({ afterSeq: after, limit: 5000 });
      if (audit.length === 0) break;
      options.signal?.throwIfAborted();
      await to.importAudit(audit, keyed);
      keyed = undefined;
      after = audit[audit.length - 1]?.seq ?? after;
    }
    if (keyed) await to.importAudit([], keyed); // a keyed but empty trail keeps its key
  });
  const ready = await to.prepareToServe();
  const [fromCounts, toCounts] = [from.tableCounts(), await to.tableCounts()];
  const mismatched = Object.keys(fromCounts).filter(
    (t) => fromCounts[t as keyof TableCounts] !== toCounts[t as keyof TableCounts],
  );
  const auditFrom = from.verifyAudit(undefined, options.auditKey);
  const auditTo = await to.verifyAudit(undefined, options.auditKey);
  const sameHead = auditFrom.head.seq === auditTo.head.seq && auditFrom.head.hash === auditTo.head.hash;
  return {
    sessions: done,
    from: fromCounts,
    to: toCounts,
    mismatched,
    auditFrom,
    auditTo,
    ready,
    ok: mismatched.length === 0 && auditFrom.ok && auditTo.ok && sameHead,
  };
}
