// Sub-agent tool calls take the Engine's one call path (calls/: resolution, validation, OTR gate,
// Shield, approvals, invoke, recording, events) in the parent session, with the sub-agent's
// context in the scope:
//  - the Shield sees `subAgentName`, and grants are the sub-agent's own (plus inherited ones);
//  - events carry `sub_agent_name` (ACTION_*, APPROVAL_NEEDED) on the parent session's bus, in
//    the session's live turn (SubAgentRun.liveTurn);
//  - the result is returned to the sub-agent, never sent to the Agent stream.
import { runToolCall } from "../calls/index.js";
import type { CallEnv, CallEventInit, CallScope, ToolCall } from "../calls/index.js";
import type { EventInit } from "../events.js";
import type { ToolHost } from "../ports.js";
import { grantScopeOf } from "./run.js";
import type { SubAgentRun } from "./run.js";

export interface ToolCallResult {
  content: string;
  isError: boolean;
}

/** Adds `sub_agent_name` to the payloads that have it. Pure. */
export function tagEvent<E extends CallEventInit | EventInit>(init: E, subAgentName: string): E {
  const out: E = { ...init };
  if (init.actionProposed) out.actionProposed = { ...init.actionProposed, subAgentName };
  if (init.actionStarted) out.actionStarted = { ...init.actionStarted, subAgentName };
  if (init.actionCompleted) out.actionCompleted = { ...init.actionCompleted, subAgentName };
  if (init.approvalNeeded) out.approvalNeeded = { ...init.approvalNeeded, subAgentName };
  if (init.llmToken) out.llmToken = { ...init.llmToken, subAgentName };
  return out;
}

/** Runs a sub-agent's tool calls through the Engine's call path, in the parent session. */
export class SubAgentPipeline {
  private readonly scope: CallScope;
  private readonly name: string;

  constructor(env: CallEnv, run: SubAgentRun, host: ToolHost) {
    this.name = run.name;
    const callEnv: CallEnv = { ...env, host };
    this.scope = {
      env: callEnv,
      turn: run.init.turn,
      // In the session's live turn, kept with it and with the run (SubAgentRun.emit).
      emit: (init) => run.emit(env.bus, tagEvent(init, run.name)),
      subAgentName: run.name,
      grantScope: grantScopeOf(run),
      inheritedGrantScopes: run.init.inheritedGrantScopes,
    };
  }

  async execute(call: ToolCall): Promise<ToolCallResult> {
    let delivered = false;
    const r = await runToolCall({ ...this.scope, onResult: () => (delivered = true) }, call);
    // A result settled after the run ended reaches no one: the sub-agent is told the call did not run.
    if (!delivered)
      return {
        content: `The sub-agent ${this.name} has ended; the call to ${call.toolName} was not run.`,
        isError: true,
      };
    return { content: r.content, isError: r.isError };
  }
}
