// How the Engine reaches a PostgreSQL server: `store: { url, tls, pool }` in its config. The
// password never sits in the URL (a config file is read by people and copied around): it comes
// from the credential store or the environment, and the URL is refused when it carries one.
import { parse } from "pg-connection-string";
import { StoreError } from "../errors.js";

export interface PgTlsOptions {
  /** "disable" (unix socket or a trusted network), "require" (encrypt, check the certificate), "verify-full" (the default over TCP). */
  mode?: "disable" | "require" | "verify-full";
  /** PEM file of the CA that signed the server's certificate (else the system's CAs). */
  caFile?: string;
  /** PEM files of a client certificate and its key (mutual TLS). */
  certFile?: string;
  keyFile?: string;
}

export interface PgConnectOptions {
  /** postgres://user@host:port/database (or ?host=/socket/dir): no password. */
  url: string;
  /** The role's password (from the credential store or PGPASSWORD), or undefined for trust/peer auth. */
  password?: string;
  tls?: PgTlsOptions;
  /** Connections in the pool. Default 10. */
  pool?: number;
}

export interface PgTarget {
  host: string;
  port: number;
  database: string;
  user: string;
  /** The server is reached over a unix socket directory, not TCP. */
  socket: boolean;
}

/** The URL's parts; refuses a password in it, a missing database and anything not postgres://. */
export function parsePgUrl(url: string): PgTarget {
  if (!/^postgres(ql)?:\/\//.test(url)) {
    throw new StoreError(
      "INVALID_ARGUMENT",
      `store.url ${JSON.stringify(redact(url))} is not a PostgreSQL URL: write postgres://USER@HOST:PORT/DATABASE`,
    );
  }
  const p = parse(url);
  if (p.password !== undefined && p.password !== "") {
    throw new StoreError(
      "INVALID_ARGUMENT",
      `store.url carries a password: remove it from the URL (postgres://${p.user ?? "USER"}@…) and give it with palisade store password set, or in PGPASSWORD`,
    );
  }
  const host = p.host ?? "";
  if (host === "")
    throw new StoreError(
      "INVALID_ARGUMENT",
      `store.url ${JSON.stringify(url)} names no host: add one, or ?host=/path/to/socket/dir`,
    );
  const database = p.database ?? "";
  if (database === "")
    throw new StoreError(
      "INVALID_ARGUMENT",
      `store.url ${JSON.stringify(url)} names no database: add /DATABASE after the host`,
    );
  return {
    host,
    port: p.port ? Number(p.port) : 5432,
    database,
    user: p.user ?? "",
    socket: host.startsWith("/"),
  };
}

/** The URL with any password replaced, for messages and status pages. */
export function redact(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:@/]*):[^@/]*@/, "$1:***@");
}

/** What status pages show: where the history lives, never a secret. */
export function describeTarget(t: PgTarget): string {
  const where = t.socket ? `socket ${t.host}` : `${t.host}:${String(t.port)}`;
  return `PostgreSQL ${t.user ? `${t.user}@` : ""}${where}/${t.database}`;
}
