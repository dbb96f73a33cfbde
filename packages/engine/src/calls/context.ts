// Where the Engine builds what the Shield sees of a call: the call, its session, the tool's
// manifest facts (policy, network, schema, semantics) and who makes it. Every verdict and every
// session grant of a call is asked with this input, whatever path the call came by.
import type { ShieldInput, ToolCallRecordRow, ToolSpec } from "../ports.js";
import type { CallScope } from "./scope.js";

export function shieldInput(scope: CallScope, record: ToolCallRecordRow, tool: ToolSpec): ShieldInput {
  const { session } = scope.turn;
  return {
    callId: record.callId,
    toolName: record.toolName,
    argumentsJson: record.argumentsJson,
    sessionId: session.id,
    mode: session.mode,
    workspace: session.workspace,
    capabilityId: tool.capabilityId,
    ...(tool.policy ? { manifestPolicy: tool.policy } : {}),
    ...(tool.networkMode ? { networkMode: tool.networkMode } : {}),
    ...(tool.networkAllowlist ? { networkAllowlist: tool.networkAllowlist } : {}),
    toolSchema: tool.parameters,
    ...(tool.description ? { toolDescription: tool.description } : {}),
    ...(tool.semantics ? { toolSemantics: tool.semantics } : {}),
    ...(scope.subAgentName !== undefined ? { subAgentName: scope.subAgentName } : {}),
  };
}
