// What the supervisors of processes share: the restart budget of a process that crashed or
// stopped answering (the Agent, Selu capabilities, MCP servers), and the timer that stops a local
// capability nobody has called for a while (it starts again on the next call).

/** How long a capability's restart counts against its budget (the Agent's: limits.agent_restart_window_s). */
export const RESTART_WINDOW_MS = 10 * 60_000;

/**
 * At most `max` restarts in any `windowMs`: a crash loop stops, a process that crashes now and
 * then is restarted each time. The one budget of every supervised process: the Agent, Selu
 * capability processes and MCP servers.
 */
export class RestartBudget {
  /** When the restarts within the window were taken, oldest first. */
  private times: number[] = [];

  constructor(
    readonly max: number,
    readonly windowMs = RESTART_WINDOW_MS,
  ) {}

  /** Restarts taken within the window. */
  restarts(now = Date.now()): number {
    this.expire(now);
    return this.times.length;
  }

  /** True when one more restart fits (does not take it). */
  allows(now = Date.now()): boolean {
    return this.restarts(now) < this.max;
  }

  /** Takes one restart; false when the budget is spent. */
  take(now = Date.now()): boolean {
    if (!this.allows(now)) return false;
    this.times.push(now);
    return true;
  }

  private expire(now: number): void {
    while (this.times.length > 0 && now - (this.times[0] as number) >= this.windowMs) this.times.shift();
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
