import type { Database } from "better-sqlite3";
import { StoreError } from "./errors.js";
import { V1 } from "./schema/v1.js";
import { V2 } from "./schema/v2.js";
import { V3 } from "./schema/v3.js";
import { V4 } from "./schema/v4.js";
import { V5 } from "./schema/v5.js";
import { V6 } from "./schema/v6.js";

/** Migration N turns a version N-1 database into version N. Index 0 is version 1. */
export const MIGRATIONS: readonly string[] = [V1, V2, V3, V4, V5, V6];
export const SCHEMA_VERSION = MIGRATIONS.length;

export function schemaVersion(db: Database): number {
  return db.pragma("user_version", { simple: true }) as number;
}

/** One migration step, reported before it runs and when it is done (it can take minutes on a large history). */
export type MigrationStep =
  { from: number; to: number; phase: "start" } | { from: number; to: number; phase: "done"; ms: number };

/**
 * Brings the database to SCHEMA_VERSION. Each migration and its `user_version` bump run in one
 * transaction, so a crash mid-migration leaves the previous version intact. A new database's
 * first migrations are not reported (there is nothing to wait for).
 */
export function migrate(
  db: Database,
  target = SCHEMA_VERSION,
  onStep?: (step: MigrationStep) => void,
): { from: number; to: number } {
  const from = schemaVersion(db);
  if (from > SCHEMA_VERSION) {
    throw new StoreError(
      "SCHEMA_TOO_NEW",
      `database schema version ${from} is newer than this Palisade supports (${SCHEMA_VERSION}): upgrade Palisade or use another --data-dir`,
    );
  }
  const report = from > 0 ? onStep : undefined;
  for (let version = from + 1; version <= target; version++) {
    const sql = MIGRATIONS[version - 1];
    if (sql === undefined) break;
    const started = performance.now();
    report?.({ from: version - 1, to: version, phase: "start" });
    try {
      db.transaction(() => {
        db.exec(sql);
        db.pragma(`user_version = ${version}`);
      }).immediate();
      report?.({ from: version - 1, to: version, phase: "done", ms: Math.round(performance.now() - started) });
    } catch (cause) {
      throw new StoreError(
        "MIGRATION_FAILED",
        `migration to schema version ${version} failed: ${(cause as Error).message}`,
        { cause },
      );
    }
  }
  return { from, to: Math.max(from, target) };
}
