// How clients find a running Engine: data/config locations, engine.json, the client token.
// Imported by the CLI through `@palisade/config/discovery`; keep it free of engine internals.
import { randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { assertPrivatePath } from "./private-path.js";

export { engineLockHolder, LOCK_FILE, tryLockEngine } from "./engine-lock.js";
export type { EngineLock } from "./engine-lock.js";
export { assertPrivatePath, PrivatePathError, privatePathProblem } from "./private-path.js";
export type { PrivatePathOptions } from "./private-path.js";

export const ENGINE_FILE = "engine.json";
export const SOCKET_FILE = "engine.sock";
export const TOKEN_FILE = "engine.token";

/** What a running Engine writes to `<dataDir>/engine.json` (0600). */
export interface EngineInfo {
  pid: number;
  /** `unix:/abs/path/engine.sock` or `127.0.0.1:<port>`. */
  address: string;
  /** ISO 8601. */
  startedAt: string;
  version: string;
  /** What it started with; absent in files written by older Engines. */
  setup?: EngineSetup;
}

/**
 * The configuration an Engine started with, recorded so a client can tell when its own
 * environment or config would start a different one. Never a secret: the API key only as an
 * HMAC under a salt made at start.
 */
export interface EngineSetup {
  /** The config file it read (a missing file means the built-in defaults). */
  configFile: string;
  /** sha256 (hex) of the file's content; "" when it did not exist. */
  configSha256: string;
  model: string;
  /** "" when none. */
  baseUrl: string;
  /** HMAC-SHA256 (hex) of the API key under `keySalt`; "" when there was no key. */
  apiKeyHmac: string;
  keySalt: string;
  dataDir: string;
  /** Started with the scripted demo model: its model comes from the demo, not the environment. */
  demo: boolean;
}

export interface PathOptions {
  dataDir?: string;
  configPath?: string;
  env?: NodeJS.ProcessEnv;
}

/** `--data-dir`, else `PALISADE_DATA_DIR`, else `$XDG_DATA_HOME/palisade`, else `~/.local/share/palisade`. */
export function resolveDataDir(options: PathOptions = {}): string {
  const env = options.env ?? process.env;
  if (options.dataDir) return resolve(options.dataDir);
  if (env.PALISADE_DATA_DIR) return resolve(env.PALISADE_DATA_DIR);
  const base = env.XDG_DATA_HOME || join(homedir(), ".local", "share");
  return join(base, "palisade");
}

/** `--config`, else `PALISADE_CONFIG`, else `$XDG_CONFIG_HOME/palisade/config.yaml`, else `~/.config/palisade/config.yaml`. */
export function resolveConfigPath(options: PathOptions = {}): string {
  const env = options.env ?? process.env;
  if (options.configPath) return resolve(options.configPath);
  if (env.PALISADE_CONFIG) return resolve(env.PALISADE_CONFIG);
  const base = env.XDG_CONFIG_HOME || join(homedir(), ".config");
  return join(base, "palisade", "config.yaml");
}

/**
 * The audit chain's HMAC key file: beside the configuration file, outside the data directory.
 * The Engine keys the chain with it and `palisade audit verify` checks with it.
 */
export function auditKeyPath(configFile: string): string {
  return join(dirname(configFile), "audit.key");
}

export function defaultSocketAddress(dataDir: string): string {
  return `unix:${join(dataDir, SOCKET_FILE)}`;
}

export function engineInfoPath(dataDir: string): string {
  return join(dataDir, ENGINE_FILE);
}

export function tokenPath(dataDir: string): string {
  return join(dataDir, TOKEN_FILE);
}

const DATA_DIR = "the data directory";

/**
 * Creates the data dir (0700). Refused (PrivatePathError, saying what to fix) unless it and every
 * directory above it are provably the user's (private-path.ts): the dir must be the user's own and
 * writable by no one else. An existing one of this user that others could only read or enter is
 * made 0700 again (its socket relies on it); one that others could write is refused, as what they
 * may have put in it (a token they know, an engine.json of theirs) cannot be told apart.
 */
export async function ensureDataDir(dataDir: string): Promise<void> {
  assertPrivatePath(dataDir, { what: DATA_DIR, allowMissing: true });
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  // checked again once it exists: made by someone else meanwhile is refused here
  assertPrivatePath(dataDir, { what: DATA_DIR, own: true });
  const st = await stat(dataDir);
  if ((st.mode & 0o077) !== 0) await chmod(dataDir, 0o700);
}

/** Refuses a data dir another user controls before anything in it is believed (see ensureDataDir). */
function checkDataDirForReading(dataDir: string): void {
  assertPrivatePath(dataDir, { what: DATA_DIR, own: true, allowMissing: true });
}

async function writePrivate(path: string, content: string): Promise<void> {
  await writeFile(path, content, { mode: 0o600 });
  await chmod(path, 0o600); // an existing file keeps its old mode on writeFile
}

export async function writeEngineInfo(dataDir: string, info: EngineInfo): Promise<void> {
  await writePrivate(engineInfoPath(dataDir), JSON.stringify(info, null, 2) + "\n");
}

/** The engine.json of `dataDir`, or undefined when absent or unreadable. Does not check liveness. */
export async function readEngineInfo(dataDir: string): Promise<EngineInfo | undefined> {
  try {
    const parsed = JSON.parse(await readFile(engineInfoPath(dataDir), "utf8")) as Partial<EngineInfo>;
    if (typeof parsed.pid !== "number" || typeof parsed.address !== "string") return undefined;
    const setup = setupOf(parsed.setup);
    return {
      pid: parsed.pid,
      address: parsed.address,
      startedAt: String(parsed.startedAt ?? ""),
      version: String(parsed.version ?? ""),
      ...(setup ? { setup } : {}),
    };
  } catch {
    return undefined;
  }
}

function setupOf(value: unknown): EngineSetup | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const v = value as Record<string, unknown>;
  const strings = ["configFile", "configSha256", "model", "baseUrl", "apiKeyHmac", "keySalt", "dataDir"] as const;
  if (strings.some((k) => typeof v[k] !== "string")) return undefined;
  const s = (k: (typeof strings)[number]): string => v[k] as string;
  return {
    configFile: s("configFile"),
    configSha256: s("configSha256"),
    model: s("model"),
    baseUrl: s("baseUrl"),
    apiKeyHmac: s("apiKeyHmac"),
    keySalt: s("keySalt"),
    dataDir: s("dataDir"),
    demo: v.demo === true,
  };
}

