// A private PostgreSQL cluster for the containment proofs: a temporary data directory, no TCP
// (listen_addresses=''), a unix socket in a directory of the test's choosing, trust
// authentication, run as the unprivileged `postgres` user (initdb refuses root). A server like
// the one a developer runs on their machine, reachable by anything that can connect() to it.
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";

const BIN = ["/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/17/bin"].find((d) =>
  existsSync(join(d, "initdb")),
);
const RUNUSER = ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"].find((f) => existsSync(f));

/** Why no cluster can be started here (undefined: one can). */
export function postgresUnavailable(): string | undefined {
  if (!BIN) return "PostgreSQL is not installed (Debian: apt-get install postgresql)";
  if (!RUNUSER) return "runuser (util-linux) is not installed";
  if (process.getuid?.() !== 0) return "starting a cluster as the postgres user needs root (runuser)";
  try {
    execFileSync("id", ["postgres"], { stdio: "ignore" });
  } catch {
    return "there is no postgres user";
  }
  return undefined;
}

export interface PostgresCluster {
  /** Directory holding the server's socket (.s.PGSQL.5432). */
  socketDir: string;
  stop(): void;
}

/** Starts a cluster whose socket lives in a new directory under `socketParent`. */
export function startPostgres(socketParent: string): PostgresCluster {
  if (!BIN || !RUNUSER) throw new Error(postgresUnavailable());
  const base = mkdtempSync("/var/tmp/pal-pg-");
  const socketDir = mkdtempSync(join(socketParent, "pal-pg-sock-"));
  const ids = execFileSync("id", ["-u", "postgres"]).toString().trim();
  const gid = execFileSync("id", ["-g", "postgres"]).toString().trim();
  for (const d of [base, socketDir]) chownSync(d, Number(ids), Number(gid));
  // As Debian's /run/postgresql: anyone may reach the socket (the server decides who logs in).
  chmodSync(socketDir, 0o755);
  const data = join(base, "data");
  const asPostgres = (file: string, args: string[]): void => {
    execFileSync(RUNUSER, ["-u", "postgres", "--", join(BIN, file), ...args], { stdio: "pipe", timeout: 60_000 });
  };
  asPostgres("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]);
  asPostgres("pg_ctl", [
    "-D",
    data,
    "-l",
    join(base, "server.log"),
    "-w",
    "-t",
    "60",
    "-o",
    `-c unix_socket_directories=${socketDir} -c listen_addresses='' -c fsync=off`,
    "start",
  ]);
  return {
    socketDir,
    stop() {
      try {
        asPostgres("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } finally {
        rmSync(base, { recursive: true, force: true });
        rmSync(socketDir, { recursive: true, force: true });
      }
    },
  };
}
