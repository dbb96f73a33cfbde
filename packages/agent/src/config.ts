import { isAbsolute } from "node:path";
import { AgentConfigError } from "./errors.js";
import { DEFAULT_CONTEXT_WINDOW, MIN_CONTEXT_WINDOW, parseModelSettings } from "./settings.js";
import type { ModelSettings } from "./settings.js";
import type { ModelEndpoint } from "./gateway-fetch.js";

/** Everything the Agent process knows: the environment the Engine gives it, and the spawn token from stdin. */
export interface AgentConfig {
  /** `unix:/path` or `host:port`. */
  engineAddress: string;
  token: string;
  agentId: string;
  /**
   * Where model calls go: the Engine's model gateway (a unix socket), authenticated with the
   * spawn token. The Agent never holds the model API key.
   */
  modelEndpoint: ModelEndpoint;
  model: string;
  /** Tokens; compaction starts at 70% of it. */
  contextWindow: number;
  /** Request shaping, time limits and retries (defaults when the Engine sends none). */
  modelSettings?: ModelSettings;
  /** How long a conversation is kept without a turn: the Engine's session idle window (default HISTORY_IDLE_MS). */
  historyIdleMs?: number;
}

/** The environment variables the Agent reads, and nothing else. */
export const AGENT_ENV = {
  engineAddress: "PALISADE_ENGINE_ADDRESS",
  agentId: "PALISADE_AGENT_ID",
  modelGateway: "PALISADE_MODEL_GATEWAY",
  model: "PALISADE_MODEL",
  contextWindow: "PALISADE_CONTEXT_WINDOW",
  modelSettings: "PALISADE_MODEL_SETTINGS",
  historyIdleMs: "PALISADE_HISTORY_IDLE_MS",
} as const;

/**
 * Reads and validates the settings; lists every problem at once. The spawn token never comes from
 * the environment (readable through /proc): main.ts reads it from stdin (parent.ts).
 */
export function readAgentConfig(env: Record<string, string | undefined>, secrets: { token: string }): AgentConfig {
  const problems: string[] = [];
  const get = (name: string): string => (env[name] ?? "").trim();
  const engineAddress = get(AGENT_ENV.engineAddress);
  const token = secrets.token.trim();
  const model = get(AGENT_ENV.model);
  const gateway = get(AGENT_ENV.modelGateway);
  if (!engineAddress)
    problems.push(`${AGENT_ENV.engineAddress} is not set (the Engine's address: unix:/path or host:port)`);
  if (!token) problems.push("no spawn token: the Engine writes it as the first line of the Agent's stdin");
  if (!gateway) problems.push(`${AGENT_ENV.modelGateway} is not set (the unix socket of the Engine's model gateway)`);
  else if (!isAbsolute(gateway))
    problems.push(`${AGENT_ENV.modelGateway}=${JSON.stringify(gateway)} must be an absolute path of a unix socket`);
  if (!model) problems.push(`${AGENT_ENV.model} is not set (the model name, e.g. gpt-4o-mini)`);
  const rawWindow = get(AGENT_ENV.contextWindow);
  let contextWindow = DEFAULT_CONTEXT_WINDOW;
  if (rawWindow) {
    contextWindow = Number(rawWindow);
    if (!Number.isInteger(contextWindow) || contextWindow < MIN_CONTEXT_WINDOW) {
      problems.push(
        `${AGENT_ENV.contextWindow}=${JSON.stringify(rawWindow)} must be an integer number of tokens >= ${String(MIN_CONTEXT_WINDOW)}`,
      );
    }
  }
  const rawIdle = get(AGENT_ENV.historyIdleMs);
  const historyIdleMs = rawIdle ? Number(rawIdle) : undefined;
  if (historyIdleMs !== undefined && (!Number.isSafeInteger(historyIdleMs) || historyIdleMs < 1)) {
    problems.push(
      `${AGENT_ENV.historyIdleMs}=${JSON.stringify(rawIdle)} must be a whole number of milliseconds >= 1 (the Engine's session idle window)`,
    );
  }
  const rawSettings = get(AGENT_ENV.modelSettings);
  const modelSettings = parseModelSettings(rawSettings, AGENT_ENV.modelSettings, problems);
  if (problems.length > 0) throw new AgentConfigError(problems);
  return {
    engineAddress,
    token,
    agentId: get(AGENT_ENV.agentId) || "agent",
    modelEndpoint: { gateway, credential: token },
    model,
    contextWindow,
    ...(rawSettings ? { modelSettings } : {}),
    ...(historyIdleMs !== undefined ? { historyIdleMs } : {}),
  };
}
