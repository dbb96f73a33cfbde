// The audit trail: every proposal, verdict, approval and execution goes to the store's
// hash-chained audit table, in order; off-the-record sessions write nothing (DESIGN.md), so
// their steps are not audited.
//
// Entries are batched: one transaction (and one WAL fsync) per AUDIT_FLUSH_MS window instead of
// one per event-loop tick, which was ~1 ms of CPU per tool call. A turn's commit takes what is
// queued (`takeForCommit`) into its own transaction, so a turn is one transaction and one fsync,
// and its audit entries are durable with its rows, before RESPONSE_COMPLETE. A process kill loses
// at most the entries of the last window of a turn that was not committed either.
import type { EgressEvent } from "@palisade/sandbox";
import type { AuditEntry, EngineStore, SessionRecord } from "./ports.js";

/** Longest time an audit entry waits in memory before its transaction (ms). */
export const AUDIT_FLUSH_MS = 25;

export class AuditWriter {
  private queue: AuditEntry[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: EngineStore,
    private readonly log: (line: string) => void,
    private readonly windowMs = AUDIT_FLUSH_MS,
  ) {}

  /** Records one step of a tool call of `session` (nothing for OTR sessions). */
  step(session: SessionRecord, kind: "proposal" | "verdict" | "approval" | "execution", callId: string, actor: string, payload: Record<string, unknown>): void {
    if (session.mode === "otr") return;
    this.queue.push({ kind, sessionId: session.id, callId, actor, payload, ts: Date.now() });
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.windowMs);
      this.timer.unref();
    }
  }

  /** Records a connection a tool's sandbox proxy allowed or refused (`sessionId` when one session was using that process). */
  egress(capabilityId: string, event: EgressEvent, sessionId: string): void {
    this.queue.push({ kind: "egress", sessionId, callId: "", actor: `sandbox:${capabilityId}`, payload: { ...event }, ts: Date.now() });
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.windowMs);
      this.timer.unref();
    }
  }

  /**
   * Hands what is queued to a turn's commit, which writes it in its own transaction, in this order
   * (and on its own if the turn's rows cannot be written: EngineStore.commitTurn).
   */
  takeForCommit(): AuditEntry[] {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.queue;
    this.queue = [];
    return batch;
  }

  /** Writes what is queued and resolves once it is durable. */
  async flush(): Promise<void> {
    await this.write(true);
  }

  private async write(sync: boolean): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    try {
      await this.store.appendAudit(batch, { sync });
    } catch (err) {
      this.log(`audit: ${batch.length} entries could not be written: ${(err as Error).message}`);
    }
  }
}
