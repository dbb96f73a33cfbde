// A pool of connections to one PostgreSQL database and the transaction helper every write uses.
import { readFileSync } from "node:fs";
import type { ConnectionOptions } from "node:tls";
import pg from "pg";
import { StoreError } from "../errors.js";
import { parsePgUrl } from "./config.js";
import type { PgConnectOptions, PgTarget } from "./config.js";

/** A pool or one of its connections (inside a transaction). */
export interface Queryable {
  query<R extends pg.QueryResultRow = Record<string, unknown>>(
    text: string,
    params?: unknown[],
  ): Promise<pg.QueryResult<R>>;
}

// BIGINT (unix ms, counters) as a JS number: every value stored here is below 2^53.
const INT8 = 20;
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8
      ? (v: string) => Number(v)
      : pg.types.getTypeParser(oid, format ?? "text")) as typeof pg.types.getTypeParser,
};

function tlsOptions(target: PgTarget, o: PgConnectOptions): boolean | ConnectionOptions {
  const mode = o.tls?.mode ?? (target.socket ? "disable" : "verify-full");
  if (mode === "disable") return false;
  const read = (file: string | undefined, what: string): string | undefined => {
    if (file === undefined) return undefined;
    try {
      return readFileSync(file, "utf8");
    } catch (cause) {
      throw new StoreError("INVALID_ARGUMENT", `store.tls.${what} ${file}: ${(cause as Error).message}`, { cause });
    }
  };
  const ca = read(o.tls?.caFile, "caFile");
  const cert = read(o.tls?.certFile, "certFile");
  const key = read(o.tls?.keyFile, "keyFile");
  return {
    ...(ca !== undefined ? { ca } : {}),
    ...(cert !== undefined ? { cert } : {}),
    ...(key !== undefined ? { key } : {}),
    // "require" encrypts and checks the chain but not the name (a server reached by address)
    ...(mode === "require" ? { checkServerIdentity: () => undefined } : {}),
    rejectUnauthorized: true,
  };
}

export class PgDb {
  readonly pool: pg.Pool;
  readonly target: PgTarget;

  constructor(options: PgConnectOptions) {
    this.target = parsePgUrl(options.url);
    const t = this.target;
    this.pool = new pg.Pool({
      host: t.host,
      port: t.port,
      database: t.database,
      ...(t.user ? { user: t.user } : {}),
      ...(options.password !== undefined ? { password: options.password } : {}),
      ssl: tlsOptions(t, options),
      max: options.pool ?? 10,
      connectionTimeoutMillis: 10_000,
      idleTimeoutMillis: 30_000,
      application_name: "palisade",
      // The planner's cost of a tsvector match often passes jit_above_cost: compiling the query
      // then takes longer (~10 ms) than running it.
      options: "-c jit=off",
      types,
    });
    // A connection that breaks while idle in the pool is dropped and replaced; without a
    // listener its error would end the process.
    this.pool.on("error", () => undefined);
  }

  query<R extends pg.QueryResultRow = Record<string, unknown>>(
    text: string,
    params: unknown[] = [],
  ): Promise<pg.QueryResult<R>> {
    return this.pool.query<R>(text, params);
  }

  /**
   * Runs fn on one connection inside BEGIN … COMMIT (durable when it resolves, unless
   * `durable: false`); any error rolls everything back. Writes of
   * one session are serialized by locking its row first (see the callers), the audit chain by
   * locking its head row.
   */
  async tx<T>(fn: (c: pg.PoolClient) => Promise<T>, options: { durable?: boolean } = {}): Promise<T> {
    const c = await this.pool.connect();
    try {
      // Not durable: committed and visible to every Engine at once, flushed to disk by the
      // server's WAL writer within a fraction of a second (lost only if the server itself
      // crashes), as the SQLite store's writes without sync().
      await c.query(options.durable === false ? "BEGIN; SET LOCAL synchronous_commit TO OFF" : "BEGIN");
      const result = await fn(c);
      await c.query("COMMIT");
      return result;
    } catch (err) {
      await c.query("ROLLBACK").catch(() => undefined);
      throw err;
    } finally {
      c.release();
    }
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

/** The SQLSTATE of a driver error ("23505" unique violation, "23503" foreign key, ...). */
export function sqlState(err: unknown): string {
  return typeof (err as { code?: unknown }).code === "string" ? (err as { code: string }).code : "";
}
