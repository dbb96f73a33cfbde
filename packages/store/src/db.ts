import { chmodSync, closeSync, openSync, statSync } from "node:fs";
import BetterSqlite3 from "better-sqlite3";
import type { Database, Statement } from "better-sqlite3";
import { StoreError } from "./errors.js";
import { migrate } from "./migrations.js";
import type { MigrationStep } from "./migrations.js";

export type Synchronous = "full" | "normal";

export interface OpenOptions {
  /**
   * "full" (default) fsyncs the WAL on every commit, blocking the caller: a committed turn
   * survives a process kill *and* a power cut or kernel crash. With "normal" a commit survives
   * a process kill (WAL in the OS page cache) and `Store.sync()` makes it survive a power cut
   * too, fsyncing off the event loop for all writers at once (the Engine's choice); without
   * `sync()` it is for bulk loads and benchmarks.
   */
  synchronous?: Synchronous;
  /** Open without writing anything (other processes reading the Engine's database). */
  readonly?: boolean;
  /** Milliseconds to wait for a lock held by another connection. Default 5000. */
  busyTimeoutMs?: number;
  /** Told before and after each migration of an existing database (they can take minutes). */
  onMigration?: (step: MigrationStep) => void;
}

// Plans that stay prepared: SQLite re-prepares a statement at its next run whenever a bound
// value its planner looked at is bound again (even to the same value), and better-sqlite3 binds
// every parameter at every run. The planner looks at `col = ?` when an ORDER BY, MIN or MAX
// follows on the same index, at the pattern of `LIKE ?`, and (in the SQLite that better-sqlite3
// 13 bundles, 3.54) at `LIMIT ?` when the value is an integer. better-sqlite3 then compiles the statement's
// row function again (`new Function`): a run costs several times what it would. Such a parameter
// is written `+?`: the same value and comparison, the same index (plans.test.ts checks both), and
// a plan that does not depend on the value.

/** A connection plus a cache of prepared statements (preparing costs more than running). */
export class Db {
  readonly raw: Database;
  private readonly statements = new Map<string, Statement>();

  constructor(raw: Database) {
    this.raw = raw;
  }

  stmt(sql: string): Statement {
    let s = this.statements.get(sql);
    if (s === undefined) {
      s = this.raw.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  /**
   * Runs fn in one IMMEDIATE transaction; a nested call becomes a savepoint, so an inner failure
   * that the outer function catches undoes only the inner writes. The same semantics as
   * better-sqlite3's `transaction()`, whose wrapper costs four new functions per call: a turn's
   * commit makes a dozen nested calls, so the statements are run here directly.
   */
  tx<T>(fn: () => T): T {
    const nested = this.raw.inTransaction;
    this.stmt(nested ? "SAVEPOINT palisade_tx" : "BEGIN IMMEDIATE").run();
    try {
      const result = fn();
      if (typeof (result as { then?: unknown } | null)?.then === "function")
        throw new TypeError("a transaction function cannot return a promise");
      this.stmt(nested ? "RELEASE palisade_tx" : "COMMIT").run();
      return result;
    } catch (err) {
      // SQLite may already have rolled back on its own (e.g. SQLITE_FULL): then there is nothing to undo.
      if (this.raw.inTransaction) {
        if (nested) {
          this.stmt("ROLLBACK TO palisade_tx").run();
          this.stmt("RELEASE palisade_tx").run();
        } else {
          this.stmt("ROLLBACK").run();
        }
      }
      throw err;
    }
  }
}

/**
 * The database file and its WAL and shared-memory files, 0600: created so when missing (SQLite
 * gives the -wal and -shm files the database's mode), made so when this user's and open to others.
 */
function makePrivate(path: string): void {
  if (path === ":memory:" || path === "" || path.startsWith("file:")) return;
  closeSync(openSync(path, "a", 0o600));
  const uid = process.getuid?.();
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    let st;
    try {
      st = statSync(file);
    } catch {
      continue;
    }
    if (st.uid === uid && (st.mode & 0o077) !== 0) chmodSync(file, 0o600);
  }
}

export function openDb(path: string, options: OpenOptions = {}): Db {
  let raw: Database;
  try {
    if (!options.readonly) makePrivate(path);
    raw = new BetterSqlite3(path, { readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false });
  } catch (cause) {
    throw new StoreError("INVALID_ARGUMENT", `cannot open database ${path}: ${(cause as Error).message}`, { cause });
  }
  try {
    raw.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    raw.pragma("foreign_keys = ON");
    if (!options.readonly) {
      // Must precede the first table so deleted pages can be returned to the OS (retention).
      if ((raw.pragma("user_version", { simple: true }) as number) === 0) raw.pragma("auto_vacuum = INCREMENTAL");
      raw.pragma("journal_mode = WAL");
      raw.pragma(`synchronous = ${options.synchronous === "normal" ? "NORMAL" : "FULL"}`);
      migrate(raw, undefined, options.onMigration);
    }
    return new Db(raw);
  } catch (error) {
    raw.close();
    throw error;
  }
}
