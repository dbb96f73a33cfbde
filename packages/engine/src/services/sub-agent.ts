// SubAgentService: sub-agents are a later issue. Every RPC answers UNIMPLEMENTED with a clear
// message; the Engine's seam is this file (swap in the real service here).
import { Code, RpcError } from "@palisade/protocol";
import type { ServiceImpl } from "@palisade/protocol";
import type { SubAgentService } from "@palisade/protocol/pipeline";

function notYet(rpc: string): never {
  throw new RpcError(
    Code.UNIMPLEMENTED,
    `SubAgentService.${rpc}: sub-agents are not available in this Engine yet (planned; spawn_agent is not offered to the model)`,
  );
}

export function subAgentService(): ServiceImpl<typeof SubAgentService> {
  return {
    registerSubAgent: async () => notYet("RegisterSubAgent"),
    subAgentExecuteTool: async () => notYet("SubAgentExecuteTool"),
    subAgentComplete: async () => notYet("SubAgentComplete"),
    subAgentFailed: async () => notYet("SubAgentFailed"),
    subAgentPollMessage: async () => notYet("SubAgentPollMessage"),
  };
}
