// Opening an existing history database of an older schema upgrades it, which can take minutes on
// a large history: the Engine's log says so before it starts and when it is done.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { SCHEMA_VERSION } from "@palisade/store";
import { afterEach, expect, it } from "vitest";
import { DATABASE_FILE, openSqliteStore } from "../src/adapters/sqlite-store.js";

const V2 = readFileSync(join(import.meta.dirname, "..", "..", "store", "test", "fixtures", "v2.sql"), "utf8");
let dir = "";
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it("logs the schema upgrade of an existing database before and after it, and nothing for a new one", async () => {
  dir = mkdtempSync(join(tmpdir(), "pal-migrate-"));
  const old = new BetterSqlite3(join(dir, DATABASE_FILE));
  old.pragma("journal_mode = WAL");
  old.exec(V2);
  old.close();
  const lines: string[] = [];
  const store = await openSqliteStore(dir, (l) => lines.push(l));
  await store.close();
  // One line before and one after each step, from v2 to the current schema.
  expect(lines).toHaveLength(2 * (SCHEMA_VERSION - 2));
  expect(lines[0]).toMatch(
    /^history: upgrading the database from schema v2 to v3; on a large history this takes minutes/,
  );
  for (let v = 3; v <= SCHEMA_VERSION; v++) {
    expect(lines[2 * (v - 3)]).toMatch(new RegExp(`^history: upgrading the database from schema v${v - 1} to v${v}`));
    expect(lines[2 * (v - 3) + 1]).toMatch(new RegExp(`^history: database upgraded to schema v${v} in \\d+\\.\\d s$`));
  }

  const fresh = mkdtempSync(join(tmpdir(), "pal-migrate-new-"));
  const none: string[] = [];
  await (await openSqliteStore(fresh, (l) => none.push(l))).close();
  rmSync(fresh, { recursive: true, force: true });
  expect(none).toEqual([]);
});