export async function removeEngineInfo(dataDir: string, pid = process.pid): Promise<void> {
  const info = await readEngineInfo(dataDir);
  if (info && info.pid !== pid) return; // another Engine owns it now
  await rm(engineInfoPath(dataDir), { force: true });
}

/**
 * Creates (or reuses) the client token, 0600 in the data dir: every ClientService call, over the
 * unix socket as over TCP, carries it as `authorization: Bearer <token>`.
 */
export async function ensureToken(dataDir: string): Promise<string> {
  const existing = await readToken(dataDir);
  if (existing) return existing;
  const token = randomBytes(32).toString("base64url");
  await writePrivate(tokenPath(dataDir), token + "\n");
  return token;
}

export async function readToken(dataDir: string): Promise<string | undefined> {
  try {
    const token = (await readFile(tokenPath(dataDir), "utf8")).trim();
    return token || undefined;
  } catch {
    return undefined;
  }
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

export interface Discovered {
  info: EngineInfo;
  /** The client token (absent when unreadable): pass as `bearerToken` to `createClient`. */
  bearerToken?: string;
}

/**
 * The running Engine of `dataDir`: engine.json exists and its pid is alive.
 * Stale files (dead pid) are reported as not running. Callers still confirm with GetStatus.
 * Throws PrivatePathError when the data dir is not provably the user's (see ensureDataDir).
 */
export async function discoverEngine(options: PathOptions = {}): Promise<Discovered | undefined> {
  const dataDir = resolveDataDir(options);
  // an engine.json or engine.token another user could have written would send this user's
  // requests (and token) to their server: refused before either is read
  checkDataDirForReading(dataDir);
  const info = await readEngineInfo(dataDir);
  if (!info || !isProcessAlive(info.pid)) return undefined;
  const bearerToken = await readToken(dataDir);
  return bearerToken ? { info, bearerToken } : { info };
}
