// `palisade store copy --from sqlite:PATH --to postgres://…`: moves an existing history into an
// empty PostgreSQL database and checks the copy (rows per table, both audit chains). It opens both
// databases itself: copying a history is work on the store while no Engine uses it. And `store
// password set|delete`: the PostgreSQL password in the data directory's credential store.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { PgStore as PgStoreType } from "@palisade/store";
import { CliError, ExitCode, UsageError } from "../cli/errors.js";
import { println } from "../cli/io.js";
import type { CommandContext } from "../cli/spec.js";
import { flag, hintCommand, pathsOf, stringOption } from "./common.js";

/**
 * The password for a PostgreSQL URL, as the Engine finds it: PGPASSWORD, else the credential
 * store of the data directory (`palisade store password set`); else none (the driver reads
 * ~/.pgpass).
 */
async function passwordFor(ctx: CommandContext): Promise<string | undefined> {
  const env = ctx.io.env.PGPASSWORD;
  if (env) return env;
  const { storedStorePassword } = await import("@palisade/capabilities");
  const stored = await storedStorePassword(pathsOf(ctx).dataDir);
  if (stored !== undefined) return stored;
  return undefined;
}

export async function storeCopy(ctx: CommandContext): Promise<number> {
  const fromOpt = stringOption(ctx, "from");
  const to = stringOption(ctx, "to");
  const json = flag(ctx, "json");
  if (!to)
    throw new UsageError(
      "--to is required: the PostgreSQL database to copy into",
      "palisade store copy --to postgres://USER@HOST/DATABASE (an empty database; the password from 'palisade store password set', PGPASSWORD or ~/.pgpass)",
    );
  const source = fromOpt === undefined ? resolve(pathsOf(ctx).dataDir, "palisade.db") : fromOpt.replace(/^sqlite:/, "");
  if (fromOpt !== undefined && !fromOpt.startsWith("sqlite:")) {
    throw new UsageError(`--from ${JSON.stringify(fromOpt)}: write sqlite:PATH (the data directory's palisade.db)`);
  }
  const file = resolve(ctx.io.cwd, source);
  if (!existsSync(file))
    throw new CliError(`no SQLite history at ${file}`, {
      hint: "pass --from sqlite:PATH, or --data-dir of the installation to copy",
    });
  const { PgStore, Store, copyToPostgres, readAuditKey } = await import("@palisade/store");
  const { auditKeyPath } = await import("@palisade/config/discovery");
  const keyFile = auditKeyPath(pathsOf(ctx).configFile);
  const key = await readAuditKey(keyFile, file);
  const from = Store.open(file, { readonly: true });
  let target: PgStoreType | undefined;
  try {
    const password = await passwordFor(ctx);
    target = await PgStore.open({ url: to, ...(password !== undefined ? { password } : {}) });
    const started = Date.now();
    const report = await copyToPostgres(from, target, {
      ...(key ? { auditKey: key } : {}),
      onProgress: (done, total) => {
        if (!json && (done === total || done % 100 === 0))
          println(ctx.io.stderr, `copied ${String(done)}/${String(total)} sessions`);
      },
    });
    if (json) {
      println(
        ctx.io.stdout,
        JSON.stringify({
          ok: report.ok,
          from: file,
          to: target.description,
          counts: { from: report.from, to: report.to },
          mismatched: report.mismatched,
          audit: { from: report.auditFrom, to: report.auditTo },
          ready: report.ready,
        }),
      );
      return report.ok ? ExitCode.OK : ExitCode.FAILURE;
    }
    const rows = Object.entries(report.to)
      .map(([t, n]) => `${t} ${String(n)}`)
      .join(", ");
    if (report.ok) {
      println(
        ctx.io.stdout,
        `OK: ${file} copied to ${target.description} in ${((Date.now() - started) / 1000).toFixed(1)} s: ${rows}`,
      );
      println(
        ctx.io.stdout,
        `audit chain: ${String(report.auditTo.rows)} entries verified on both sides, head #${String(report.auditTo.head.seq)} ${report.auditTo.head.hash.slice(0, 16)}…${key ? ` (keyed, ${keyFile})` : ""}`,
      );
      println(
        ctx.io.stdout,
        report.ready.checkpoint
          ? "ready to serve: VACUUM ANALYZE (planner statistics, visibility map) and CHECKPOINT (the copy is on disk) done"
          : `ready to serve: VACUUM ANALYZE (planner statistics, visibility map) done; CHECKPOINT skipped (${report.ready.checkpointSkipped ?? "refused"}): the server writes the copy out at its next checkpoint, the first turns may wait for it; a superuser or a role granted pg_checkpoint can run CHECKPOINT now`,
      );
      println(ctx.io.stdout, `next: set store.url in the config of every Engine and give each the same ${keyFile}`);
      return ExitCode.OK;
    }
    println(ctx.io.stdout, `INCOMPLETE: ${file} → ${target.description}`);
    for (const t of report.mismatched)
      println(
        ctx.io.stdout,
        `  ${t}: ${String(report.from[t as keyof typeof report.from])} in the source, ${String(report.to[t as keyof typeof report.to])} copied`,
      );
    if (!report.auditFrom.ok)
      println(
        ctx.io.stdout,
        `  the source's audit chain does not verify${key ? "" : ` (no key for it in ${keyFile})`}: ${report.auditFrom.problems[0]?.detail ?? ""}`,
      );
    if (!report.auditTo.ok)
      println(ctx.io.stdout, `  the copy's audit chain does not verify: ${report.auditTo.problems[0]?.detail ?? ""}`);
    return ExitCode.FAILURE;
  } finally {
    from.close();
    await target?.close();
  }
}
async function credentialFile(ctx: CommandContext) {
  const { STORE_PASSWORD, UserCredentialStore } = await import("@palisade/capabilities");
  return { id: STORE_PASSWORD, file: new UserCredentialStore(resolve(pathsOf(ctx).dataDir, "credentials.json")) };
}

/** `palisade store password set`: the PostgreSQL role's password into the data directory's credential store (0600). */
export async function storePasswordSet(ctx: CommandContext): Promise<number> {
  const { readSecret } = await import("./credentials.js");
  const value = await readSecret(ctx.io, "Password of the PostgreSQL role in store.url (not shown): ");
  if (value === "")
    throw new UsageError(
      "the password is empty; nothing was stored",
      `pipe it in: printf %s "$PASSWORD" | ${hintCommand(ctx, "store password set")}`,
    );
  const { id, file } = await credentialFile(ctx);
  await file.set(id.user, id.capability, id.name, value);
  println(
    ctx.io.stdout,
    `stored the PostgreSQL password in ${file.file}; the Engine reads it when it starts (PGPASSWORD, when set, comes first)`,
  );
  return ExitCode.OK;
}

export async function storePasswordDelete(ctx: CommandContext): Promise<number> {
  const { id, file } = await credentialFile(ctx);
  if (!(await file.delete(id.user, id.capability, id.name)))
    throw new CliError(`no PostgreSQL password is stored in ${file.file}`);
  println(ctx.io.stdout, `Deleted the PostgreSQL password from ${file.file}.`);
  return ExitCode.OK;
}
