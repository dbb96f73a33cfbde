// `palisade audit verify`: the audit chain of an installation's store walked read-only (a running
// Engine keeps writing meanwhile), with the key the Engine keys it with when that key is there.
// The CLI asks for it here and prints the answer: what opens the store is the Engine's package.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { StoreConfig } from "@palisade/config";
import type { AuditVerification } from "@palisade/store";
import { storePassword } from "../adapters/postgres-store.js";

/** The Engine's database file name in the data directory. */
export const DATABASE_FILE = "palisade.db";

export interface AuditVerifyOptions {
  dataDir: string;
  /** The audit key file the Engine of `dataDir` uses (read, never created). */
  keyFile: string;
  /** The config's `store:`, when it keeps the history in PostgreSQL. */
  store?: StoreConfig;
  /** Where PGPASSWORD is read (a copy is used: it is not removed from this one). */
  env?: NodeJS.ProcessEnv;
}

export interface AuditVerifyReport extends AuditVerification {
  /** The SQLite file or the PostgreSQL database checked. */
  database: string;
  kind: "sqlite" | "postgres";
  /** Whether the store exists at all (a SQLite file not created yet has no entries). */
  exists: boolean;
  /** Whether the chain was checked with the key of `keyFile`. */
  keyed: boolean;
}

export async function verifyAuditTrail(o: AuditVerifyOptions): Promise<AuditVerifyReport> {
  return o.store ? verifyPostgres(o, o.store) : verifySqlite(o);
}

async function verifySqlite(o: AuditVerifyOptions): Promise<AuditVerifyReport> {
  const file = join(o.dataDir, DATABASE_FILE);
  if (!existsSync(file))
    return {
      ok: true,
      rows: 0,
      head: { seq: 0, hash: "" },
      problems: [],
      database: file,
      kind: "sqlite",
      exists: false,
      keyed: false,
    };
  const { readAuditKey, Store } = await import("@palisade/store");
  const key = await readAuditKey(o.keyFile, file);
  const store = Store.open(file, { readonly: true });
  try {
    return { ...store.verifyAudit(undefined, key), database: file, kind: "sqlite", exists: true, keyed: !!key };
  } finally {
    store.close();
  }
}

async function verifyPostgres(o: AuditVerifyOptions, cfg: StoreConfig): Promise<AuditVerifyReport> {
  const { PgStore } = await import("@palisade/store");
  const password = await storePassword(cfg, { ...(o.env ?? process.env) }, o.dataDir);
  const store = await PgStore.open({
    url: cfg.url,
    pool: 1,
    ...(password !== undefined ? { password } : {}),
    ...(cfg.tls ? { tls: cfg.tls } : {}),
  });
  try {
    let secret: Buffer | undefined;
    try {
      secret = Buffer.from((JSON.parse(await readFile(o.keyFile, "utf8")) as { key: string }).key, "hex");
    } catch {
      secret = undefined;
    }
    const key = secret ? await store.auditKeyOf(secret) : undefined;
    const v = await store.verifyAudit(undefined, key);
    return { ...v, database: store.description, kind: "postgres", exists: true, keyed: !!key };
  } finally {
    await store.close();
  }
}
