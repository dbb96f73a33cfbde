/** How model calls are retried after 429s, 5xx and network errors. */
export interface RetryPolicy {
  /** Total attempts including the first (default 4). */
  maxAttempts: number;
  /** First backoff; doubles each attempt (default 500 ms). */
  baseDelayMs: number;
  /** Cap for one wait (default 8 s). */
  maxDelayMs: number;
  /** Cap for the sum of all waits of one call (default 30 s); a longer retry-after gives up. */
  maxTotalDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 4,
  baseDelayMs: 500,
  maxDelayMs: 8000,
  maxTotalDelayMs: 30_000,
};

export interface RetryState {
  /** Attempts made so far (>= 1 after the first failure). */
  attempts: number;
  /** Milliseconds already spent waiting. */
  waitedMs: number;
}

/**
 * Milliseconds to wait before the next attempt, or undefined to give up.
 * `retryAfterMs` (from the server) wins over the backoff, but never past the total cap.
 * `random` is injectable so tests are deterministic.
 */
export function nextRetryDelay(
  policy: RetryPolicy,
  state: RetryState,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number | undefined {
  if (state.attempts >= policy.maxAttempts) return undefined;
  const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (state.attempts - 1));
  const jittered = backoff * (0.75 + 0.5 * random());
  const wait = retryAfterMs !== undefined ? retryAfterMs : jittered;
  if (state.waitedMs + wait > policy.maxTotalDelayMs) return undefined;
  return Math.max(0, Math.round(wait));
}

/** Parses `retry-after-ms` / `retry-after` (seconds or an HTTP date) into milliseconds. */
export function retryAfterMs(
  headers: { get(name: string): string | null } | undefined,
  now = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const ms = Number(headers.get("retry-after-ms") ?? "");
  if (headers.get("retry-after-ms") && Number.isFinite(ms) && ms >= 0) return ms;
  const raw = headers.get("retry-after");
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
