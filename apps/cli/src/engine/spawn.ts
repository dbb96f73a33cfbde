// Starting a background Engine, without the gRPC client: `palisade run` and `chat` start the Engine
// first and load their own code (the gRPC client, the chat's ink and React) while it starts.
import { spawn } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { CliError } from "../cli/errors.js";
import { ensureDataDir, findEngine, isProcessAlive, socketPathProblem } from "../engine-address.js";
import type { PalisadePaths } from "../engine-address.js";
import { ENGINE_LOCKED_EXIT, engineLockHolder } from "./lock.js";
import type { SetupDrift } from "./setup-drift.js";

export interface ConnectOptions {
  /** Start a background Engine when none runs (default false). */
  start?: boolean;
  /** An Engine this process already started (prestartEngine): wait for it instead of starting one. */
  starting?: StartingEngine;
  workspace?: string;
  /** Extra flags for `engine start --foreground`, e.g. `["--demo"]`. */
  engineArgs?: string[];
  env?: Record<string, string | undefined>;
  /** How long a started Engine may take to answer GetStatus (default ENGINE_START_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Progress while an Engine starts: "starting the Engine…", then every few seconds. */
  onProgress?: (line: string) => void;
  signal?: AbortSignal;
  /** Spells a `palisade …` command for a hint, with the options the user gave (default: as is). */
  hint?: (words: string) => string;
  /**
   * Called when the running Engine (not one started here) started with another setup than
   * `env` and the config file would give now (see setup-drift.ts).
   */
  onSetupDrift?: (drift: SetupDrift) => void;
}

/** Start-up takes ~12 s on a loaded machine (agent spawn, sandbox, store migrations). */
export const ENGINE_START_TIMEOUT_MS = 60_000;

/** A background Engine this process started. */
export interface StartingEngine {
  pid: number;
  /** Its exit code once it has exited (during start-up: a failure), else undefined. */
  exitCode(): number | null | undefined;
  startedAt: number;
}

/**
 * What a background Engine runs, with the arguments of `palisade … engine start --foreground`:
 * dist/engine-main.js (the Engine without the rest of the CLI), or PALISADE_CLI_MAIN (tests).
 */
export function cliEntryPoint(env: Record<string, string | undefined> = process.env): string {
  return env.PALISADE_CLI_MAIN ?? fileURLToPath(new URL("../engine-main.js", import.meta.url));
}

export function logTail(file: string, lines = 8): string {
  try {
    return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "";
  }
}

/** Whether process `pid` is gone within `ms`. */
export async function waitGone(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (isProcessAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  return !isProcessAlive(pid);
}

/** Ends an Engine process this client spawned: SIGTERM (it stops cleanly), SIGKILL if it lingers. */
export async function killSpawnedEngine(pid: number, graceMs = 15_000): Promise<void> {
  if (pid <= 0 || !isProcessAlive(pid)) return;
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    return;
  }
  if (await waitGone(pid, graceMs)) return;
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // gone meanwhile
  }
  await waitGone(pid, 2_000);
}

/** Starts `palisade engine start --foreground` detached, logging to engine.log; returns its pid. */
export function spawnBackgroundEngine(
  paths: PalisadePaths,
  options: ConnectOptions = {},
): { pid: number; exited: Promise<number | null> } {
  const log = openSync(paths.logFile, "a", 0o600);
  const args = [cliEntryPoint(options.env), "--data-dir", paths.dataDir, "--config", paths.configFile];
  if (options.workspace) args.push("--workspace", options.workspace);
  args.push("engine", "start", "--foreground", ...(options.engineArgs ?? []));
  const child = spawn(process.execPath, args, {
    detached: true,
    stdio: ["ignore", log, log],
    env: { ...process.env, ...options.env },
  });
  closeSync(log);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  child.unref();
  return { pid: child.pid ?? -1, exited };
}

/** Checks the socket path, makes the data directory and starts the Engine in the background. */
export async function startBackgroundEngine(
  paths: PalisadePaths,
  options: ConnectOptions = {},
): Promise<StartingEngine> {
  const socketProblem = socketPathProblem(paths);
  if (socketProblem) throw new CliError(socketProblem);
  await ensureDataDir(paths);
  // an Engine is starting for this data directory already (another command started it): wait for it
  if (engineLockHolder(paths.dataDir) !== undefined) {
    options.onProgress?.(`waiting for the Engine another command is starting for ${paths.dataDir}…`);
    return anotherStarting();
  }
  const { pid, exited } = spawnBackgroundEngine(paths, options);
  let code: number | null | undefined;
  void exited.then((c) => (code = c));
  options.onProgress?.(`starting the Engine… (pid ${pid}, log ${paths.logFile})`);
  return { pid, exitCode: () => code, startedAt: Date.now() };
}

/**
 * With `start`, starts the Engine in the background when none runs, before the caller loads the
 * rest of its code, so both start side by side; pass the result to connectToEngine as `starting`.
 * An Engine that runs but does not answer is left to connectToEngine (it says so, or starts another).
 */
export async function prestartEngine(
  paths: PalisadePaths,
  options: ConnectOptions,
): Promise<StartingEngine | undefined> {
  if (!options.start || (await findEngine(paths))) return undefined;
  return startBackgroundEngine(paths, options);
}

/** Stands for an Engine another command is starting: connectToEngine waits for that one. */
function anotherStarting(): StartingEngine {
  return { pid: -1, exitCode: () => ENGINE_LOCKED_EXIT, startedAt: Date.now() };
}
