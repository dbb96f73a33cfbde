// What one tool call needs from where it was made: the Engine's collaborators, the session and
// turn it belongs to, where its events go and whose grants cover it. A turn of the main Agent, a
// sub-agent's call and a call a client asks for directly each build one; runToolCall does the rest.
import type { PipelineEvent } from "@palisade/protocol/pipeline";
import type { ApprovalBroker } from "./approval-broker.js";
import type { AuditWriter } from "../history/audit.js";
import type { EngineConfig } from "@palisade/config";
import type { EventBus, EventInit } from "../events.js";
import type { EngineShield, ToolHost } from "../ports.js";
import type { RepoGuard } from "./nested-repos.js";
import type { Turn } from "../history/turn.js";
import type { ArgumentValidator } from "./validate.js";

/** The Engine's parts a tool call uses. */
export interface CallEnv {
  bus: EventBus;
  shield: EngineShield;
  host: ToolHost;
  approvals: ApprovalBroker;
  validator: ArgumentValidator;
  config: EngineConfig;
  /** Tool groups loaded per session (load_tools adds to them). */
  loadedGroups: Map<string, Set<string>>;
  log: (line: string) => void;
  /** The hash-chained audit trail; every step of the call is written to it. */
  audit?: AuditWriter;
  /** Undoes what a capability call left in the workspace's git repositories that would run programs later. */
  repoGuard?: RepoGuard;
}

export type CallEventInit = Omit<EventInit, "sessionId" | "messageId">;

export interface CallScope {
  env: CallEnv;
  /** The turn the call belongs to: session, message, signal, state and the list its record joins. */
  turn: Turn;
  /** Publishes one of the call's events (default: in `turn`, on the Engine's bus). */
  emit?: (init: CallEventInit) => PipelineEvent;
  /** Who proposed the call, as the audit trail names it (default "agent": the main Agent or a sub-agent). */
  proposer?: string;
  /** Set for a sub-agent's call: the Shield and the events name it. */
  subAgentName?: string;
  /**
   * Whose session grants the call gets and is checked against: the main agent's ("main",
   * the default) or one sub-agent's.
   */
  grantScope?: string;
  /** More scopes whose grants cover the call (a sub-agent's parents, when sub_agents.inherit_grants). */
  inheritedGrantScopes?: readonly string[];
  /**
   * Called with the result before clients hear of it (ACTION_COMPLETED), for whoever waits on
   * it on the critical path (the Agent's stream). Not called when the turn ended first.
   */
  onResult?: (result: ToolResult) => void;
}

/** A proposed call, as the model or a client sent it. */
export interface ToolCall {
  callId: string;
  toolName: string;
  argumentsJson: string;
}

export interface ToolResult {
  callId: string;
  /** What the caller (the model) reads. */
  content: string;
  isError: boolean;
  /** The tool ends the turn on success (terminalOnSuccess). */
  terminal: boolean;
  /**
   * Why it failed, for a failure: the capability's own code (`timeout`, `not_ready`, a tool's)
   * or the Engine's (`unknown_tool`, `invalid_arguments`, `blocked`, `declined`, `otr_refused`,
   * `cancelled`, `internal`).
   */
  error?: { code: string; message: string };
  /** Whether the call got as far as the tool (allowed, approved, invoked). */
  ran: boolean;
}

/** Emits one of the call's events where the scope wants it. */
export function emitFor(scope: CallScope): (init: CallEventInit) => PipelineEvent {
  return scope.emit ?? ((init) => scope.turn.emit(scope.env.bus, init));
}
