// `palisade store copy --from sqlite:PATH --to postgres://…`: moves an existing history into an
// empty PostgreSQL database and checks the copy (rows per table, both audit chains); and the
// PostgreSQL side of `palisade audit verify` when the config keeps the history there.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { StoreConfig } from "@palisade/engine/config";
import type { PgStore as PgStoreType } from "@palisade/store";
import { CliError, ExitCode, UsageError } from "../cli/errors.js";
import { println } from "../cli/io.js";
import type { CommandContext } from "../cli/spec.js";
import { flag, hintCommand, pathsOf, stringOption } from "./common.js";

/** The config's `store:` when it keeps the history in PostgreSQL. */
export async function configuredStore(ctx: CommandContext): Promise<StoreConfig | undefined> {
  const { loadConfig } = await import("@palisade/engine/config");
  return (await loadConfig(pathsOf(ctx).configFile, ctx.io.env)).store;
}

/**
 * The password for a PostgreSQL URL, as the Engine finds it: PGPASSWORD, else the credential
 * store of the data directory (`palisade store password set`), else the config's password_file;
 * else none (the driver reads ~/.pgpass).
 */
async function passwordFor(ctx: CommandContext, cfg?: StoreConfig): Promise<string | undefined> {
  const env = ctx.io.env.PGPASSWORD;
  if (env) return env;
  const { storedStorePassword } = await import("@palisade/capabilities");
  const stored = await storedStorePassword(pathsOf(ctx).dataDir);
  if (stored !== undefined) return stored;
  if (cfg?.passwordFile) return (await readFile(cfg.passwordFile, "utf8")).replace(/\r?\n$/, "");
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
  const { auditKeyPath } = await import("@palisade/engine/discovery");
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

/** `palisade audit verify` against the PostgreSQL store of the config (read-only). */
export async function auditVerifyPostgres(ctx: CommandContext, cfg: StoreConfig, keyFile: string): Promise<number> {
  const { PgStore } = await import("@palisade/store");
  const json = flag(ctx, "json");
  const password = await passwordFor(ctx, cfg);
  const store = await PgStore.open({
    url: cfg.url,
    pool: 1,
    ...(password !== undefined ? { password } : {}),
    ...(cfg.tls ? { tls: cfg.tls } : {}),
  });
  try {
    let secret: Buffer | undefined;
    try {
      secret = Buffer.from((JSON.parse(await readFile(keyFile, "utf8")) as { key: string }).key, "hex");
    } catch {
      secret = undefined;
    }
    const key = secret ? await store.auditKeyOf(secret) : undefined;
    const v = await store.verifyAudit(undefined, key);
    if (json) {
      println(
        ctx.io.stdout,
        JSON.stringify({
          ok: v.ok,
          entries: v.rows,
          head: v.head,
          database: store.description,
          keyFile: key ? keyFile : null,
          problems: v.problems,
        }),
      );
    } else if (v.ok) {
      println(
        ctx.io.stdout,
        `OK: ${String(v.rows)} audit entr${v.rows === 1 ? "y" : "ies"} verified; chain head #${String(v.head.seq)} ${v.head.hash.slice(0, 16)}… (${store.description}${key ? `, key ${keyFile}` : ""})`,
      );
    } else {
      const first = [...v.problems].sort((a, b) => a.seq - b.seq)[0];
      println(
        ctx.io.stdout,
        `BROKEN: audit entry #${String(first?.seq ?? "?")} ${first?.problem.replace("_", " ") ?? ""}: ${first?.detail ?? ""}`,
      );
      println(ctx.io.stdout, `${String(v.rows)} entries read from ${store.description}`);
    }
    return v.ok ? ExitCode.OK : ExitCode.FAILURE;
  } finally {
    await store.close();
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
