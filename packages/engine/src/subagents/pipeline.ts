// Sub-agent tool calls enter the main pipeline (turns/tool-call.ts: resolution, validation, OTR
// gate, Shield, approvals, invoke, recording, events) unchanged. Three adapters give it the
// sub-agent's context without a second copy of the pipeline:
//  - the Shield sees `subAgentName`;
//  - events carry `sub_agent_name` (ACTION_*, APPROVAL_NEEDED) on the parent session's bus, in
//    the session's live turn (SubAgentRun.liveTurn);
//  - the result goes back to the sub-agent instead of the Agent stream.
import { create } from "@bufbuild/protobuf";
import { ToolCallProposedSchema } from "@palisade/protocol/pipeline";
import type { PipelineEvent } from "@palisade/protocol/pipeline";
import { AgentLink } from "../agent/link.js";
import type { DirectiveInit } from "../agent/link.js";
import { EventBus } from "../events.js";
import type { EventInit } from "../events.js";
import type { EngineShield, ShieldInput, ToolHost, VerdictRecord } from "../ports.js";
import type { TurnEnv } from "../turns/env.js";
import { runToolCall } from "../turns/tool-call.js";
import { grantScopeOf } from "./run.js";
import type { SubAgentRun } from "./run.js";

export interface ToolCallResult {
  content: string;
  isError: boolean;
}

/** The Shield with the sub-agent's name in every evaluation's context. */
export function shieldFor(inner: EngineShield, subAgentName: string): EngineShield {
  return {
    evaluate: (input: ShieldInput, signal?: AbortSignal): Promise<VerdictRecord> => inner.evaluate({ ...input, subAgentName }, signal),
    ...(inner.actionClass ? { actionClass: (input: ShieldInput) => inner.actionClass?.({ ...input, subAgentName }) ?? { key: "", label: "" } } : {}),
    ...(inner.toolSemantics ? { toolSemantics: inner.toolSemantics.bind(inner) } : {}),
    effectivePolicy: (toolName, manifestPolicy) => inner.effectivePolicy(toolName, manifestPolicy),
    describe: () => inner.describe(),
  };
}

/** Adds `sub_agent_name` to the payloads that have it. Pure. */
export function tagEvent(init: EventInit, subAgentName: string): EventInit {
  const out: EventInit = { ...init };
  if (init.actionProposed) out.actionProposed = { ...init.actionProposed, subAgentName };
  if (init.actionStarted) out.actionStarted = { ...init.actionStarted, subAgentName };
  if (init.actionCompleted) out.actionCompleted = { ...init.actionCompleted, subAgentName };
  if (init.approvalNeeded) out.approvalNeeded = { ...init.approvalNeeded, subAgentName };
  if (init.llmToken) out.llmToken = { ...init.llmToken, subAgentName };
  return out;
}

/** Publishes on the Engine's bus (same seqs, same subscribers) with the sub-agent's name added. */
class TaggingBus extends EventBus {
  constructor(
    private readonly inner: EventBus,
    private readonly run: SubAgentRun,
  ) {
    super();
  }

  /** Called by Turn.emit of the run's own turn, which keeps the event with the run. */
  override emit(init: EventInit): PipelineEvent {
    const live = this.run.liveTurn();
    const ev = this.inner.emit(tagEvent({ ...init, messageId: live.messageId }, this.run.name));
    if (live.state === "running") live.keep(ev);
    return ev;
  }

  override prepare(init: EventInit): PipelineEvent {
    return this.inner.prepare(tagEvent({ ...init, messageId: this.run.liveTurn().messageId }, this.run.name));
  }

  override publish(ev: PipelineEvent): PipelineEvent {
    return this.inner.publish(ev);
  }
}

/** Catches the pipeline's ToolResultDelivery for the sub-agent; nothing goes to the Agent. */
class ResultCatcher extends AgentLink {
  private readonly results = new Map<string, ToolCallResult>();

  constructor() {
    super({
      allowUnsandboxed: () => false,
      initialToolDefs: () => ({}),
      onEvent: () => undefined,
      onConnected: () => undefined,
      onDisconnected: () => undefined,
      onRefused: () => undefined,
      readyTimeoutMs: 0,
    });
  }

  override send(directive: DirectiveInit): boolean {
    const d = directive.directive;
    if (d?.case === "toolResult" && d.value.callId) this.results.set(d.value.callId, { content: d.value.content ?? "", isError: d.value.isError ?? false });
    return true;
  }

  take(callId: string): ToolCallResult | undefined {
    const r = this.results.get(callId);
    this.results.delete(callId);
    return r;
  }
}

/** Runs a sub-agent's tool calls through the Engine's pipeline, in the parent session. */
export class SubAgentPipeline {
  private readonly catcher = new ResultCatcher();
  private readonly env: TurnEnv;

  constructor(
    env: TurnEnv,
    private readonly run: SubAgentRun,
    host: ToolHost,
  ) {
    this.env = { ...env, host, shield: shieldFor(env.shield, run.name), bus: new TaggingBus(env.bus, run), link: this.catcher, grantScope: grantScopeOf(run), inheritedGrantScopes: run.init.inheritedGrantScopes };
  }

  async execute(call: { callId: string; toolName: string; argumentsJson: string }): Promise<ToolCallResult> {
    const { turn } = this.run.init;
    const proposal = create(ToolCallProposedSchema, { sessionId: turn.session.id, messageId: turn.messageId, ...call });
    await runToolCall(this.env, turn, proposal);
    return this.catcher.take(call.callId) ?? { content: `The sub-agent ${this.run.name} has ended; the call to ${call.toolName} was not run.`, isError: true };
  }
}
