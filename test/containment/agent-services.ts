// Services of the user that a process of the same uid could reach by a unix socket: a private
// PostgreSQL cluster (trust auth on a socket only, started as the postgres user, since initdb
// refuses root) and a D-Bus session bus, each in a temporary directory.
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PG_BIN = "/usr/lib/postgresql/15/bin";
const RUNUSER = ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"].find((p) => existsSync(p));

export interface Postgres {
  /** The cluster's unix socket. */
  socket: string;
  /** A directory the server (as postgres) can write: where `COPY … TO PROGRAM` would put its marker. */
  markerDir: string;
  stop(): void;
}

/** Why PostgreSQL cannot be started here, or undefined when it can. */
export function postgresMissing(): string | undefined {
  if (!existsSync(join(PG_BIN, "initdb")))
    return `PostgreSQL 15 is not installed (${PG_BIN}/initdb): apt-get install postgresql-15`;
  if (!RUNUSER) return "runuser is not installed (util-linux)";
  if (spawnSync("id", ["-u", "postgres"]).status !== 0) return "there is no postgres user";
  return undefined;
}

export function startPostgres(): Postgres {
  const dir = mkdtempSync(join(tmpdir(), "pal-agent-pg-"));
  const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
  chownSync(dir, uid, gid);
  // Traversable by the test's user, as the user's own cluster would be.
  chmodSync(dir, 0o755);
  const sockDir = join(dir, "sock");
  const markerDir = join(dir, "marker");
  for (const d of [sockDir, markerDir]) {
    mkdirSync(d);
    chownSync(d, uid, gid);
  }
  chmodSync(markerDir, 0o777);
  const asPostgres = (cmd: string, args: string[]): void => {
    const res = spawnSync(RUNUSER ?? "runuser", ["-u", "postgres", "--", join(PG_BIN, cmd), ...args], {
      encoding: "utf8",
      timeout: 60_000,
    });
    if (res.status !== 0) throw new Error(`${cmd} failed (${String(res.status ?? res.signal)}): ${res.stderr}`);
  };
  asPostgres("initdb", ["-D", join(dir, "data"), "-A", "trust", "-U", "postgres", "--no-sync"]);
  asPostgres("pg_ctl", [
    "-D",
    join(dir, "data"),
    "-l",
    join(dir, "log"),
    "-w",
    "-o",
    `-c listen_addresses='' -c unix_socket_directories=${sockDir} -c fsync=off`,
    "start",
  ]);
  return {
    socket: join(sockDir, ".s.PGSQL.5432"),
    markerDir,
    stop() {
      spawnSync(
        RUNUSER ?? "runuser",
        ["-u", "postgres", "--", join(PG_BIN, "pg_ctl"), "-D", join(dir, "data"), "-m", "immediate", "-w", "stop"],
        { timeout: 30_000 },
      );
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface SessionBus {
  socket: string;
  stop(): void;
}

export function dbusMissing(): string | undefined {
  return spawnSync("dbus-daemon", ["--version"]).status === 0
    ? undefined
    : "dbus-daemon is not installed: apt-get install dbus";
}

export function startSessionBus(): SessionBus {
  const dir = mkdtempSync(join(tmpdir(), "pal-agent-bus-"));
  const socket = join(dir, "bus");
  const out = execFileSync("dbus-daemon", ["--session", `--address=unix:path=${socket}`, "--fork", "--print-pid"], {
    encoding: "utf8",
    timeout: 20_000,
  });
  const pid = Number(out.trim().split("\n")[0]);
  return {
    socket,
    stop() {
      try {
        process.kill(pid, "SIGTERM");
      } catch {
        // already gone
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
