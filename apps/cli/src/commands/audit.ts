// `palisade audit verify`: walks the hash chain of the audit table in the data directory's
// database, read-only (a running Engine keeps writing meanwhile).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ExitCode } from "../cli/errors.js";
import { println } from "../cli/io.js";
import type { CommandContext } from "../cli/spec.js";
import { flag, pathsOf } from "./common.js";

/** The Engine's database file name in the data directory. */
const DATABASE_FILE = "palisade.db";

export async function auditVerify(ctx: CommandContext): Promise<number> {
  const file = join(pathsOf(ctx).dataDir, DATABASE_FILE);
  const json = flag(ctx, "json");
  if (!existsSync(file)) {
    if (json) println(ctx.io.stdout, JSON.stringify({ ok: true, entries: 0, database: file, problems: [] }));
    else println(ctx.io.stdout, `OK: no audit entries yet (no database at ${file})`);
    return ExitCode.OK;
  }
  const { Store } = await import("@palisade/store");
  const store = Store.open(file, { readonly: true });
  try {
    const v = store.verifyAudit();
    if (json) {
      println(ctx.io.stdout, JSON.stringify({ ok: v.ok, entries: v.rows, head: v.head, database: file, problems: v.problems }));
      return v.ok ? ExitCode.OK : ExitCode.FAILURE;
    }
    if (v.ok) {
      println(ctx.io.stdout, `OK: ${v.rows} audit entr${v.rows === 1 ? "y" : "ies"} verified; chain head #${v.head.seq} ${v.head.hash.slice(0, 16)}… (${file})`);
      return ExitCode.OK;
    }
    const first = [...v.problems].sort((a, b) => a.seq - b.seq)[0];
    println(ctx.io.stdout, `BROKEN: audit entry #${first?.seq ?? "?"} ${first?.problem.replace("_", " ") ?? ""}: ${first?.detail ?? ""}`);
    if (v.problems.length > 1) println(ctx.io.stdout, `${v.problems.length - 1} more problem(s) after it; --json lists all`);
    println(ctx.io.stdout, `${v.rows} entries read from ${file}`);
    return ExitCode.FAILURE;
  } finally {
    store.close();
  }
}
