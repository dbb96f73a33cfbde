export { startEngine } from "./engine.js";
export type { RunningEngine, SessionMemory, StartEngineOptions } from "./engine.js";
export { TITLE_SYSTEM_PROMPT, TitleWriter, cleanTitle, titleMessages } from "./history/titles.js";
export { Retention } from "./history/retention.js";
export { AgentUnavailableError, EngineError } from "./errors.js";
export { ENGINE_VERSION } from "./services/status.js";
export { openLocalTools } from "./calls/local-tools.js";
export { callLocally } from "./calls/local-call.js";
export type { LocalCallOptions, LocalCallOutcome } from "./calls/local-call.js";
export type { LocalCapability, LocalTools, LocalToolsOptions } from "./calls/local-tools.js";
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
export { verifyAuditTrail } from "./history/audit-verify.js";
export type { AuditVerifyOptions, AuditVerifyReport } from "./history/audit-verify.js";
