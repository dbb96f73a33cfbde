import { spawn } from "node:child_process";
import { openSync, closeSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createClient } from "@palisade/protocol";
import type { Client } from "@palisade/protocol";
import { ClientService } from "@palisade/protocol/pipeline";
import type { StatusResponse } from "@palisade/protocol/pipeline";
import { CliError } from "../cli/errors.js";
import { ensureDataDir, findEngine, isProcessAlive, socketPathProblem } from "../engine-address.js";
import type { EngineEndpoint, PalisadePaths } from "../engine-address.js";
import { describeRpcError } from "./errors.js";
import { setupDrift } from "./setup-drift.js";
import type { SetupDrift } from "./setup-drift.js";

export type EngineClient = Client<typeof ClientService>;

export interface EngineConnection {
  client: EngineClient;
  endpoint: EngineEndpoint;
  status: StatusResponse;
  /** True when this process started the Engine (so `--ephemeral` may stop it). */
  startedHere: boolean;
  close(): void;
}

export interface ConnectOptions {
  /** Start a background Engine when none runs (default false). */
  start?: boolean;
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
const PROGRESS_EVERY_MS = 5_000;

export function openClient(endpoint: { address: string; bearerToken?: string }): EngineClient {
  return createClient(ClientService, endpoint.address, endpoint.bearerToken ? { bearerToken: endpoint.bearerToken } : {});
}

/** The compiled `palisade` entry point (dist/main.js), used to start a background Engine. */
export function cliEntryPoint(env: Record<string, string | undefined> = process.env): string {
  return env.PALISADE_CLI_MAIN ?? fileURLToPath(new URL("../main.js", import.meta.url));
}

async function probe(endpoint: EngineEndpoint, timeoutMs: number): Promise<{ client: EngineClient; status: StatusResponse }> {
  const client = openClient(endpoint);
  try {
    const status = await client.getStatus({}, { timeoutMs });
    return { client, status };
  } catch (err) {
    client.close();
    throw err;
  }
}

function logTail(file: string, lines = 8): string {
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
export function spawnBackgroundEngine(paths: PalisadePaths, options: ConnectOptions = {}): { pid: number; exited: Promise<number | null> } {
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

/**
 * Connects to the Engine of `paths.dataDir`; with `start`, starts one in the background and waits
 * until it answers GetStatus. Errors say what to do.
 */
export async function connectToEngine(paths: PalisadePaths, options: ConnectOptions = {}): Promise<EngineConnection> {
  const cmd = (words: string): string => `'${options.hint ? options.hint(words) : `palisade ${words}`}'`;
  const timeoutMs = options.timeoutMs ?? ENGINE_START_TIMEOUT_MS;
  const existing = await findEngine(paths);
  if (existing) {
    try {
      const { client, status } = await probe(existing, 3_000);
      if (options.onSetupDrift) {
        const drift = await setupDrift(paths, options.env ?? process.env, existing.info).catch(() => undefined);
        if (drift) options.onSetupDrift(drift);
      }
      return { client, endpoint: existing, status, startedHere: false, close: () => client.close() };
    } catch (err) {
      if (!options.start) {
        throw new CliError(`the Engine at ${existing.address} (pid ${existing.info.pid}) does not answer: ${describeRpcError(err)}`, {
          hint: `check ${paths.logFile}, or stop it with ${cmd("engine stop")} and start it again`,
        });
      }
    }
  }
  if (!options.start) {
    throw new CliError(`no Engine is running for ${paths.dataDir}`, { hint: `start one with ${cmd("engine start")} (or just run ${cmd("chat")})` });
  }
  const socketProblem = socketPathProblem(paths);
  if (socketProblem) throw new CliError(socketProblem);
  await ensureDataDir(paths);
  const { pid, exited } = spawnBackgroundEngine(paths, options);
  let exitCode: number | null | undefined;
  void exited.then((c) => (exitCode = c));
  const started = Date.now();
  const deadline = started + timeoutMs;
  let nextProgress = started + PROGRESS_EVERY_MS;
  options.onProgress?.(`starting the Engine… (pid ${pid}, log ${paths.logFile})`);
  while (Date.now() < deadline) {
    if (Date.now() >= nextProgress) {
      nextProgress += PROGRESS_EVERY_MS;
      options.onProgress?.(`starting the Engine… ${Math.round((Date.now() - started) / 1000)} s (waiting up to ${Math.round(timeoutMs / 1000)} s)`);
    }
    if (options.signal?.aborted) {
      // Nobody is left to use it: an Engine started for this command must not outlive it.
      await killSpawnedEngine(pid);
      throw new CliError(`cancelled while waiting for the Engine to start; stopped it (pid ${pid})`);
    }
    if (exitCode !== undefined) {
      const tail = logTail(paths.logFile);
      throw new CliError(`the Engine exited during start-up (code ${String(exitCode)})`, {
        hint: tail ? `last lines of ${paths.logFile}:\n${tail}` : `see ${paths.logFile}`,
      });
    }
    const found = await findEngine(paths).catch(() => undefined);
    if (found && found.info.pid === pid) {
      try {
        const { client, status } = await probe(found, 2_000);
        return { client, endpoint: found, status, startedHere: true, close: () => client.close() };
      } catch {
        // Not serving yet.
      }
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await killSpawnedEngine(pid);
  const tail = logTail(paths.logFile);
  throw new CliError(`the Engine did not become ready within ${Math.round(timeoutMs / 1000)} s; stopped it (pid ${pid})`, {
    hint: tail ? `last lines of ${paths.logFile}:\n${tail}` : `see ${paths.logFile}`,
  });
}
