// This Engine's side of session leases when several Engines share one PostgreSQL database
// (the rows and their rules: @palisade/store pg/leases.ts). It registers the Engine, renews the
// leases of its running turns every third of the lease time, and ends its leases on a clean
// shutdown; a killed Engine's leases run out and another Engine takes the sessions over.
import { hostname } from "node:os";
import type { Claim, LeaseOwner, TurnInFlight } from "@palisade/store";

/** What the keeper needs of the store (PgStore). */
export interface LeaseBackend {
  registerEngine(engineId: string, address: string): Promise<void>;
  heartbeat(engineId: string, leaseMs: number): Promise<number>;
  claimSession(sessionId: string, engineId: string, leaseMs: number, turn: TurnInFlight): Promise<Claim>;
  finishTurn(sessionId: string, engineId: string, leaseMs: number): Promise<void>;
  sessionOwner(sessionId: string): Promise<LeaseOwner | null>;
  releaseEngine(engineId: string): Promise<void>;
}

export function defaultEngineId(): string {
  return `${hostname()}:${String(process.pid)}`;
}

/** How a client is told who serves a session. */
export function describeOwner(o: LeaseOwner, now = Date.now()): string {
  const left = Math.max(0, Math.ceil((o.expiresAt - now) / 1000));
  return `Engine ${o.engineId}${o.address ? ` at ${o.address}` : ""} (its lease runs out in ${String(left)} s unless it renews it)`;
}

export class LeaseKeeper {
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;
  private lastOk = Date.now();

  constructor(
    private readonly backend: LeaseBackend,
    readonly engineId: string,
    readonly leaseMs: number,
    private readonly log: (line: string) => void,
  ) {}

  async start(address: string): Promise<void> {
    await this.backend.registerEngine(this.engineId, address);
    this.lastOk = Date.now();
    this.timer = setInterval(
      () => {
        this.beating ??= this.beat().finally(() => (this.beating = undefined));
      },
      Math.max(200, Math.floor(this.leaseMs / 3)),
    );
    this.timer.unref();
  }

  private async beat(): Promise<void> {
    try {
      await this.backend.heartbeat(this.engineId, this.leaseMs);
      this.lastOk = Date.now();
    } catch (err) {
      const silent = Date.now() - this.lastOk;
      // Past the lease, other Engines may take this Engine's sessions over: say so in the log.
      this.log(
        `store: heartbeat failed (${(err as Error).message})${silent > this.leaseMs ? `; no heartbeat for ${String(Math.round(silent / 1000))} s, other Engines may take this Engine's sessions over` : ""}`,
      );
    }
  }

  claim(sessionId: string, turn: TurnInFlight): Promise<Claim> {
    return this.backend.claimSession(sessionId, this.engineId, this.leaseMs, turn);
  }

  finish(sessionId: string): Promise<void> {
    return this.backend.finishTurn(sessionId, this.engineId, this.leaseMs);
  }

  /** The other Engine serving the session, or null when none (or this one) does. */
  async otherOwner(sessionId: string): Promise<LeaseOwner | null> {
    const o = await this.backend.sessionOwner(sessionId);
    return o && o.engineId !== this.engineId ? o : null;
  }

  /** Stops heartbeating and ends this Engine's leases (a clean shutdown: its turns are done). */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.beating;
    await this.backend
      .releaseEngine(this.engineId)
      .catch((err: unknown) => this.log(`store: could not release this Engine's leases: ${(err as Error).message}`));
  }
}
