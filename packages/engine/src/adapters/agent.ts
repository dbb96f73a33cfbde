// AgentLauncher over @palisade/agent's agentLaunchSpec: compiled JS under Node's permission
// model with an environment reduced to the engine address, model name, model settings and the
// model gateway's socket (the spawn token goes on its stdin, see child-stdin.ts). The model key
// stays in the Engine.
import { agentLaunchSpec } from "@palisade/agent/launch";
import type { ModelSettings } from "@palisade/agent";
import type { ModelConfig } from "../config.js";
import { networkNamespace } from "../agent/netns.js";
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

/** The `model:` settings the Agent needs to shape requests; never the API key. */
export function modelSettingsOf(m: ModelConfig): ModelSettings {
  return {
    server: m.baseUrl ?? "",
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

export function agentLauncher(): AgentLauncher {
  return (req) => {
    const spec = agentLaunchSpec({
      engineAddress: req.engineAddress,
      agentId: req.agentId,
      model: req.model.name,
      contextWindow: req.model.contextWindow,
      modelSettings: modelSettingsOf(req.model),
      modelGateway: req.modelGateway,
      ...(req.sessionIdleMs ? { historyIdleMs: req.sessionIdleMs } : {}),
    });
    return withoutNetwork({ command: spec.command, args: spec.args, env: spec.env });
  };
}
