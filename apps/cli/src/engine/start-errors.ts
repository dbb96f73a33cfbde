// Why an Engine could not start, said about the thing that is wrong: a damaged or unreadable
// history database is named with the way out; other failures point at the config.
import { join } from "node:path";
import { CliError } from "../cli/errors.js";
import type { PalisadePaths } from "../engine-address.js";

/** The Engine's database file name in the data directory. */
const DATABASE_FILE = "palisade.db";
/** SQLite's codes for a file that is not, or no longer, a readable database. */
const DAMAGED = new Set([
  "SQLITE_CORRUPT",
  "SQLITE_NOTADB",
  "SQLITE_CORRUPT_INDEX",
  "SQLITE_CORRUPT_SEQUENCE",
  "SQLITE_CORRUPT_VTAB",
]);

export function startFailure(err: unknown, paths: PalisadePaths): CliError {
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === "string" && code.startsWith("SQLITE_")) {
    const db = join(paths.dataDir, DATABASE_FILE);
    const hint = DAMAGED.has(code)
      ? `move it aside and start with an empty history: mv ${db} ${db}.damaged (and ${db}-wal, if there is one, to ${db}.damaged-wal); ` +
        `to salvage its sessions into a new one: sqlite3 ${db}.damaged .recover | sqlite3 ${db}`
      : `check that ${db} and ${paths.dataDir} are readable and writable by you and that the disk is not full`;
    return new CliError(`the Engine could not start: the history database ${db} cannot be read: ${message} (${code})`, {
      hint,
      cause: err,
    });
  }
  return new CliError(`the Engine could not start: ${message}`, { hint: `check ${paths.configFile}`, cause: err });
}
