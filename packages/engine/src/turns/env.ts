// What the turn pipeline needs from the Engine, gathered in one object.
import type { ApprovalBroker } from "../approvals.js";
import type { AgentLink } from "../agent/link.js";
import type { AuditWriter } from "../audit.js";
import type { EngineConfig } from "../config.js";
import type { TitleWriter } from "../titles.js";
import type { EventBus } from "../events.js";
import type { EngineShield, EngineStore, ToolHost } from "../ports.js";
import type { ArgumentValidator } from "./validate.js";
import type { RepoGuard } from "./nested-repos.js";

export interface TurnEnv {
  bus: EventBus;
  link: AgentLink;
  store: EngineStore;
  shield: EngineShield;
  host: ToolHost;
  approvals: ApprovalBroker;
  validator: ArgumentValidator;
  config: EngineConfig;
  /** Tool groups loaded per session (persist for the session's life in this Engine). */
  loadedGroups: Map<string, Set<string>>;
  log: (line: string) => void;
  /** The hash-chained audit trail (issue 9). */
  audit?: AuditWriter;
  /** Automatic session titles after the first turn (issue 9). */
  titles?: TitleWriter;
  /**
   * Whose session grants a call gets and is checked against: the main agent's (undefined) or one
   * sub-agent's.
   */
  grantScope?: string;
  /** More scopes whose grants cover a sub-agent's calls (its parents', when sub_agents.inherit_grants). */
  inheritedGrantScopes?: readonly string[];
  /** Undoes what a capability call left in the workspace's git repositories that would run programs later. */
  repoGuard?: RepoGuard;
}
