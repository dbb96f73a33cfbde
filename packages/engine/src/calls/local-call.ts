// A tool call outside the Engine (`palisade capability call --address/--command`: a manifest the
// Engine does not know) on the same path as the Engine's calls (runToolCall), with the host,
// Shield and validator of LocalTools. There is no store, so no audit trail and no history.
import { randomUUID } from "node:crypto";
import { PipelineEventType } from "@palisade/protocol/pipeline";
import { ApprovalBroker } from "./approval-broker.js";
import { ZERO_USAGE } from "../history/convert.js";
import { EventBus } from "../events.js";
import type { LocalTools } from "./local-tools.js";
import type { ApprovalChoice, ArtifactInfo, SessionRecord, VerdictRecord } from "../ports.js";
import { Turn } from "../history/turn.js";
import { ArgumentValidator } from "./validate.js";
import { runToolCall } from "./run.js";
import type { CallEnv, ToolResult } from "./scope.js";

export interface LocalCallOptions {
  sessionId: string;
  signal: AbortSignal;
  /** Asked when the Shield escalates; the answer decides whether the call runs. */
  ask(question: { toolName: string; reason: string }): Promise<ApprovalChoice>;
}

export interface LocalCallOutcome {
  result: ToolResult;
  /** The tool's full name, once resolved. */
  toolName: string;
  verdict?: VerdictRecord;
  artifacts: ArtifactInfo[];
}

export async function callLocally(
  tools: LocalTools,
  call: { toolName: string; argumentsJson: string },
  opts: LocalCallOptions,
): Promise<LocalCallOutcome> {
  const approvals = new ApprovalBroker(() => tools.config.limits.approvalTimeoutMs);
  const env: CallEnv = {
    bus: new EventBus(),
    shield: tools.shield,
    host: tools.host,
    approvals,
    validator: new ArgumentValidator(),
    config: tools.config,
    loadedGroups: new Map(),
    log: () => undefined,
  };
  const now = Date.now();
  const session: SessionRecord = {
    id: opts.sessionId,
    title: "",
    mode: "normal",
    workspace: tools.workspace,
    model: "",
    createdAt: now,
    updatedAt: now,
    messageCount: 0,
    usage: ZERO_USAGE,
  };
  const turn = new Turn(session, `call_${randomUUID()}`, "", "", now, "");
  turn.state = "running";
  const onAbort = (): void => turn.abort.abort(opts.signal.reason);
  opts.signal.addEventListener("abort", onAbort, { once: true });
  try {
    const result = await runToolCall(
      {
        env,
        turn,
        proposer: "cli",
        emit: (init) => {
          const ev = turn.emit(env.bus, init);
          const a = ev.eventType === PipelineEventType.APPROVAL_NEEDED ? ev.approvalNeeded : undefined;
          if (a)
            void opts
              .ask({ toolName: a.toolName, reason: a.reason })
              .then((answer) => approvals.resolve(a.approvalId, answer, session.id));
          return ev;
        },
      },
      { callId: `cli_${randomUUID()}`, ...call },
    );
    const record = turn.toolCalls[0];
    return {
      result,
      toolName: record?.toolName ?? call.toolName,
      ...(record?.verdict ? { verdict: record.verdict } : {}),
      artifacts: record?.artifacts ?? [],
    };
  } finally {
    opts.signal.removeEventListener("abort", onAbort);
    turn.markDone();
  }
}
