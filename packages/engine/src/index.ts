export { startEngine } from "./engine.js";
export type { RunningEngine, SessionMemory, StartEngineOptions } from "./engine.js";
export {
  DEFAULT_MODEL,
  applyEnv,
  defaultConfig,
  isLoopbackTcp,
  isModelConfigured,
  loadConfig,
  mergeCapabilities,
  parseBytes,
  parseConfig,
} from "./config/config.js";
export type {
  CapabilityEntry,
  EngineConfig,
  HistoryConfig,
  LimitsConfig,
  ListenConfig,
  ModelConfig,
  ModelEndpoint,
  ShieldConfig,
} from "./config/config.js";
export { TITLE_SYSTEM_PROMPT, TitleWriter, cleanTitle, titleMessages } from "./history/titles.js";
export { Retention } from "./history/retention.js";
export { AgentUnavailableError, ConfigError, EngineError } from "./errors.js";
export { checkStartFiles } from "./config/start-check.js";
export type { ConfigIssue } from "./errors.js";
export {
  defaultSocketAddress,
  discoverEngine,
  readEngineInfo,
  readToken,
  resolveConfigPath,
  resolveDataDir,
} from "./config/discovery.js";
export type { Discovered, EngineInfo, EngineSetup } from "./config/discovery.js";
export { currentSetup, keyHmac, setupChanges, setupOf } from "./config/setup.js";
export type { CurrentSetup, SetupChange, SetupSource } from "./config/setup.js";
export { ENGINE_VERSION } from "./services/status.js";
export { openLocalTools } from "./calls/local-tools.js";
export { callLocally } from "./calls/local-call.js";
export type { LocalCallOptions, LocalCallOutcome } from "./calls/local-call.js";
export type { LocalCapability, LocalTools, LocalToolsOptions } from "./calls/local-tools.js";
export { MemoryStore } from "./adapters/memory-store.js";
export { PolicyShield } from "./adapters/policy-shield.js";
export { sandboxViolations, safeEqual } from "./agent/link.js";
export { agentLauncher, walledLaunch, withoutNetwork } from "./adapters/agent.js";
export { AgentWallError, agentWallLine, chooseAgentWall } from "./agent/wall.js";
export { defaultSubAgentLauncher } from "./subagents/launcher.js";
export type { AgentWall } from "./agent/wall.js";
export {
  DEFAULT_BASE_URL,
  ExchangeReplay,
  ModelGateway,
  SESSION_HEADER,
  UsageScanner,
  proxySettings,
  usageOf,
} from "./gateway/index.js";
export type {
  GatewayModel,
  GatewayPrincipal,
  ModelGatewayOptions,
  SessionTokens,
  TokenCount,
} from "./gateway/index.js";
export type {
  AgentLaunch,
  AgentLaunchRequest,
  AgentLauncher,
  ArtifactInfo,
  CapabilityState,
  EngineShield,
  EngineStore,
  InvokeOutcome,
  Policy,
  ShieldInput,
  ToolGroupInfo,
  ToolHost,
  ToolSpec,
  VerdictRecord,
} from "./ports.js";
