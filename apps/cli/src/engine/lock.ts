// One Engine per data directory: an exclusive lock on `<dataDir>/engine.lock`, taken before the
// Engine opens its database or binds its socket, and held for the life of its process.
//
// The lock is SQLite's own file lock (fcntl, taken by an EXCLUSIVE transaction in exclusive
// locking mode, never committed): the kernel releases it when the process ends in any way,
// kill -9 included, so a crashed Engine leaves no stale lock to detect or break, and a pid
// reused by another program can never look like an Engine.
import { join } from "node:path";
import Database from "better-sqlite3";

export const LOCK_FILE = "engine.lock";
/** The exit code of an Engine process that found another holding the lock (EX_TEMPFAIL). */
export const ENGINE_LOCKED_EXIT = 75;

export interface EngineLock {
  readonly file: string;
  /** Releases the lock (the process exiting does too). */
  release(): void;
}

/** The lock of `dataDir` (which must exist), or undefined when another process holds it. */
export function tryLockEngine(dataDir: string): EngineLock | undefined {
  const file = join(dataDir, LOCK_FILE);
  // timeout 0: a held lock answers SQLITE_BUSY at once instead of waiting
  const db = new Database(file, { timeout: 0 });
  try {
    db.pragma("locking_mode = EXCLUSIVE");
    db.exec("BEGIN EXCLUSIVE");
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code === "SQLITE_BUSY") return undefined;
    throw err;
  }
  let held = true;
  return {
    file,
    release: () => {
      if (!held) return;
      held = false;
      db.close();
    },
  };
}

/**
 * Whether an Engine holds `dataDir`'s lock (running or starting). Asking takes the lock for an
 * instant when it is free: an Engine starting in that instant exits as if another held it, and
 * its client then starts one anew (see connect.ts).
 */
export function engineLockHeld(dataDir: string): boolean {
  const lock = tryLockEngine(dataDir);
  lock?.release();
  return lock === undefined;
}
