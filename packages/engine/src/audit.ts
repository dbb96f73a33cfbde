// The audit trail (issue 9): every proposal, verdict, approval and execution goes to the store's
// hash-chained audit table. Entries are queued and written in one transaction per tick, in order;
// off-the-record sessions write nothing (DESIGN.md), so their steps are not audited.
import type { AuditEntry, EngineStore, SessionRecord } from "./ports.js";

export class AuditWriter {
  private queue: AuditEntry[] = [];
  private scheduled: Promise<void> | undefined;

  constructor(
    private readonly store: EngineStore,
    private readonly log: (line: string) => void,
  ) {}

  /** Records one step of a tool call of `session` (nothing for OTR sessions). */
  step(session: SessionRecord, kind: "proposal" | "verdict" | "approval" | "execution", callId: string, actor: string, payload: Record<string, unknown>): void {
    if (session.mode === "otr") return;
    this.queue.push({ kind, sessionId: session.id, callId, actor, payload, ts: Date.now() });
    this.scheduled ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.flush());
  }

  /** Writes what is queued. */
  async flush(): Promise<void> {
    this.scheduled = undefined;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    try {
      await this.store.appendAudit(batch);
    } catch (err) {
      this.log(`audit: ${batch.length} entries could not be written: ${(err as Error).message}`);
    }
  }
}
