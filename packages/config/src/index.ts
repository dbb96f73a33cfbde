// Configuration: the config file read and validated, where a running Engine is found (discovery),
// the setup it started with, and the checks made before an Engine starts. Light enough for any
// client: no Engine and no database (better-sqlite3 is loaded only to take the Engine's lock).
export { ConfigError, formatIssue } from "./errors.js";
export type { ConfigIssue } from "./errors.js";
export {
  applyEnv,
  defaultConfig,
  isLoopbackTcp,
  isModelConfigured,
  mergeCapabilities,
  parseBytes,
  sha256Hex,
} from "./config.js";
export { loadConfig, parseConfig } from "./parse.js";
export type { ParseOptions } from "./parse.js";
export { configSchema, DEFAULT_MODEL } from "./schema.js";
export type {
  CapabilityEntry,
  EngineConfig,
  HistoryConfig,
  LimitsConfig,
  ListenConfig,
  ModelConfig,
  ModelEndpoint,
  SandboxConfig,
  ShieldConfig,
  StoreConfig,
} from "./config.js";
export {
  auditKeyPath,
  defaultSocketAddress,
  discoverEngine,
  ENGINE_FILE,
  engineInfoPath,
  ensureDataDir,
  ensureToken,
  isProcessAlive,
  readEngineInfo,
  readToken,
  removeEngineInfo,
  resolveConfigPath,
  resolveDataDir,
  SOCKET_FILE,
  TOKEN_FILE,
  tokenPath,
  writeEngineInfo,
} from "./discovery.js";
export type { Discovered, EngineInfo, EngineSetup, PathOptions } from "./discovery.js";
export { engineLockHolder, LOCK_FILE, tryLockEngine } from "./engine-lock.js";
export { assertPrivatePath, describeUid, PrivatePathError, privatePathProblem } from "./private-path.js";
export type { PrivatePathOptions } from "./private-path.js";
export type { EngineLock } from "./engine-lock.js";
export { configFileChanged, currentSetup, keyHmac, setupChanges, setupOf } from "./setup.js";
export type { CurrentSetup, SetupChange, SetupSource } from "./setup.js";
export { checkStartFiles, semanticsIssues } from "./start-check.js";
export {
  blockProblems,
  configSemanticsProblems,
  manifestSemanticsIssues,
  unknownArguments,
} from "./semantics-check.js";
export type { ManifestTools } from "./semantics-check.js";
export { builtinCapabilities, ownCapabilityIds } from "./builtins.js";
