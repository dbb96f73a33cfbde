/**
 * How clients find the Engine (the discovery contract shared by the CLI and the Engine).
 *
 * - Data dir: `--data-dir`, else `$PALISADE_DATA_DIR`, else `$XDG_DATA_HOME/palisade`,
 *   else `~/.local/share/palisade`. Created 0700.
 * - Config: `--config`, else `$PALISADE_CONFIG`, else `$XDG_CONFIG_HOME/palisade/config.yaml`,
 *   else `~/.config/palisade/config.yaml`.
 * - The Engine listens on `unix:<dataDir>/engine.sock` (0600) by default; once it serves, it
 *   writes `<dataDir>/engine.json` = {pid, address, startedAt, version} (0600, atomically)
 *   and removes it on clean exit. In TCP mode (`address` = `127.0.0.1:<port>`) it also writes
 *   the bearer token to `<dataDir>/engine.token` (0600); clients send `authorization: Bearer`.
 * - A background Engine started by a client logs to `<dataDir>/engine.log`.
 * - engine.json whose pid is not alive is stale: clients ignore it, the next Engine replaces it.
 */
import { randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

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

export interface EngineInfo {
  pid: number;
  /** `unix:/abs/path` or `host:port`. */
  address: string;
  /** ISO 8601. */
  startedAt: string;
  version: string;
}

export interface EngineEndpoint {
  address: string;
  /** Present in TCP mode. */
  bearerToken?: string;
  info: EngineInfo;
}

/** Longest unix socket path Linux accepts (sun_path is 108 bytes with the terminating NUL). */
export const MAX_SOCKET_PATH_BYTES = 107;

export class EngineInfoError extends Error {
  readonly file: string;
  constructor(file: string, message: string, options?: { cause?: unknown }) {
    super(`${file}: ${message}`, options);
    this.name = new.target.name;
    this.file = file;
  }
}

export function resolvePaths(
  overrides: PathOverrides = {},
  env: Record<string, string | undefined> = process.env,
  home: string = homedir(),
): PalisadePaths {
  const dataHome = env.XDG_DATA_HOME || join(home, ".local", "share");
  const configHome = env.XDG_CONFIG_HOME || join(home, ".config");
  const dataDir = resolve(overrides.dataDir || env.PALISADE_DATA_DIR || join(dataHome, "palisade"));
  const configFile = resolve(overrides.configFile || env.PALISADE_CONFIG || join(configHome, "palisade", "config.yaml"));
  const socketPath = join(dataDir, "engine.sock");
  return {
    dataDir,
    configFile,
    socketPath,
    socketAddress: `unix:${socketPath}`,
    infoFile: join(dataDir, "engine.json"),
    tokenFile: join(dataDir, "engine.token"),
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
  await mkdir(paths.dataDir, { recursive: true, mode: 0o700 });
}

export function parseEngineInfo(text: string, file = "engine.json"): EngineInfo {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new EngineInfoError(file, "is not valid JSON; delete it and start the Engine again", { cause: err });
  }
  const o = raw as Partial<Record<keyof EngineInfo, unknown>>;
  const problems: string[] = [];
  if (typeof o.pid !== "number" || !Number.isInteger(o.pid) || o.pid <= 0) problems.push("pid must be a positive integer");
  if (typeof o.address !== "string" || o.address === "") problems.push("address must be a non-empty string");
  if (typeof o.startedAt !== "string") problems.push("startedAt must be an ISO date string");
  if (typeof o.version !== "string") problems.push("version must be a string");
  if (problems.length) throw new EngineInfoError(file, problems.join("; "));
  return { pid: o.pid as number, address: o.address as string, startedAt: o.startedAt as string, version: o.version as string };
}

async function readOptional(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

export async function readEngineInfo(paths: PalisadePaths): Promise<EngineInfo | undefined> {
  const text = await readOptional(paths.infoFile);
  return text === undefined ? undefined : parseEngineInfo(text, paths.infoFile);
}

async function writePrivate(file: string, content: string): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, content, { mode: 0o600 });
  await chmod(tmp, 0o600);
  await rename(tmp, file);
}

/** Called by the Engine once it serves. */
export async function writeEngineInfo(paths: PalisadePaths, info: EngineInfo): Promise<void> {
  await ensureDataDir(paths);
  await writePrivate(paths.infoFile, `${JSON.stringify(info, null, 2)}\n`);
}

/** Called by the Engine on exit: removes engine.json (and the token) only if they are its own. */
export async function removeEngineInfo(paths: PalisadePaths, pid: number = process.pid): Promise<void> {
  const current = await readEngineInfo(paths).catch(() => undefined);
  if (current && current.pid !== pid) return;
  await rm(paths.infoFile, { force: true });
  await rm(paths.tokenFile, { force: true });
}

export function generateEngineToken(): string {
  return randomBytes(32).toString("base64url");
}

export async function writeEngineToken(paths: PalisadePaths, token: string): Promise<void> {
  await ensureDataDir(paths);
  await writePrivate(paths.tokenFile, `${token}\n`);
}

export async function readEngineToken(paths: PalisadePaths): Promise<string | undefined> {
  return (await readOptional(paths.tokenFile))?.trim() || undefined;
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The running Engine of this data dir, or undefined when there is none (or only a stale engine.json). */
export async function findEngine(paths: PalisadePaths): Promise<EngineEndpoint | undefined> {
  const info = await readEngineInfo(paths);
  if (!info || !isProcessAlive(info.pid)) return undefined;
  if (info.address.startsWith("unix:")) return { address: info.address, info };
  const bearerToken = await readEngineToken(paths);
  return bearerToken === undefined ? { address: info.address, info } : { address: info.address, bearerToken, info };
}
