import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { createWriteStream, mkdirSync } from "node:fs";
import type { WriteStream } from "node:fs";
import { createServer } from "node:net";
import { dirname } from "node:path";

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

/** Only a few harmless variables of the Engine's environment reach a capability process. */
export function scrubbedEnv(parent: NodeJS.ProcessEnv, extra: Record<string, string>, port: number): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of PASS_THROUGH) {
    const v = parent[k];
    if (v !== undefined) env[k] = v;
  }
  return { ...env, ...extra, PORT: String(port) };
}

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

/** One capability process: spawned with PORT set, output appended (redacted) to a log file. */
export class CapabilityProcess {
  readonly exited: Promise<ExitInfo>;
  private readonly child: ChildProcess;
  private readonly log: WriteStream;
  private readonly tail: string[] = [];
  private stopping = false;

  private constructor(child: ChildProcess, log: WriteStream, spec: ProcessSpec) {
    this.child = child;
    this.log = log;
    const onData = (buf: Buffer): void => {
      const text = spec.redact(buf.toString("utf8"));
      log.write(text);
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
    void this.exited.then((info) => {
      log.write(`\n[palisade] process exited (${describeExit(info)})\n`);
      log.end();
    });
  }

  static start(spec: ProcessSpec, port: number): CapabilityProcess {
    mkdirSync(dirname(spec.logFile), { recursive: true });
    const log = createWriteStream(spec.logFile, { flags: "a", mode: 0o600 });
    log.write(`[palisade] ${new Date().toISOString()} starting ${JSON.stringify(spec.command)} with PORT=${port}\n`);
    const [cmd = "", ...args] = spec.command;
    const child = spawn(cmd, args, {
      cwd: spec.cwd,
      env: scrubbedEnv(process.env, spec.env ?? {}, port),
      stdio: ["ignore", "pipe", "pipe"],
      // Own process group, so stop() also ends whatever the capability spawned.
      detached: true,
    });
    return new CapabilityProcess(child, log, spec);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get isStopping(): boolean {
    return this.stopping;
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
