// History retention: config `history.retention` deletes sessions by age and database
// size, at start and then periodically. The store deletes the rows and the artifact files it
// knows; `onDeleted` lets the Engine drop the rest (the capability host's artifacts, state).
import type { HistoryConfig } from "@palisade/config";
import type { EngineStore, RetentionOutcome } from "../ports.js";

export interface RetentionOptions {
  store: EngineStore;
  config: HistoryConfig["retention"];
  onDeleted: (sessionIds: string[]) => Promise<void>;
  log: (line: string) => void;
}

export class Retention {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();

  constructor(private readonly o: RetentionOptions) {}

  get enabled(): boolean {
    return this.o.config.maxAgeDays !== undefined || this.o.config.maxBytes !== undefined;
  }

  /** Runs once now, then every `checkIntervalMs`. */
  async start(): Promise<void> {
    if (!this.enabled) return;
    await this.run();
    this.timer = setInterval(() => void this.run(), this.o.config.checkIntervalMs);
    this.timer.unref();
  }

  /** One pass; never throws (problems are logged). Passes never overlap. */
  run(): Promise<RetentionOutcome | undefined> {
    const next = this.running.then(() => this.pass());
    this.running = next;
    return next;
  }

  private async pass(): Promise<RetentionOutcome | undefined> {
    const { maxAgeDays, maxBytes } = this.o.config;
    try {
      const out = await this.o.store.applyRetention({
        ...(maxAgeDays !== undefined ? { maxAgeDays } : {}),
        ...(maxBytes !== undefined ? { maxBytes } : {}),
      });
      if (out.deletedSessions.length > 0) {
        await this.o.onDeleted(out.deletedSessions);
        this.o.log(
          `retention: deleted ${out.deletedSessions.length} sessions (${out.bytesBefore} → ${out.bytesAfter} bytes)`,
        );
      }
      return out;
    } catch (err) {
      this.o.log(`retention failed: ${(err as Error).message}`);
      return undefined;
    }
  }

  /** Stops the timer and waits for a pass in progress. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running.catch(() => undefined);
  }
}
