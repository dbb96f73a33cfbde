// What Selu and MCP runtimes share about the processes they supervise: the restart budget of a
// process that crashed or stopped answering, and the timer that stops a local process nobody
// has called for a while (it starts again on the next call).

/** A process healthy this long gets its full restart budget back. */
export const RESTART_BUDGET_RESET_MS = 10 * 60_000;

/** Restarts left for a crash loop; a process that ran healthy for a while earns them back. */
export class RestartBudget {
  private used = 0;
  private healthySince: number | undefined;

  constructor(readonly max: number) {}

  get restarts(): number {
    return this.used;
  }

  /** The process is up and answering (from now on it earns its budget back). */
  healthy(now = Date.now()): void {
    this.healthySince = now;
  }

  /** True when one more restart fits (does not take it). */
  allows(now = Date.now()): boolean {
    return this.usedAt(now) < this.max;
  }

  /** Takes one restart; false when the budget is spent. */
  take(now = Date.now()): boolean {
    this.used = this.usedAt(now);
    this.healthySince = undefined;
    if (this.used >= this.max) return false;
    this.used++;
    return true;
  }

  private usedAt(now: number): number {
    return this.healthySince !== undefined && now - this.healthySince >= RESTART_BUDGET_RESET_MS ? 0 : this.used;
  }
}

/**
 * Calls `onIdle` once no call has run for `ms` (never while one runs). `ms` <= 0: never.
 * Armed when the process is up, cancelled when it stops.
 */
export class IdleTimer {
  private running = 0;
  private timer: NodeJS.Timeout | undefined;
  private armed = false;

  constructor(
    private readonly ms: number,
    private readonly onIdle: () => void,
  ) {}

  /** A call starts; the returned function ends it (idempotent). */
  begin(): () => void {
    this.running++;
    clearTimeout(this.timer);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.running--;
      this.restart();
    };
  }

  /** Starts counting (the process is up). */
  arm(): void {
    this.armed = true;
    this.restart();
  }

  /** Stops counting (the process stopped). */
  cancel(): void {
    this.armed = false;
    clearTimeout(this.timer);
  }

  private restart(): void {
    clearTimeout(this.timer);
    if (!this.armed || this.ms <= 0 || this.running > 0) return;
    this.timer = setTimeout(() => {
      if (this.armed && this.running === 0) this.onIdle();
    }, this.ms);
    this.timer.unref();
  }
}
