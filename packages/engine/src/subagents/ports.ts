// What the sub-agent manager needs from the rest of the Engine. The composition file
// (engine.ts) supplies each; tests can supply their own.
import type { ModelConfig } from "@palisade/config";
import type { AgentLaunch } from "../ports.js";
import type { TurnEnv } from "../turns/env.js";
import type { Turn } from "../history/turn.js";

export interface SubAgentLimits {
  /** Sub-agents running at once in this Engine (default 10). */
  maxConcurrent: number;
  /** Wall clock per sub-agent (default 900 s); then SIGTERM, then SIGKILL after `killGraceMs`. */
  timeoutMs: number;
  /** LLM calls per sub-agent (default 20). */
  maxLlmCalls: number;
  killGraceMs: number;
  /** A started process must call RegisterSubAgent within this (default 15 s). */
  registerTimeoutMs: number;
  /**
   * Deepest nesting: 1 means only the main Agent spawns sub-agents and they never get the
   * `agents` group; 2 lets those spawn one more level, and so on.
   */
  maxDepth: number;
}

export const DEFAULT_SUBAGENT_LIMITS: SubAgentLimits = {
  maxConcurrent: 10,
  timeoutMs: 900_000,
  maxLlmCalls: 20,
  killGraceMs: 5_000,
  registerTimeoutMs: 15_000,
  maxDepth: 1,
};

export interface SubAgentLaunchRequest {
  engineAddress: string;
  /** Unix socket of the Engine's model gateway; `token` is the credential there too. */
  modelGateway: string;
  token: string;
  name: string;
  model: ModelConfig;
}

/** How a sub-agent process is started (default: @palisade/subagent under the Agent's sandbox). */
export type SubAgentLauncher = (request: SubAgentLaunchRequest) => AgentLaunch;

/** What the manager needs from the Engine once the pipeline exists (see SubAgentManager.attach). */
export interface SubAgentDeps {
  /** The turn pipeline's collaborators: sub-agent tool calls run through the same pipeline. */
  env: TurnEnv;
  /** The running turn of a session (at most one), i.e. the turn a spawn_agent call belongs to. */
  currentTurn(sessionId: string): Turn | undefined;
}
