// AgentLauncher over @palisade/agent's agentLaunchSpec (sandboxed command line, minimal env).
import type { AgentLauncher } from "../ports.js";

export function agentLauncher(): AgentLauncher {
  return () => {
    throw new Error("the Agent package (@palisade/agent) is not available in this build");
  };
}
