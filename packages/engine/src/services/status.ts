// GetStatus, fully filled.
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { StatusResponseSchema } from "@palisade/protocol/pipeline";
import type { AgentLink } from "../agent/link.js";
import type { AgentSupervisor } from "../agent/supervisor.js";
import { confinementOf } from "../agent/confinement.js";
import { publicUrl } from "../agent/model-label.js";
import { configFileChanged, isModelConfigured } from "@palisade/config";
import type { EngineConfig, EngineSetup } from "@palisade/config";
import type { EngineShield, EngineStore, ToolHost } from "../ports.js";
import type { SessionDirectory } from "../history/sessions.js";
import type { TurnManager } from "../turns/manager.js";

export const ENGINE_VERSION = "0.1.0";

export interface StatusDeps {
  config: EngineConfig;
  dataDir: string;
  startedAt: number;
  link: AgentLink;
  supervisor: AgentSupervisor | undefined;
  shield: EngineShield;
  store: EngineStore;
  host: ToolHost;
  turns: TurnManager;
  sessions: SessionDirectory;
  /** Whether tool sandboxes can be made here, in one line. */
  toolSandbox: string;
  /** How the Agent is walled in (agent/wall.ts agentWallLine). */
  agentWall?: string;
  /** What the Engine started with; undefined when its config was given in code, not read from a file. */
  setup: EngineSetup | undefined;
}

function startOfToday(now = new Date()): number {
  return new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime();
}

export async function buildStatus(d: StatusDeps): Promise<MessageInitShape<typeof StatusResponseSchema>> {
  const info = d.link.info;
  const shield = d.shield.describe();
  const [total, actions] = await Promise.all([d.store.countSessions(), d.store.countToolCallsSince(startOfToday())]);
  return {
    agentId: info?.agentId ?? d.config.agent.name,
    agentConnected: d.link.connected,
    model: d.config.model.name,
    shieldState: shield.state,
    uptimeMs: BigInt(Date.now() - d.startedAt),
    activeSessions: d.turns.activeSessionCount(),
    totalSessions: total + d.sessions.otrSessions().length,
    actionsToday: actions,
    capabilities: d.host.status(),
    version: ENGINE_VERSION,
    dataDir: d.dataDir,
    policyName: shield.policyName,
    agentRestarts: d.supervisor?.restarts ?? 0,
    agentState: d.supervisor?.state ?? "",
    store: d.store.describe?.() ?? "",
    ...(info?.sandbox ? { sandbox: info.sandbox } : {}),
    modelConfigured: isModelConfigured(d.config.model),
    // Shown in terminals: without the userinfo and query a credential may be in.
    baseUrl: d.config.model.baseUrl ? publicUrl(d.config.model.baseUrl) : "",
    runningSubAgents: 0,
    toolSandbox: d.toolSandbox,
    configFile: d.setup?.configFile ?? "",
    configChanged: d.setup ? await configFileChanged(d.setup) : false,
    ...(info
      ? { agentConfinement: confinementOf(info.sandbox, info.verified, d.supervisor?.launch, d.agentWall) }
      : {}),
  };
}
