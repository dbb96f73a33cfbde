/**
 * How the CLI finds the Engine: a thin layer over `@palisade/config/discovery` (the one copy of
 * the discovery contract), adding only what the CLI needs on top of it:
 * - `resolvePaths` bundles the locations the CLI uses (data dir, config, socket, engine.json,
 *   engine.token, engine.log) and takes the home directory as a parameter (tests);
 * - `socketPathProblem` (a `--data-dir` too long for a unix socket);
 * - `findEngine` returns the address to dial next to the engine.json it came from.
 * Locations, engine.json, the client token and the stale-pid rule are the Engine's.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import {
  defaultSocketAddress,
  discoverEngine,
  engineInfoPath,
  ensureDataDir as ensureDir,
  isProcessAlive,
  readEngineInfo as readInfo,
  resolveConfigPath,
  resolveDataDir,
  tokenPath,
} from "@palisade/config/discovery";
import type { EngineInfo } from "@palisade/config/discovery";

export type { EngineInfo };
export { isProcessAlive };

export interface PathOverrides {
  dataDir?: string | undefined;
  configFile?: string | undefined;
}

export interface PalisadePaths {
  dataDir: string;
  configFile: string;
  socketPath: string;
  /** `unix:<dataDir>/engine.sock`: the default listen address. */
  socketAddress: string;
  infoFile: string;
  tokenFile: string;
  logFile: string;
}

export interface EngineEndpoint {
  address: string;
  /** The client token from engine.token (every ClientService call carries it); absent when unreadable. */
  bearerToken?: string;
  info: EngineInfo;
}

/** Longest unix socket path Linux accepts (sun_path is 108 bytes with the terminating NUL). */
export const MAX_SOCKET_PATH_BYTES = 107;

export function resolvePaths(
  overrides: PathOverrides = {},
  env: Record<string, string | undefined> = process.env,
  home: string = homedir(),
): PalisadePaths {
  // The Engine's resolvers fall back to os.homedir(); pin the XDG defaults to `home` instead.
  const withHome: NodeJS.ProcessEnv = {
    ...env,
    XDG_DATA_HOME: env.XDG_DATA_HOME || join(home, ".local", "share"),
    XDG_CONFIG_HOME: env.XDG_CONFIG_HOME || join(home, ".config"),
  };
  const dataDir = resolveDataDir({ ...(overrides.dataDir ? { dataDir: overrides.dataDir } : {}), env: withHome });
  const configFile = resolveConfigPath({
    ...(overrides.configFile ? { configPath: overrides.configFile } : {}),
    env: withHome,
  });
  const socketAddress = defaultSocketAddress(dataDir);
  return {
    dataDir,
    configFile,
    socketPath: socketAddress.slice("unix:".length),
    socketAddress,
    infoFile: engineInfoPath(dataDir),
    tokenFile: tokenPath(dataDir),
    logFile: join(dataDir, "engine.log"),
  };
}

/** Says why the default socket cannot be used (path too long), or undefined when it can. */
export function socketPathProblem(paths: PalisadePaths): string | undefined {
  const bytes = Buffer.byteLength(paths.socketPath);
  if (bytes <= MAX_SOCKET_PATH_BYTES) return undefined;
  return `the socket path ${paths.socketPath} is ${bytes} bytes, over the ${MAX_SOCKET_PATH_BYTES}-byte limit of unix sockets; use a shorter --data-dir`;
}

export async function ensureDataDir(paths: PalisadePaths): Promise<void> {
  await ensureDir(paths.dataDir);
}

/** The engine.json of the data dir (undefined when absent or unreadable); no liveness check. */
export async function readEngineInfo(paths: PalisadePaths): Promise<EngineInfo | undefined> {
  return readInfo(paths.dataDir);
}

/** The running Engine of this data dir, or undefined when there is none (or only a stale engine.json). */
export async function findEngine(paths: PalisadePaths): Promise<EngineEndpoint | undefined> {
  const found = await discoverEngine({ dataDir: paths.dataDir, env: {} });
  if (!found) return undefined;
  const { info, bearerToken } = found;
  return bearerToken === undefined ? { address: info.address, info } : { address: info.address, bearerToken, info };
}
