// The store's contract tests run against each backend: SQLite on a file in a temp dir, and
// PostgreSQL in a private cluster started for the test file (postgres-cluster.ts). A test
// written with forEachBackend runs once per backend, with the same assertions.
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, afterEach, describe } from "vitest";
import { PG_SCHEMA_VERSION, PgStore, SCHEMA_VERSION, Store, sqliteHistory } from "@palisade/store";
import type { HistoryStore } from "@palisade/store";
import { tempDir } from "./helpers.js";
import { postgresUnavailable, startPostgres } from "./postgres-cluster.js";
import type { PgCluster } from "./postgres-cluster.js";

export interface Backend {
  name: "sqlite" | "postgres";
  /** A fresh, empty store, closed after the test. */
  open(): Promise<HistoryStore>;
  /** Runs SQL on the database of the last store opened, bypassing the store (tampering tests). */
  sql(text: string, params?: unknown[]): Promise<void>;
  /** Rows in a table of the database of the last store opened. */
  rows(table: string): Promise<number>;
  /** The schema version a new store of this backend has. */
  schemaVersion: number;
  /** SQL that removes a trigger on that backend's database. */
  dropTrigger(table: string, trigger: string): string;
}

const open: HistoryStore[] = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()?.close();
});

function sqliteBackend(): Backend {
  let path = "";
  return {
    name: "sqlite",
    async open() {
      path = join(tempDir(), "palisade.db");
      const store = sqliteHistory(Store.open(path));
      open.push(store);
      return store;
    },
    async sql(text, params = []) {
      const db = new BetterSqlite3(path);
      try {
        db.prepare(text).run(...params);
      } finally {
        db.close();
      }
    },
    async rows(table) {
      const db = new BetterSqlite3(path, { readonly: true });
      try {
        return (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
      } finally {
        db.close();
      }
    },
    schemaVersion: SCHEMA_VERSION,
    dropTrigger: (_table, trigger) => `DROP TRIGGER ${trigger}`,
  };
}

let cluster: Promise<PgCluster> | undefined;
afterAll(async () => {
  if (cluster) await (await cluster).stop();
});

function postgresBackend(): Backend {
  let database = "";
  return {
    name: "postgres",
    async open() {
      cluster ??= startPostgres();
      const c = await cluster;
      database = await c.createDatabase();
      const store = await PgStore.open({ url: c.url(database), password: c.admin.password, pool: 4 });
      open.push(store);
      return store;
    },
    async sql(text, params = []) {
      const c = await (cluster as Promise<PgCluster>);
      let n = 0;
      // the tests write SQLite's `?` placeholders
      await c.sql(
        database,
        text.replace(/\?/g, () => `$${String(++n)}`),
        params,
      );
    },
    async rows(table) {
      const c = await (cluster as Promise<PgCluster>);
      return Number((await c.sql(database, `SELECT COUNT(*) AS n FROM ${table}`)).rows[0]?.n);
    },
    schemaVersion: PG_SCHEMA_VERSION,
    dropTrigger: (table, trigger) => `DROP TRIGGER ${trigger} ON ${table}`,
  };
}

/** Declares the tests in `fn` once per backend (PostgreSQL skipped, with the reason, where it is not installed). */
export function forEachBackend(fn: (backend: Backend) => void): void {
  describe("sqlite", () => fn(sqliteBackend()));
  const missing = postgresUnavailable();
  describe.skipIf(missing !== undefined)(`postgres${missing ? ` (${missing})` : ""}`, () => fn(postgresBackend()));
}
