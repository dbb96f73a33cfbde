// The default launcher: @palisade/subagent's compiled entry under the Agent's sandbox, with an
// environment of the Engine address, model settings and the model gateway's socket, no key (the
// per-spawn token goes on its stdin, see child-stdin.ts).
import { subAgentLaunchSpec } from "@palisade/subagent/launch";
import { modelSettingsOf, withoutNetwork } from "../adapters/agent.js";
import type { SubAgentLauncher } from "./ports.js";

export function defaultSubAgentLauncher(): SubAgentLauncher {
  return (req) => {
    const spec = subAgentLaunchSpec({
      engineAddress: req.engineAddress,
      modelGateway: req.modelGateway,
      contextWindow: req.model.contextWindow,
      modelSettings: modelSettingsOf(req.model),
    });
    return withoutNetwork({ command: spec.command, args: spec.args, env: spec.env });
  };
}
