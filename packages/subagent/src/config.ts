// The sub-agent's settings: the environment the Engine gives it, and the spawn token from stdin.
import { AGENT_ENV } from "@palisade/agent/config";
import { DEFAULT_CONTEXT_WINDOW, MIN_CONTEXT_WINDOW, parseModelSettings } from "@palisade/agent/settings";
import type { ModelSettings } from "@palisade/agent";

/** The environment variables the sub-agent reads (model ones shared with the Agent). */
export const SUBAGENT_ENV = {
  engineAddress: AGENT_ENV.engineAddress,
  contextWindow: AGENT_ENV.contextWindow,
  modelSettings: AGENT_ENV.modelSettings,
  modelGateway: AGENT_ENV.modelGateway,
} as const;

export interface SubAgentConfig {
  /** `unix:/path` or `host:port`. */
  engineAddress: string;
  /** Per-spawn token; proves this process is the one the Engine started. */
  token: string;
  /** Unix socket of the Engine's model gateway; the token is the credential there too. */
  modelGateway: string;
  contextWindow: number;
  /** The Engine's `model:` request settings (time limits, retries, headers); defaults when absent. */
  modelSettings?: ModelSettings;
}

export class SubAgentConfigError extends Error {
  readonly problems: string[];

  constructor(problems: string[]) {
    super(`invalid sub-agent settings:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = new.target.name;
    this.problems = problems;
  }
}

/** Reads and validates the settings; lists every problem at once. The token comes from stdin (see @palisade/agent's readSpawnToken), never the environment. */
export function readSubAgentConfig(
  env: Record<string, string | undefined>,
  secrets: { token: string },
): SubAgentConfig {
  const get = (name: string): string => (env[name] ?? "").trim();
  const problems: string[] = [];
  const engineAddress = get(SUBAGENT_ENV.engineAddress);
  const token = secrets.token.trim();
  if (!engineAddress)
    problems.push(`${SUBAGENT_ENV.engineAddress} is not set (the Engine's address: unix:/path or host:port)`);
  if (!token) problems.push("no spawn token: the Engine writes it as the first line of the sub-agent's stdin");
  const modelGateway = get(SUBAGENT_ENV.modelGateway);
  if (!modelGateway.startsWith("/"))
    problems.push(
      `${SUBAGENT_ENV.modelGateway} must be the absolute path of the Engine's model gateway socket, got ${JSON.stringify(modelGateway)}`,
    );
  const raw = get(SUBAGENT_ENV.contextWindow);
  const contextWindow = raw ? Number(raw) : DEFAULT_CONTEXT_WINDOW;
  if (!Number.isInteger(contextWindow) || contextWindow < MIN_CONTEXT_WINDOW) {
    problems.push(
      `${SUBAGENT_ENV.contextWindow}=${JSON.stringify(raw)} must be an integer number of tokens >= ${String(MIN_CONTEXT_WINDOW)}`,
    );
  }
  const rawSettings = get(SUBAGENT_ENV.modelSettings);
  const modelSettings = parseModelSettings(rawSettings, SUBAGENT_ENV.modelSettings, problems);
  if (problems.length > 0) throw new SubAgentConfigError(problems);
  return { engineAddress, token, modelGateway, contextWindow, ...(rawSettings ? { modelSettings } : {}) };
}
