import type { Database } from "better-sqlite3";
import { StoreError } from "./errors.js";
import { V1 } from "./schema/v1.js";
import { V2 } from "./schema/v2.js";
import { V3 } from "./schema/v3.js";

/** Migration N turns a version N-1 database into version N. Index 0 is version 1. */
export const MIGRATIONS: readonly string[] = [V1, V2, V3];
export const SCHEMA_VERSION = MIGRATIONS.length;

export function schemaVersion(db: Database): number {
  return db.pragma("user_version", { simple: true }) as number;
}

/**
 * Brings the database to SCHEMA_VERSION. Each migration and its `user_version` bump run in one
 * transaction, so a crash mid-migration leaves the previous version intact.
 */
export function migrate(db: Database, target = SCHEMA_VERSION): { from: number; to: number } {
  const from = schemaVersion(db);
  if (from > SCHEMA_VERSION) {
    throw new StoreError(
      "SCHEMA_TOO_NEW",
      `database schema version ${from} is newer than this Palisade supports (${SCHEMA_VERSION}): upgrade Palisade or use another --data-dir`,
    );
  }
  for (let version = from + 1; version <= target; version++) {
    const sql = MIGRATIONS[version - 1];
    if (sql === undefined) break;
    try {
      db.transaction(() => {
        db.exec(sql);
        db.pragma(`user_version = ${version}`);
      }).immediate();
    } catch (cause) {
      throw new StoreError("MIGRATION_FAILED", `migration to schema version ${version} failed: ${(cause as Error).message}`, { cause });
    }
  }
  return { from, to: Math.max(from, target) };
}
