import { spawn } from "node:child_process";
import { CappedOutput, DEFAULT_MAX_OUTPUT_BYTES, LineSplitter } from "./output.js";

export const DEFAULT_TIMEOUT_MS = 60_000;
/** Time between SIGTERM and SIGKILL when a command is stopped. */
export const KILL_GRACE_MS = 1000;

export interface RunOptions {
  cwd: string;
  timeoutMs?: number;
  maxOutputBytes?: number;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
  /** Called with each complete output line (stdout and stderr, as they come). */
  onLine?: (line: string) => void;
}

export interface RunResult {
  /** Exit code, or null when the command was ended by a signal. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  outputBytes: number;
  truncated: boolean;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
}

/**
 * Runs `command` with /bin/sh in its own process group. On timeout or abort the whole group
 * gets SIGTERM, then SIGKILL after KILL_GRACE_MS, so children and grandchildren die too.
 * Processes the command left running in its group are killed when it exits.
 */
export function runCommand(command: string, options: RunOptions): Promise<RunResult> {
  const started = Date.now();
  const output = new CappedOutput(options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES);
  const splitters = [new LineSplitter(), new LineSplitter()];
  return new Promise<RunResult>((resolve, reject) => {
    const child = spawn("/bin/sh", ["-c", command], {
      cwd: options.cwd,
      env: options.env ?? process.env,
      detached: true, // a new process group, so the group can be signalled as one
      stdio: ["ignore", "pipe", "pipe"],
    });
    let timedOut = false;
    let cancelled = false;
    let killTimer: NodeJS.Timeout | undefined;
    const killGroup = (sig: NodeJS.Signals): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, sig);
      } catch {
        // ESRCH: the group is already gone
      }
    };
    const stop = (): void => {
      killGroup("SIGTERM");
      killTimer ??= setTimeout(() => killGroup("SIGKILL"), KILL_GRACE_MS);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const onAbort = (): void => {
      cancelled = true;
      stop();
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    if (options.signal?.aborted) onAbort();

    [child.stdout, child.stderr].forEach((stream, i) => {
      stream.on("data", (chunk: Buffer) => {
        output.push(chunk);
        if (options.onLine) for (const line of splitters[i]?.push(chunk) ?? []) options.onLine(line);
      });
    });
    // The shell exited: anything it left in its group would keep the pipes open; end it.
    child.on("exit", () => killGroup("SIGKILL"));
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      clearTimeout(killTimer);
      options.signal?.removeEventListener("abort", onAbort);
      if (options.onLine)
        for (const s of splitters) {
          const rest = s.flush();
          if (rest !== undefined) options.onLine(rest);
        }
      resolve({
        exitCode: code,
        signal,
        output: output.text(),
        outputBytes: output.totalBytes,
        truncated: output.truncated,
        timedOut,
        cancelled,
        durationMs: Date.now() - started,
      });
    });
  });
}
