// Two real local users, `palisade-owner` and `palisade-attacker`, running the real CLI
// (bin/palisade, the built dist) through setpriv, each with a HOME of its own in the test's
// temporary directory. Needs root (to create the users and to switch to them).
import { execFileSync, spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const PALISADE = join(ROOT, "bin", "palisade");
export const FIXTURES = join(ROOT, "test", "uid", "fixtures");

function canSwitchUsers(): string | undefined {
  if (process.getuid?.() !== 0)
    return "needs root: it creates two local users and runs the CLI as each (CI runs as root)";
  for (const tool of ["useradd", "setpriv"])
    try {
      execFileSync("sh", ["-c", `command -v ${tool}`], { stdio: "ignore" });
    } catch {
      return `needs ${tool} (util-linux / passwd) to create and switch to the test users`;
    }
  return undefined;
}

/** Why the folder is skipped here, or undefined when it runs. */
export const SKIP_REASON = canSwitchUsers();

export interface User {
  name: string;
  uid: number;
  gid: number;
  /** The HOME it runs with: its own, 0700, in the test's temporary directory. */
  home: string;
}

/** The user `name`, created (useradd -m) when missing. */
function ensureUser(name: string): { uid: number; gid: number } {
  try {
    execFileSync("id", ["-u", name], { stdio: "ignore" });
  } catch {
    try {
      execFileSync("useradd", ["-m", "-s", "/bin/sh", name], { stdio: "pipe" });
    } catch (err) {
      // another run created it meanwhile
      execFileSync("id", ["-u", name], { stdio: "ignore" });
      void err;
    }
  }
  const uid = Number(execFileSync("id", ["-u", name], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", name], { encoding: "utf8" }).trim());
  return { uid, gid };
}

export interface Users {
  /** The test's directory: root's, 0755 (others may enter, not write). */
  base: string;
  /** A directory like /tmp inside it: root's, 1777 (anyone may add entries, only theirs). */
  shared: string;
  owner: User;
  attacker: User;
  cleanup(): void;
}

export function setUpUsers(): Users {
  const base = mkdtempSync(join(tmpdir(), "palisade-uid-"));
  chmodSync(base, 0o755);
  const shared = join(base, "tmp");
  mkdirSync(shared);
  chmodSync(shared, 0o1777);
  const make = (name: string): User => {
    const { uid, gid } = ensureUser(name);
    const home = join(base, name);
    mkdirSync(home, { mode: 0o700 });
    chownSync(home, uid, gid);
    return { name, uid, gid, home };
  };
  const owner = make("palisade-owner");
  const attacker = make("palisade-attacker");
  return { base, shared, owner, attacker, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

/** The environment a user's command starts with: nothing of the test process's. */
function userEnv(user: User, extra: Record<string, string> = {}): Record<string, string> {
  return { HOME: user.home, USER: user.name, LOGNAME: user.name, PATH: "/usr/bin:/bin", LANG: "C.UTF-8", ...extra };
}

function asUser(user: User, argv: string[]): string[] {
  return [`--reuid=${user.uid}`, `--regid=${user.gid}`, "--init-groups", "--", ...argv];
}

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `argv` as `user` in its home and waits for it to exit. */
export function runAs(
  user: User,
  argv: string[],
  options: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Ran> {
  return new Promise((resolveRun, reject) => {
    const child = spawn("setpriv", asUser(user, argv), {
      cwd: user.home,
      env: userEnv(user, options.env),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolveRun({ code, stdout, stderr });
    });
  });
}

/** `palisade ARGS` as `user`. */
export function palisade(user: User, args: string[], env: Record<string, string> = {}): Promise<Ran> {
  return runAs(user, [PALISADE, ...args], { env });
}

/** A shell command as `user` (its umask, its files); throws when it fails. */
export async function shAs(user: User, script: string): Promise<string> {
  const r = await runAs(user, ["sh", "-c", script]);
  if (r.code !== 0) throw new Error(`as ${user.name}: ${script}\nexit ${String(r.code)}: ${r.stderr}`);
  return r.stdout;
}

/** Writes a file for `user` (created by root, then given to them). */
export function writeAs(user: User, file: string, content: string, mode: number): void {
  writeFileSync(file, content, { mode });
  chmodSync(file, mode);
  chownSync(file, user.uid, user.gid);
}

/** The node the build recorded (apps/cli/dist/built-with-node), for the attacker's own scripts. */
export function nodeBin(): string {
  const out = execFileSync(join(ROOT, "scripts", "node-bin.sh"), { encoding: "utf8" }).trim();
  return join(out, "node");
}

export interface Listener {
  port: number;
  pid: number;
  /**
   * Every connection accepted so far, with the first bytes it sent. A connection of the test's
   * own is made and awaited first: connections are accepted in order, so any made before this
   * call are in the list.
   */
  connections(): Promise<string[]>;
  stop(): void;
}

/** The attacker's server (fixtures/listener.mjs), run as `user`. */
export async function listenAs(user: User): Promise<Listener> {
  const child: ChildProcess = spawn("setpriv", asUser(user, [nodeBin(), join(FIXTURES, "listener.mjs")]), {
    cwd: user.home,
    env: userEnv(user),
    stdio: ["pipe", "pipe", "inherit"],
  });
  const seen: string[] = [];
  const waiters: Array<() => void> = [];
  let buf = "";
  const ready = new Promise<{ port: number; pid: number }>((resolveReady, reject) => {
    child.on("error", reject);
    child.on("exit", (code) => reject(new Error(`the attacker's listener exited (${String(code)})`)));
    child.stdout?.on("data", (d: Buffer) => {
      buf += d.toString();
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = JSON.parse(buf.slice(0, nl)) as { port?: number; pid?: number; data?: string };
        buf = buf.slice(nl + 1);
        if (line.port !== undefined) resolveReady({ port: line.port, pid: line.pid ?? 0 });
        else {
          seen.push(line.data ?? "");
          waiters.splice(0).forEach((w) => w());
        }
      }
    });
  });
  const { port, pid } = await ready;
  return {
    port,
    pid,
    connections: async () => {
      const marker = `SENTINEL-${Math.random().toString(36).slice(2)}`;
      const arrived = (): boolean => seen.some((s) => s.includes(marker));
      const done = new Promise<void>((res) => {
        const check = (): void => (arrived() ? res() : void waiters.push(check));
        check();
      });
      const s = connect(port, "127.0.0.1", () => s.write(marker));
      s.on("error", () => undefined);
      await done;
      s.destroy();
      return seen.filter((x) => !x.includes("SENTINEL-"));
    },
    stop: () => child.stdin?.end(),
  };
}

/** A TCP port free right now on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.on("error", rej);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => res(port));
    });
  });
}

/** The attacker's client (fixtures/client.mjs): each sampled RPC's outcome (`OK` or a code name). */
export async function attackerCalls(user: User, address: string, token?: string): Promise<Record<string, string>> {
  const r = await runAs(user, [nodeBin(), join(FIXTURES, "client.mjs"), address, ...(token ? [token] : [])]);
  if (r.code !== 0) throw new Error(`the attacker's client failed (${String(r.code)}): ${r.stderr}`);
  return JSON.parse(r.stdout.trim()) as Record<string, string>;
}
