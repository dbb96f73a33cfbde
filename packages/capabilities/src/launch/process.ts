import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { createWriteStream, mkdirSync } from "node:fs";
import type { WriteStream } from "node:fs";
import { createServer } from "node:net";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

/** Asks the OS for a free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

const PASS_THROUGH = ["PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR", "SYSTEMROOT"];

/** Environment variable naming the unix socket a `palisade` capability listens on (as the SDK reads it). */
export const SOCKET_ENV = "PALISADE_CAPABILITY_SOCKET";

/**
 * How a launched process is reached. `socket`: it listens on the unix socket and requires the
 * secret, which it reads from the first line of stdin (never the environment, which other
 * processes of the user can read in /proc). `port`: a Selu-convention server on PORT, run under
 * the guard so it still dies with the Engine.
 */
export type LaunchChannel = { kind: "socket"; socketPath: string; secret: string } | { kind: "port"; port: number };

/** Only a few harmless variables of the Engine's environment reach a capability process. */
export function scrubbedEnv(
  parent: NodeJS.ProcessEnv,
  extra: Record<string, string>,
  channel: LaunchChannel | number,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of PASS_THROUGH) {
    const v = parent[k];
    if (v !== undefined) env[k] = v;
  }
  const ch: LaunchChannel = typeof channel === "number" ? { kind: "port", port: channel } : channel;
  // The channel's variables win over the config's, and a secret never appears here.
  const merged: Record<string, string> = { ...env, ...extra };
  delete merged[SOCKET_ENV];
  delete merged.PORT;
  if (ch.kind === "socket") merged[SOCKET_ENV] = ch.socketPath;
  else merged.PORT = String(ch.port);
  return merged;
}

/** The guard that runs Selu-convention servers (compiled; also found when this module runs from src/). */
export const GUARD_SCRIPT = fileURLToPath(new URL("../../dist/launch/guard.js", import.meta.url));

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  error?: string;
}

export interface ProcessSpec {
  command: string[];
  cwd?: string;
  env?: Record<string, string>;
  logFile: string;
  redact: (text: string) => string;
}

/**
 * One capability process, output appended (redacted) to a log file. It holds the write end of
 * the process's stdin for its whole life: when the Engine dies, even by SIGKILL, the pipe ends
 * and the capability (or its guard) exits.
 */
export class CapabilityProcess {
  readonly exited: Promise<ExitInfo>;
  private readonly child: ChildProcess;
  private readonly log: WriteStream;
  private readonly tail: string[] = [];
  private stopping = false;

  private constructor(child: ChildProcess, log: WriteStream, spec: ProcessSpec) {
    this.child = child;
    this.log = log;
    // A log that cannot be written (disk full, removed directory) must not take the Engine down.
    log.on("error", () => undefined);
    const onData = (buf: Buffer): void => {
      const text = spec.redact(buf.toString("utf8"));
      if (!log.writableEnded) log.write(text);
      for (const line of text.split("\n")) if (line.trim() !== "") this.tail.push(line);
      if (this.tail.length > 50) this.tail.splice(0, this.tail.length - 50);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    this.exited = new Promise((resolve) => {
      let spawnError: string | undefined;
      child.once("error", (err) => {
        spawnError = err.message;
        // A spawn failure emits no "exit": resolve here.
        if (child.pid === undefined) resolve({ code: null, signal: null, error: err.message });
      });
      child.once("exit", (code, signal) => resolve({ code, signal, ...(spawnError ? { error: spawnError } : {}) }));
    });
    // Output can still arrive after "exit" (a child of the capability holding its stdout, or
    // buffered pipes): the log ends once every stdio stream has closed, or at once if the
    // process never started.
    const stdioClosed = new Promise<void>((resolve) => {
      child.once("close", () => resolve());
      child.once("error", () => {
        if (child.pid === undefined) resolve();
      });
    });
    void Promise.all([this.exited, stdioClosed]).then(([info]) => {
      if (log.writableEnded) return;
      log.write(`\n[palisade] process exited (${describeExit(info)})\n`);
      log.end();
    });
  }

  static start(spec: ProcessSpec, channel: LaunchChannel): CapabilityProcess {
    mkdirSync(dirname(spec.logFile), { recursive: true });
    const log = createWriteStream(spec.logFile, { flags: "a", mode: 0o600 });
    const how =
      channel.kind === "socket"
        ? `on unix socket ${channel.socketPath} with a launch secret`
        : `with PORT=${channel.port} (Selu convention, unauthenticated loopback TCP)`;
    log.write(`[palisade] ${new Date().toISOString()} starting ${JSON.stringify(spec.command)} ${how}\n`);
    const argv = channel.kind === "socket" ? spec.command : [process.execPath, GUARD_SCRIPT, "--", ...spec.command];
    const [cmd = "", ...args] = argv;
    const child = spawn(cmd, args, {
      cwd: spec.cwd,
      env: scrubbedEnv(process.env, spec.env ?? {}, channel),
      stdio: ["pipe", "pipe", "pipe"],
      // Own process group, so stop() also ends whatever the capability spawned.
      detached: true,
    });
    // A process that exits early closes its end: writing then fails with EPIPE, which is no error here.
    child.stdin?.on("error", () => undefined);
    if (channel.kind === "socket") child.stdin?.write(`${channel.secret}\n`);
    return new CapabilityProcess(child, log, spec);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get isStopping(): boolean {
    return this.stopping;
  }

  /** True once the process has exited (or never started). */
  get hasExited(): boolean {
    return this.child.exitCode !== null || this.child.signalCode !== null || this.child.pid === undefined;
  }

  /** SIGKILL to the whole process group at once: for a process that stopped answering. Its exit is not a requested stop. */
  kill(): void {
    if (!this.hasExited) this.signal("SIGKILL");
  }

  lastLines(n = 20): string[] {
    return this.tail.slice(-n);
  }

  /** SIGTERM to the process group, SIGKILL after `graceMs`. */
  async stop(graceMs = 3000): Promise<void> {
    this.stopping = true;
    if (this.child.exitCode !== null || this.child.signalCode !== null || this.child.pid === undefined) return;
    this.signal("SIGTERM");
    const timer = setTimeout(() => this.signal("SIGKILL"), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  private signal(sig: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, sig);
    } catch {
      this.child.kill(sig);
    }
  }
}

export function describeExit(info: ExitInfo): string {
  if (info.error) return `could not start: ${info.error}`;
  return info.signal ? `killed by ${info.signal}` : `exit code ${String(info.code)}`;
}
