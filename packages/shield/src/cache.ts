/** Verdict cache (TTL, bounded, insertion-order eviction) and the per-session rate limiter. */
import type { Verdict } from "./types.js";

export class VerdictCache {
  private readonly map = new Map<string, { verdict: Verdict; expires: number }>();
  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  get(key: string, now: number): Verdict | undefined {
    const e = this.map.get(key);
    if (e === undefined) return undefined;
    if (e.expires <= now) {
      this.map.delete(key);
      return undefined;
    }
    return e.verdict;
  }

  set(key: string, verdict: Verdict, now: number): void {
    if (this.ttlMs <= 0) return;
    if (this.map.size >= this.maxEntries) {
      const oldest = this.map.keys().next();
      if (oldest.done !== true) this.map.delete(oldest.value);
    }
    this.map.set(key, { verdict, expires: now + this.ttlMs });
  }

  get size(): number {
    return this.map.size;
  }
}

/** Fixed one-minute windows per session: at most `perMinute` evaluations in each. 0 = unlimited. */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  constructor(private readonly perMinute: number) {}

  /** Counts one evaluation; false when the session is over its limit. */
  take(session: string, now: number): boolean {
    if (this.perMinute <= 0) return true;
    let w = this.windows.get(session);
    if (w === undefined || now - w.start >= 60_000) {
      if (this.windows.size > 10_000) this.windows.clear();
      w = { start: now, count: 0 };
      this.windows.set(session, w);
    }
    w.count++;
    return w.count <= this.perMinute;
  }
}
