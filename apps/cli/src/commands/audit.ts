// `palisade audit verify`: walks the hash chain of the audit table in the data directory's
// database, read-only (a running Engine keeps writing meanwhile). The Engine keys the chain with
// the audit key beside its configuration file; verification reads that key (never creates one).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { auditKeyPath, isProcessAlive, readEngineInfo } from "@palisade/engine/discovery";
import { ExitCode } from "../cli/errors.js";
import { println } from "../cli/io.js";
import type { CommandContext } from "../cli/spec.js";
import { flag, pathsOf, stringOption } from "./common.js";

/** The Engine's database file name in the data directory. */
const DATABASE_FILE = "palisade.db";

/**
 * The key file the Engine of this data directory uses: beside the config a running Engine
 * recorded it read, else beside the config this command resolves (--config, PALISADE_CONFIG,
 * the XDG default), as `engine start` would.
 */
async function keyFileOf(ctx: CommandContext): Promise<string> {
  const paths = pathsOf(ctx);
  if (stringOption(ctx, "config") === undefined) {
    const info = await readEngineInfo(paths.dataDir);
    if (info?.setup && isProcessAlive(info.pid)) return auditKeyPath(info.setup.configFile);
  }
  return auditKeyPath(paths.configFile);
}

export async function auditVerify(ctx: CommandContext): Promise<number> {
  const { auditVerifyPostgres, configuredStore } = await import("./store.js");
  const pg = await configuredStore(ctx);
  if (pg) return auditVerifyPostgres(ctx, pg, await keyFileOf(ctx));
  const file = join(pathsOf(ctx).dataDir, DATABASE_FILE);
  const json = flag(ctx, "json");
  if (!existsSync(file)) {
    if (json) println(ctx.io.stdout, JSON.stringify({ ok: true, entries: 0, database: file, problems: [] }));
    else println(ctx.io.stdout, `OK: no audit entries yet (no database at ${file})`);
    return ExitCode.OK;
  }
  const { readAuditKey, Store } = await import("@palisade/store");
  const keyFile = await keyFileOf(ctx);
  const key = await readAuditKey(keyFile, file);
  const store = Store.open(file, { readonly: true });
  try {
    const v = store.verifyAudit(undefined, key);
    if (json) {
      println(
        ctx.io.stdout,
        JSON.stringify({
          ok: v.ok,
          entries: v.rows,
          head: v.head,
          database: file,
          keyFile: key ? keyFile : null,
          problems: v.problems,
        }),
      );
      return v.ok ? ExitCode.OK : ExitCode.FAILURE;
    }
    if (v.ok) {
      println(
        ctx.io.stdout,
        `OK: ${v.rows} audit entr${v.rows === 1 ? "y" : "ies"} verified; chain head #${v.head.seq} ${v.head.hash.slice(0, 16)}… (${file}${key ? `, key ${keyFile}` : ""})`,
      );
      return ExitCode.OK;
    }
    const first = [...v.problems].sort((a, b) => a.seq - b.seq)[0];
    println(
      ctx.io.stdout,
      `BROKEN: audit entry #${first?.seq ?? "?"} ${first?.problem.replace("_", " ") ?? ""}: ${first?.detail ?? ""}`,
    );
    if (v.problems.length > 1)
      println(ctx.io.stdout, `${v.problems.length - 1} more problem(s) after it; --json lists all`);
    println(ctx.io.stdout, `${v.rows} entries read from ${file}`);
    if (!key) {
      println(
        ctx.io.stdout,
        `(checked without a key: ${keyFile} does not hold this database's audit key; if the Engine ran with another config, pass it with --config)`,
      );
    }
    return ExitCode.FAILURE;
  } finally {
    store.close();
  }
}
