// `palisade audit verify`: walks the hash chain of the audit trail, read-only (a running Engine
// keeps writing meanwhile), in the data directory's database or the config's PostgreSQL store. The
// Engine's package opens the store (verifyAuditTrail); this prints its answer. The Engine keys the
// chain with the audit key beside its configuration file; verification reads that key (never
// creates one).
import { auditKeyPath, isProcessAlive, readEngineInfo } from "@palisade/config/discovery";
import { ExitCode } from "../cli/errors.js";
import { println } from "../cli/io.js";
import type { CommandContext } from "../cli/spec.js";
import { flag, pathsOf, stringOption } from "./common.js";

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
  const { loadConfig } = await import("@palisade/config");
  const { verifyAuditTrail } = await import("@palisade/engine");
  const paths = pathsOf(ctx);
  const store = (await loadConfig(paths.configFile, ctx.io.env)).store;
  const keyFile = await keyFileOf(ctx);
  const v = await verifyAuditTrail({
    dataDir: paths.dataDir,
    keyFile,
    ...(store ? { store } : {}),
    env: ctx.io.env,
  });
  const file = v.database;
  if (flag(ctx, "json")) {
    println(
      ctx.io.stdout,
      JSON.stringify(
        v.exists
          ? {
              ok: v.ok,
              entries: v.rows,
              head: v.head,
              database: file,
              keyFile: v.keyed ? keyFile : null,
              problems: v.problems,
            }
          : { ok: true, entries: 0, database: file, problems: [] },
      ),
    );
    return v.ok ? ExitCode.OK : ExitCode.FAILURE;
  }
  if (!v.exists) {
    println(ctx.io.stdout, `OK: no audit entries yet (no database at ${file})`);
    return ExitCode.OK;
  }
  if (v.ok) {
    println(
      ctx.io.stdout,
      `OK: ${String(v.rows)} audit entr${v.rows === 1 ? "y" : "ies"} verified; chain head #${String(v.head.seq)} ${v.head.hash.slice(0, 16)}… (${file}${v.keyed ? `, key ${keyFile}` : ""})`,
    );
    return ExitCode.OK;
  }
  const first = [...v.problems].sort((a, b) => a.seq - b.seq)[0];
  println(
    ctx.io.stdout,
    `BROKEN: audit entry #${String(first?.seq ?? "?")} ${first?.problem.replace("_", " ") ?? ""}: ${first?.detail ?? ""}`,
  );
  if (v.kind === "sqlite" && v.problems.length > 1)
    println(ctx.io.stdout, `${String(v.problems.length - 1)} more problem(s) after it; --json lists all`);
  println(ctx.io.stdout, `${String(v.rows)} entries read from ${file}`);
  if (v.kind === "sqlite" && !v.keyed) {
    println(
      ctx.io.stdout,
      `(checked without a key: ${keyFile} does not hold this database's audit key; if the Engine ran with another config, pass it with --config)`,
    );
  }
  return ExitCode.FAILURE;
}
