// AgentLauncher over @palisade/agent's agentLaunchSpec: compiled JS under Node's permission
// model, in the Agent's wall (bubblewrap from an empty root, see agent/wall.ts), with an
// environment reduced to the Engine's socket, the model's name, the model settings and the model
// gateway's socket, as paths inside the view (the spawn token goes on its stdin, see
// child-stdin.ts). The model key and the model server's URL stay in the Engine.
import { agentLaunchSpec } from "@palisade/agent/launch";
import { MODEL_SERVER_LABEL } from "@palisade/agent";
import type { LaunchSpec, ModelSettings } from "@palisade/agent";
import type { ModelConfig } from "@palisade/config";
import { networkNamespace } from "../agent/netns.js";
import { AgentWallError, inAgentView } from "../agent/wall.js";
import type { AgentWall, SocketsInside } from "../agent/wall.js";
import type { AgentLaunch, AgentLauncher } from "../ports.js";

/**
 * Runs a launch in its own network namespace where one can be made. Where not, it runs as is: its
 * sandbox report then says it has a network, and the Engine refuses it unless
 * `agent.allow_unsandboxed` is set.
 */
export function withoutNetwork(launch: AgentLaunch, log?: (line: string) => void): AgentLaunch {
  const ns = networkNamespace();
  if (ns.ok) return ns.wrap(launch);
  log?.(`agent: no network namespace for the Agent: ${ns.reason}`);
  return launch;
}

/** The `model:` settings the Agent needs to shape requests; never the API key, nor where the server is. */
export function modelSettingsOf(m: ModelConfig): Partial<ModelSettings> {
  return {
    // The URL may hold a password or a key in its query: the Agent gets a label (see modelServerNamed).
    server: MODEL_SERVER_LABEL,
    // Added by the Engine's model gateway: a header may carry a credential (Azure's api-key).
    headers: {},
    extraBody: m.extraBody,
    idleTimeoutMs: m.idleTimeoutMs,
    requestTimeoutMs: m.requestTimeoutMs,
    maxRetries: m.maxRetries,
    maxRetryWaitMs: m.maxRetryWaitMs,
    textToolCalls: m.textToolCalls,
    streamUsage: m.streamUsage,
  };
}

/**
 * A launch in `wall`: `spec` builds the command line for the socket paths the process will see
 * (inside the view, or the host's where there is no view).
 */
export function walledLaunch(
  wall: AgentWall,
  hostSockets: SocketsInside,
  spec: (sockets: SocketsInside) => LaunchSpec,
): AgentLaunch {
  switch (wall.kind) {
    case "refused":
      throw new AgentWallError(wall.reason);
    case "permissions": {
      const s = spec(hostSockets);
      return withoutNetwork({ command: s.command, args: s.args, env: s.env });
    }
    case "bubblewrap":
      return inAgentView(wall, hostSockets, spec);
  }
}

export function agentLauncher(wall: AgentWall): AgentLauncher {
  return (req) =>
    walledLaunch(wall, { engineAddress: req.engineAddress, modelGateway: req.modelGateway }, (sockets) =>
      agentLaunchSpec({
        ...sockets,
        agentId: req.agentId,
        model: req.model.name,
        contextWindow: req.model.contextWindow,
        modelSettings: modelSettingsOf(req.model),
        ...(req.sessionIdleMs ? { historyIdleMs: req.sessionIdleMs } : {}),
      }),
    );
}
