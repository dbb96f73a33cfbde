import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TempDir {
  /** Real (symlink-resolved) absolute path of the new directory. */
  readonly path: string;
  /** Removes the directory and everything in it. */
  remove(): Promise<void>;
}

/** Creates a fresh directory under the OS temp dir; call `remove()` in afterEach/afterAll. */
export async function makeTempDir(prefix = "palisade-test-"): Promise<TempDir> {
  const path = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

export interface WaitForOptions {
  /**
   * Default 60 s: a bound for a condition that never comes, not a measure of how soon it comes
   * (the wait ends as soon as it holds). A machine at full load makes a 1 s step take 10 s or more.
   */
  timeoutMs?: number;
  /** Default 10 ms. */
  intervalMs?: number;
  /** Describes what was awaited, for the timeout error. */
  message?: string;
}

/**
 * Polls `predicate` until it returns a truthy value (returned) or the timeout passes (throws,
 * including the last error the predicate threw).
 */
export async function waitFor<T>(
  predicate: () => T | Promise<T>,
  options: WaitForOptions | number = {},
): Promise<NonNullable<T>> {
  const opts = typeof options === "number" ? { timeoutMs: options } : options;
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const intervalMs = opts.intervalMs ?? 10;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await predicate();
      if (value) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const what = opts.message ?? "condition";
      const why =
        lastError === undefined
          ? ""
          : ` (last error: ${lastError instanceof Error ? lastError.message : JSON.stringify(lastError)})`;
      throw new Error(`waitFor: ${what} not met within ${String(timeoutMs)} ms${why}`, { cause: lastError });
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Resolves after `ms` milliseconds. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The process exists (signal 0 reaches it; a zombie still counts). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
