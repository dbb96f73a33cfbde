// The default launcher: @palisade/subagent's compiled entry in the Agent's wall (bubblewrap from an
// empty root where it runs), with an environment of the Engine's socket, model settings and the
// model gateway's socket, no key and no model URL (the per-spawn token goes on its stdin, see
// child-stdin.ts).
import { subAgentLaunchSpec } from "@palisade/subagent/launch";
import { modelSettingsOf, walledLaunch } from "../adapters/agent.js";
import type { AgentWall } from "../agent/wall.js";
import type { SubAgentLauncher } from "./ports.js";

export function defaultSubAgentLauncher(wall: () => AgentWall): SubAgentLauncher {
  return (req) =>
    walledLaunch(wall(), { engineAddress: req.engineAddress, modelGateway: req.modelGateway }, (sockets) =>
      subAgentLaunchSpec({
        ...sockets,
        contextWindow: req.model.contextWindow,
        modelSettings: modelSettingsOf(req.model),
      }),
    );
}
