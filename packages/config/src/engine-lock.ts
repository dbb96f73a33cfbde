// One Engine per data directory: an exclusive lock on `<dataDir>/engine.lock`, taken before the
// Engine opens its database or binds its socket, and held for the life of its process. Both
// entry points take it (`palisade engine start --foreground` and palisade-engine); clients read
// who holds it. Part of the discovery contract: light, no engine internals.
//
// The lock is SQLite's own file lock (fcntl, taken by an EXCLUSIVE transaction in exclusive
// locking mode, never committed): the kernel releases it when the process ends in any way,
// kill -9 included, so a crashed Engine leaves no stale lock to detect or break, and a pid
// reused by another program can never look like an Engine.
import { chmodSync, closeSync, openSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type BetterSqlite3 from "better-sqlite3";

export const LOCK_FILE = "engine.lock";

export interface EngineLock {
  readonly file: string;
  /** Releases the lock (the process exiting does too). */
  release(): void;
}

/**
 * The lock of `dataDir` (which must exist), or undefined when another process holds it.
 * better-sqlite3 is loaded here, on first use: clients that never start an Engine do not load it.
 */
export async function tryLockEngine(dataDir: string): Promise<EngineLock | undefined> {
  // a CommonJS module: its exports are the namespace's default (the types say `export =`)
  const Database = ((await import("better-sqlite3")) as unknown as { default: typeof BetterSqlite3 }).default;
  const file = join(dataDir, LOCK_FILE);
  // 0600 like every file of the data dir (SQLite would create it 0644 under the usual umask)
  closeSync(openSync(file, "a", 0o600));
  chmodSync(file, 0o600);
  // timeout 0: a held lock answers SQLITE_BUSY at once instead of waiting
  const db = new Database(file, { timeout: 0 });
  try {
    // nothing is ever written: no journal file beside the lock
    db.pragma("journal_mode = MEMORY");
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
 * The pid of the process holding `dataDir`'s lock (an Engine running or starting), read from the
 * kernel's table of file locks (/proc/locks): asking takes no lock and loads no SQLite. Undefined
 * when none holds it (or there is no /proc/locks: the Engine's own lock still keeps it to one).
 */
export function engineLockHolder(dataDir: string): number | undefined {
  let st;
  let table: string;
  try {
    st = statSync(join(dataDir, LOCK_FILE));
    table = readFileSync("/proc/locks", "utf8");
  } catch {
    return undefined;
  }
  // /proc/locks names a file as MAJOR:MINOR:INODE, the device numbers in hex (Linux's dev_t layout)
  const major = (st.dev >>> 8) & 0xfff;
  const minor = (st.dev & 0xff) | ((st.dev >>> 12) & 0xfff00);
  const hex = (n: number): string => n.toString(16).padStart(2, "0");
  const key = `${hex(major)}:${hex(minor)}:${String(st.ino)}`;
  for (const line of table.split("\n")) {
    // "1: POSIX  ADVISORY  WRITE 3933 fe:00:2155836 1073741824 1073742335"; "->" lines wait for a lock
    const f = line.trim().split(/\s+/);
    if (f[1] !== "POSIX" || f[5] !== key) continue;
    const pid = Number(f[4]);
    if (Number.isInteger(pid) && pid !== process.pid) return pid;
  }
  return undefined;
}
