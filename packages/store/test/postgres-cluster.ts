// A private PostgreSQL cluster for one test file: initdb into a temporary directory, the server
// on a unix socket in that directory (no TCP port unless asked for), run as an unprivileged user
// (initdb refuses root), removed after. Tests that need PostgreSQL call startPostgres() in a
// beforeAll and stop() in the afterAll; nothing here talks to a server it did not start.
import { spawn, spawnSync } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { parse } from "pg-connection-string";

/** The newest Debian server installed (postgresql-15 on bookworm), unless PALISADE_PG_BIN names one. */
function findBin(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  return join(root, versions[0] ?? "15", "bin");
}

export const PG_BIN = process.env.PALISADE_PG_BIN ?? findBin();

export interface PgCluster {
  /** The temporary directory (data, socket, log); gone after stop(). */
  dir: string;
  /** Directory of the server's unix socket. */
  socketDir: string;
  /** TCP port when started with { tcp: true }. */
  port?: number;
  /** The administrator role and its password (local connections need it: scram-sha-256). */
  admin: { user: string; password: string };
  /** postgres:// URL of a database on the socket, without a password. */
  url(database: string, user?: string): string;
  /** Creates a fresh database owned by the administrator; returns its name. */
  createDatabase(name?: string): Promise<string>;
  /** Runs one statement as the administrator in `database`. */
  sql(database: string, text: string, params?: unknown[]): Promise<pg.QueryResult>;
  stop(): Promise<void>;
}

/** Why PostgreSQL tests cannot run here, or undefined when they can. */
export function postgresUnavailable(): string | undefined {
  if (!existsSync(join(PG_BIN, "initdb")) || !existsSync(join(PG_BIN, "postgres"))) {
    return `PostgreSQL is not installed (no ${PG_BIN}/initdb): run 'make deps-system' (Debian package postgresql)`;
  }
  return undefined;
}

/** initdb refuses to run as root: as root, the cluster belongs to an unprivileged system user. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ["postgres", "nobody"]) {
    const id = spawnSync("id", ["-u", name], { encoding: "utf8" });
    const gid = spawnSync("id", ["-g", name], { encoding: "utf8" });
    if (id.status === 0 && gid.status === 0) return { uid: Number(id.stdout.trim()), gid: Number(gid.stdout.trim()) };
  }
  throw new Error("running as root, and neither the user postgres nor nobody exists to own the test cluster");
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const address = s.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}

function waitReady(server: ChildProcess, log: () => string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`PostgreSQL did not start within ${timeoutMs} ms:\n${log()}`)),
      timeoutMs,
    );
    const onData = (): void => {
      if (/ready to accept connections/.test(log())) {
        clearTimeout(timer);
        resolve();
      }
    };
    server.stderr?.on("data", onData);
    server.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`PostgreSQL exited during start-up (code ${String(code)}):\n${log()}`));
    });
  });
}

/** `durable`: fsync on, as a real server (benchmarks); by default off, the cluster is thrown away. */
export async function startPostgres(
  options: { tcp?: boolean; durable?: boolean; tls?: { certFile: string; keyFile: string } } = {},
): Promise<PgCluster> {
  const missing = postgresUnavailable();
  if (missing !== undefined) throw new Error(missing);
  const dir = mkdtempSync(join(tmpdir(), "palisade-pg-"));
  const owner = serverUser();
  const ids = owner ?? {};
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const admin = { user: "palisade_admin", password: `pw-${Math.random().toString(36).slice(2)}` };
  const pwfile = join(dir, "pwfile");
  writeFileSync(pwfile, `${admin.password}\n`, { mode: 0o600 });
  if (owner) chownSync(pwfile, owner.uid, owner.gid);
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C", LC_ALL: "C" };
  const data = join(dir, "data");
  const init = spawnSync(
    join(PG_BIN, "initdb"),
    [
      "-D",
      data,
      "-U",
      admin.user,
      `--pwfile=${pwfile}`,
      "--auth-local=scram-sha-256",
      "--auth-host=scram-sha-256",
      "-E",
      "UTF8",
      "--locale=C",
      "--no-sync",
    ],
    { ...ids, env, cwd: dir, encoding: "utf8" },
  );
  rmSync(pwfile, { force: true });
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed (${String(init.status)}): ${init.stderr}`);
  }
  const port = options.tcp || options.tls ? await freePort() : 5432;
  // TLS on TCP: the server's certificate and key, owned by the server's user (it refuses a key others can read).
  const tlsArgs: string[] = [];
  if (options.tls) {
    for (const [name, from] of [
      ["server.crt", options.tls.certFile],
      ["server.key", options.tls.keyFile],
    ] as const) {
      const to = join(dir, name);
      writeFileSync(to, readFileSync(from), { mode: 0o600 });
      if (owner) chownSync(to, owner.uid, owner.gid);
    }
    tlsArgs.push(
      "-c",
      "ssl=on",
      "-c",
      `ssl_cert_file=${join(dir, "server.crt")}`,
      "-c",
      `ssl_key_file=${join(dir, "server.key")}`,
    );
  }
  // fsync off unless durable: the cluster is thrown away after the run; no test kills the server itself.
  const server = spawn(
    join(PG_BIN, "postgres"),
    [
      "-D",
      data,
      "-k",
      dir,
      "-p",
      String(port),
      "-c",
      `listen_addresses=${options.tcp || options.tls ? "127.0.0.1" : ""}`,
      ...tlsArgs,
      ...(options.durable ? [] : ["-c", "fsync=off", "-c", "full_page_writes=off"]),
      "-c",
      "max_connections=200",
    ],
    { ...ids, env, cwd: dir, stdio: ["ignore", "ignore", "pipe"] },
  );
  let log = "";
  server.stderr?.setEncoding("utf8");
  server.stderr?.on("data", (chunk: string) => {
    log = (log + chunk).slice(-20_000);
  });
  try {
    await waitReady(server, () => log, 30_000);
  } catch (err) {
    server.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const url = (database: string, user = admin.user): string =>
    `postgres://${encodeURIComponent(user)}@/${encodeURIComponent(database)}?host=${encodeURIComponent(dir)}&port=${String(port)}`;
  const sql = async (database: string, text: string, params: unknown[] = []): Promise<pg.QueryResult> => {
    const client = new pg.Client({ ...parse(url(database)), password: admin.password } as pg.ClientConfig);
    await client.connect();
    try {
      return await client.query(text, params);
    } finally {
      await client.end();
    }
  };
  let n = 0;
  return {
    dir,
    socketDir: dir,
    ...(options.tcp || options.tls ? { port } : {}),
    admin,
    url,
    sql,
    async createDatabase(name = `t${String(process.pid)}_${String(++n)}`) {
      await sql("postgres", `CREATE DATABASE ${name}`);
      return name;
    },
    async stop() {
      if (server.exitCode === null && server.signalCode === null) {
        const exited = new Promise<void>((resolve) => server.once("exit", () => resolve()));
        server.kill("SIGINT"); // fast shutdown: disconnects clients, then exits
        const timer = setTimeout(() => server.kill("SIGKILL"), 10_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
