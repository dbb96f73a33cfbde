// The audit trail: every proposal, verdict, approval and execution goes to the store's
// hash-chained audit table, in order; off-the-record sessions write nothing, so
// their steps are not audited.
//
// Entries are batched: one transaction (and one WAL fsync) per AUDIT_FLUSH_MS window instead of
// one per event-loop tick, which was ~1 ms of CPU per tool call. A turn's commit takes what is
// queued (`takeForCommit`) into its own transaction, so its audit entries are fsynced with its rows
// before RESPONSE_COMPLETE. Before a tool call has an effect (its capability is called),
// `commitBeforeEffect` commits what is queued (the call's proposal, verdict and approval): an
// Engine crash or kill after that point cannot lose the record of a call that ran. That commit is
// not fsynced on its own (the WAL is in the OS page cache; a power cut before the turn's fsync
// can lose it, as it can lose the effect of a local call).
import type { EgressEvent } from "@palisade/sandbox";
import type { AuditEntry, EngineStore, SessionRecord } from "../ports.js";

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
  step(
    session: SessionRecord,
    kind: "proposal" | "verdict" | "approval" | "execution",
    callId: string,
    actor: string,
    payload: Record<string, unknown>,
  ): void {
    if (session.mode === "otr") return;
    this.enqueue({ kind, sessionId: session.id, callId, actor, payload, ts: Date.now() });
  }

  /** Records a connection a tool's sandbox proxy allowed or refused (`sessionId` when one session was using that process). */
  egress(capabilityId: string, event: EgressEvent, sessionId: string): void {
    this.enqueue({
      kind: "egress",
      sessionId,
      callId: "",
      actor: `sandbox:${capabilityId}`,
      payload: { ...event },
      ts: Date.now(),
    });
  }

  /** Queues an entry; the window's timer writes it unless a commit takes it first. */
  private enqueue(entry: AuditEntry): void {
    this.queue.push(entry);
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

  /**
   * Commits what is queued now, before a tool call's effect (not fsynced: see above). Resolves to
   * an error text when the entries could not be written: the call must not run unrecorded.
   */
  commitBeforeEffect(): Promise<string | undefined> {
    return this.write(false);
  }

  /** Writes what is queued and resolves once it is durable. */
  async flush(): Promise<void> {
    await this.write(true);
  }

  /** Writes what is queued (durably with `sync`); resolves to an error text when it could not. */
  private async write(sync: boolean): Promise<string | undefined> {
    const batch = this.takeForCommit();
    if (batch.length === 0) return undefined;
    try {
      await this.store.appendAudit(batch, { sync });
      return undefined;
    } catch (err) {
      this.log(`audit: ${batch.length} entries could not be written: ${(err as Error).message}`);
      return `the audit trail could not be written (${(err as Error).message})`;
    }
  }
}
