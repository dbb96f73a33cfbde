export { AGENT_ENV, readAgentConfig } from "./config.js";
export type { AgentConfig } from "./config.js";
export { AgentConfigError, AgentFailure } from "./errors.js";
export type { AgentErrorCode } from "./errors.js";
export { AGENT_VERSION, INITIAL_TOOL_DEFS_TIMEOUT_MS, runAgent } from "./connection.js";
export type { AgentExit, RunAgentOptions } from "./connection.js";
export { agentLaunchSpec, agentPackageDir } from "./launch.js";
export { SPAWN_TOKEN_TIMEOUT_MS, readSpawnToken } from "./parent.js";
export type { AgentLaunchOptions, LaunchSpec } from "./launch.js";
export { AgentRuntime, TokenBatcher } from "./runtime.js";
export { HISTORY_IDLE_MS, HISTORY_MAX_BYTES, HistoryCache } from "./history-cache.js";
export type { HistoryCacheOptions } from "./history-cache.js";
export type { AgentEventInit, RuntimeOptions } from "./runtime.js";
export { DEFAULT_MAX_TOOL_ROUNDS, roundLimitMessage, runTurn } from "./turn.js";
export type {
  LoadedTools,
  ProposedCall,
  ThoughtData,
  ToolOutcome,
  TurnPorts,
  TurnRequest,
  TurnResult,
} from "./turn.js";
export { COMPACT_AT, KEEP_RECENT, TRIM_TOOL_RESULTS_AT, prepareContext } from "./compact.js";
export type { ContextInput, MemoryFlushData, PreparedContext } from "./compact.js";
export {
  estimateTokens,
  fitToolResults,
  parseCompaction,
  planCompaction,
  systemMessage,
  toChatMessages,
} from "./context.js";
export { encodeRequestBody } from "./request-body.js";
export { GATEWAY_BASE_URL, GATEWAY_CONNECTIONS, sdkTransport } from "./gateway-fetch.js";
export type { ModelEndpoint, SdkTransport } from "./gateway-fetch.js";
export { SESSION_HEADER, createModelCaller } from "./llm.js";
export { StreamAccumulator, StreamErrorEvent } from "./accumulator.js";
export type { ChunkSink } from "./accumulator.js";
export { classifyModelError, keepErrorBodies, normalizeErrorBody } from "./model-errors.js";
export type { FailureKind, ModelFailure } from "./model-errors.js";
export {
  DEFAULT_CONTEXT_WINDOW,
  DEFAULT_MODEL_SETTINGS,
  MIN_CONTEXT_WINDOW,
  MODEL_SERVER_LABEL,
  parseModelSettings,
} from "./settings.js";
export type { ModelSettings, StreamUsageMode, TextToolCallsMode } from "./settings.js";
export { SseParser, sseEvents, StreamStalled } from "./sse.js";
export type { SseEvent } from "./sse.js";
export { TextToolCalls } from "./text-tools.js";
export type { TextToolCallsResult } from "./text-tools.js";
export type { ModelClientOptions } from "./llm.js";
export type { CallModel, ModelRequest, ModelResult, ModelToolCall, ModelUsage } from "./model.js";
export { DEFAULT_RETRY, nextRetryDelay, retryAfterMs } from "./retry.js";
export type { RetryPolicy, RetryState } from "./retry.js";
export { probeSandbox } from "./sandbox.js";
export type { SandboxProbe } from "./sandbox.js";
export { LOAD_TOOLS, ToolSet, parseLoadToolsArgs } from "./tools.js";
export type { ToolSpec } from "./tools.js";
