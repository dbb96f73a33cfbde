// Versioned migrations of a PostgreSQL store. Several Engines may start at once against one
// database: an advisory lock held for the migration's transaction lets one of them migrate while
// the others wait, then find the work done.
import { StoreError } from "../errors.js";
import type { MigrationStep } from "../migrations.js";
import type { PgDb } from "./db.js";
import { PG_MIGRATIONS, PG_SCHEMA_VERSION } from "./schema.js";

const MIGRATION_LOCK = 0x70616c69; // "pali"

export async function pgSchemaVersion(db: PgDb): Promise<number> {
  const r = await db.query<{ v: number | null }>(
    "SELECT CASE WHEN to_regclass('palisade_schema') IS NULL THEN 0 ELSE (SELECT COALESCE(MAX(version), 0) FROM palisade_schema) END AS v",
  );
  return r.rows[0]?.v ?? 0;
}

export async function migratePg(
  db: PgDb,
  onStep?: (step: MigrationStep) => void,
): Promise<{ from: number; to: number }> {
  return db.tx(async (c) => {
    await c.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await c.query(
      "CREATE TABLE IF NOT EXISTS palisade_schema (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)",
    );
    const from = Number(
      (await c.query<{ v: number }>("SELECT COALESCE(MAX(version), 0) AS v FROM palisade_schema")).rows[0]?.v ?? 0,
    );
    if (from > PG_SCHEMA_VERSION) {
      throw new StoreError(
        "SCHEMA_TOO_NEW",
        `database schema version ${from} is newer than this Palisade supports (${PG_SCHEMA_VERSION}): upgrade Palisade on every Engine of the deployment`,
      );
    }
    const report = from > 0 ? onStep : undefined;
    for (let version = from + 1; version <= PG_SCHEMA_VERSION; version++) {
      const sql = PG_MIGRATIONS[version - 1] as string;
      const started = performance.now();
      report?.({ from: version - 1, to: version, phase: "start" });
      try {
        await c.query("SAVEPOINT migration");
        await c.query(sql);
        await c.query("INSERT INTO palisade_schema (version, applied_at) VALUES ($1, $2)", [version, Date.now()]);
        await c.query("RELEASE migration");
      } catch (cause) {
        const message = (cause as Error).message;
        // Version 6 creates btree_gin: missing on the server, or not allowed to this role.
        const hint = /btree_gin/.test(message)
          ? ": the search index needs PostgreSQL's btree_gin extension (contrib, in Debian's postgresql package); install it on the server or have its administrator run 'CREATE EXTENSION btree_gin' in this database, then start again"
          : "";
        throw new StoreError(
          "MIGRATION_FAILED",
          `migration of the PostgreSQL store to schema version ${version} failed: ${message}${hint}`,
          { cause },
        );
      }
      report?.({ from: version - 1, to: version, phase: "done", ms: Math.round(performance.now() - started) });
    }
    return { from, to: Math.max(from, PG_SCHEMA_VERSION) };
  });
}
