// AgentLauncher over @palisade/agent's agentLaunchSpec: compiled JS under Node's permission
// model with an environment reduced to the engine address, token and model settings.
import { agentLaunchSpec } from "@palisade/agent";
import type { AgentLauncher } from "../ports.js";

export function agentLauncher(): AgentLauncher {
  return (req) => {
    const spec = agentLaunchSpec({
      engineAddress: req.engineAddress,
      token: req.token,
      agentId: req.agentId,
      model: req.model.name,
      contextWindow: req.model.contextWindow,
      ...(req.model.baseUrl ? { baseURL: req.model.baseUrl } : {}),
      ...(req.model.apiKey ? { apiKey: req.model.apiKey } : {}),
    });
    return { command: spec.command, args: spec.args, env: spec.env };
  };
}
