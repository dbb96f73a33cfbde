// What the Engine keeps in memory per session while a conversation is in use (event seqs, loaded
// tool groups, the context cache, the model gateway's token counts, recent client message ids)
// is dropped once the session has been idle for `idleMs`: an Engine that served thousands of
// sessions holds only those in use. Each piece comes back from the store when the session is used
// again (the seq from its stored events, the loaded groups from the tools its history called).

export interface SweepDeps {
  idleMs: number;
  /** True while something still needs the session's state: a turn, a watcher, an approval, a sub-agent. */
  busy: (sessionId: string) => boolean;
  /** Drops the session's in-memory state. */
  forget: (sessionId: string) => void;
}

export class SessionSweeper {
  private readonly lastActive = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: SweepDeps) {}

  /** The session did something (an event, a message): its idle time starts again. */
  touch(sessionId: string, now = Date.now()): void {
    this.lastActive.set(sessionId, now);
  }

  start(): void {
    clearInterval(this.timer);
    this.timer = setInterval(() => this.sweep(), Math.max(50, Math.min(60_000, this.deps.idleMs / 2)));
    this.timer.unref();
  }

  /** Drops every session idle for `idleMs` that nothing needs now. */
  sweep(now = Date.now()): void {
    for (const [id, at] of this.lastActive) {
      if (now - at < this.deps.idleMs || this.deps.busy(id)) continue;
      this.lastActive.delete(id);
      this.deps.forget(id);
    }
  }

  /** Sessions whose state is held now. */
  get tracked(): number {
    return this.lastActive.size;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/** What AgentIdleStop needs of the Agent's supervisor. */
interface IdleSupervisor {
  state: string;
  idleStop(): Promise<void>;
}

/**
 * Stops the Agent process after `idleMs` without pipeline events while no turn or sub-agent runs
 * (the supervisor starts it again for the next turn). `idleMs` <= 0: never.
 */
export class AgentIdleStop {
  private last = Date.now();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly deps: {
      idleMs: number;
      supervisor: () => IdleSupervisor | undefined;
      busy: () => boolean;
      shutdown: () => void;
      log: (line: string) => void;
    },
  ) {}

  touch(now = Date.now()): void {
    this.last = now;
  }

  start(): void {
    if (this.deps.idleMs <= 0) return;
    this.timer = setInterval(() => this.check(), Math.max(100, Math.min(60_000, this.deps.idleMs / 4)));
    this.timer.unref();
  }

  check(now = Date.now()): void {
    const sup = this.deps.supervisor();
    if (!sup || sup.state !== "running" || now - this.last < this.deps.idleMs || this.deps.busy()) return;
    this.deps.log(`agent: no turn for ${Math.round(this.deps.idleMs / 1000)} s; stopping it until the next one`);
    this.deps.shutdown();
    void sup.idleStop();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
