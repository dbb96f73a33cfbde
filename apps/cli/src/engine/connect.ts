import { createClient } from "@palisade/protocol";
import type { Client } from "@palisade/protocol";
import { ClientService } from "@palisade/protocol/pipeline";
import type { StatusResponse } from "@palisade/protocol/pipeline";
import { CliError } from "../cli/errors.js";
import { findEngine } from "../engine-address.js";
import type { EngineEndpoint, PalisadePaths } from "../engine-address.js";
import { describeRpcError } from "./errors.js";
import { setupDrift } from "./setup-drift.js";
import { ENGINE_LOCKED_EXIT, engineLockHolder } from "./lock.js";
import { ENGINE_START_TIMEOUT_MS, killSpawnedEngine, logTail, startBackgroundEngine } from "./spawn.js";
import type { ConnectOptions, StartingEngine } from "./spawn.js";

export { ENGINE_START_TIMEOUT_MS, killSpawnedEngine, waitGone } from "./spawn.js";
export type { ConnectOptions, StartingEngine } from "./spawn.js";

const PROGRESS_EVERY_MS = 5_000;
const POLL_MS = 20;

export type EngineClient = Client<typeof ClientService>;

export interface EngineConnection {
  client: EngineClient;
  endpoint: EngineEndpoint;
  status: StatusResponse;
  /** True when this process started the Engine (so `--ephemeral` may stop it). */
  startedHere: boolean;
  close(): void;
}

export function openClient(endpoint: { address: string; bearerToken?: string }): EngineClient {
  return createClient(
    ClientService,
    endpoint.address,
    endpoint.bearerToken ? { bearerToken: endpoint.bearerToken } : {},
  );
}

async function probe(
  endpoint: EngineEndpoint,
  timeoutMs: number,
): Promise<{ client: EngineClient; status: StatusResponse }> {
  const client = openClient(endpoint);
  try {
    const status = await client.getStatus({}, { timeoutMs });
    return { client, status };
  } catch (err) {
    client.close();
    throw err;
  }
}

/**
 * Connects to the Engine of `paths.dataDir`; with `start`, starts one in the background and waits
 * until it answers GetStatus; with `starting`, waits for the one prestartEngine started. Errors say
 * what to do.
 */
export async function connectToEngine(paths: PalisadePaths, options: ConnectOptions = {}): Promise<EngineConnection> {
  if (options.starting) return waitForEngine(paths, options.starting, options);
  const cmd = (words: string): string => `'${options.hint ? options.hint(words) : `palisade ${words}`}'`;
  const existing = await findEngine(paths);
  if (existing) {
    // The setup comparison (it reads and parses the config) runs while GetStatus is in flight.
    const drifting = options.onSetupDrift
      ? setupDrift(paths, options.env ?? process.env, existing.info).catch(() => undefined)
      : undefined;
    try {
      const { client, status } = await probe(existing, 3_000);
      const drift = await drifting;
      if (drift) options.onSetupDrift?.(drift);
      return { client, endpoint: existing, status, startedHere: false, close: () => client.close() };
    } catch (err) {
      if (!options.start) {
        throw new CliError(
          `the Engine at ${existing.address} (pid ${existing.info.pid}) does not answer: ${describeRpcError(err)}`,
          {
            hint: `check ${paths.logFile}, or stop it with ${cmd("engine stop")} and start it again`,
          },
        );
      }
    }
  }
  if (!options.start) {
    throw new CliError(`no Engine is running for ${paths.dataDir}`, {
      hint: `start one with ${cmd("engine start")} (or just run ${cmd("chat")})`,
    });
  }
  return waitForEngine(paths, await startBackgroundEngine(paths, options), options);
}

/** How often a client whose Engine found another holding the data directory starts one anew. */
const RESTARTS_AFTER_LOCK = 3;

/**
 * Polls for the Engine `starting` until it answers GetStatus, exits, or the time is up. When it
 * exited because another Engine holds the data directory (several commands started at once), it
 * waits for that one instead; if that one is gone too, it starts one anew.
 */
async function waitForEngine(
  paths: PalisadePaths,
  first: StartingEngine,
  options: ConnectOptions,
): Promise<EngineConnection> {
  let starting = first;
  const started = first.startedAt;
  const timeoutMs = options.timeoutMs ?? ENGINE_START_TIMEOUT_MS;
  const deadline = started + timeoutMs;
  let nextProgress = started + PROGRESS_EVERY_MS;
  let restarts = 0;
  while (Date.now() < deadline) {
    const { pid } = starting;
    if (Date.now() >= nextProgress) {
      nextProgress += PROGRESS_EVERY_MS;
      options.onProgress?.(
        `starting the Engine… ${Math.round((Date.now() - started) / 1000)} s (waiting up to ${Math.round(timeoutMs / 1000)} s)`,
      );
    }
    if (options.signal?.aborted) {
      // Nobody is left to use it: an Engine started for this command must not outlive it.
      await killSpawnedEngine(pid);
      throw new CliError(`cancelled while waiting for the Engine to start; stopped it (pid ${pid})`);
    }
    const exitCode = starting.exitCode();
    const another = exitCode === ENGINE_LOCKED_EXIT;
    if (exitCode !== undefined && !another) {
      const tail = logTail(paths.logFile);
      throw new CliError(`the Engine exited during start-up (code ${String(exitCode)})`, {
        hint: tail ? `last lines of ${paths.logFile}:\n${tail}` : `see ${paths.logFile}`,
      });
    }
    const found = await findEngine(paths).catch(() => undefined);
    if (found && (found.info.pid === pid || another)) {
      try {
        const { client, status } = await probe(found, 2_000);
        return { client, endpoint: found, status, startedHere: found.info.pid === pid, close: () => client.close() };
      } catch {
        // Not serving yet.
      }
    } else if (another && !found && engineLockHolder(paths.dataDir) === undefined) {
      // the Engine that held the data directory is gone before it served: start one again
      if (++restarts > RESTARTS_AFTER_LOCK) break;
      starting = await startBackgroundEngine(paths, options);
      continue;
    }
    // engine.json appears when it listens; a short poll costs a file read.
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  const { pid } = starting;
  await killSpawnedEngine(pid);
  const tail = logTail(paths.logFile);
  throw new CliError(
    `the Engine did not become ready within ${Math.round(timeoutMs / 1000)} s; stopped it (pid ${pid})`,
    {
      hint: tail ? `last lines of ${paths.logFile}:\n${tail}` : `see ${paths.logFile}`,
    },
  );
}
