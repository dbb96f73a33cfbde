// The step of a call that has an effect: the tool runs under the turn's signal and the Engine's
// tool time limit, its artifacts and outcome are recorded, and the git guard checks what it left.
import { createHash } from "node:crypto";
import { PipelineEventType } from "@palisade/protocol/pipeline";
import { Deadline } from "../adapters/capabilities.js";
import { summarize } from "../history/convert.js";
import type { ToolHost, ToolSpec } from "../ports.js";
import { guardsRepos } from "./nested-repos.js";
import { elicitThroughApproval } from "./elicitation.js";
import type { CallRecord } from "./record.js";
import type { ToolResult } from "./scope.js";

const T = PipelineEventType;

/** Splits a host's `code: message` error back into its parts (codes are snake_case words). */
function errorOf(error: string): { code: string; message: string } {
  const m = /^([a-z][a-z0-9_]*): (.*)$/s.exec(error);
  return m ? { code: m[1] as string, message: error } : { code: "tool_error", message: error };
}

export async function invoke(call: CallRecord, host: ToolHost, tool: ToolSpec, args: unknown): Promise<ToolResult> {
  const { turn, record } = call;
  const { env } = call.scope;
  // The call's proposal, verdict and approval are committed before it can have an effect.
  const unrecorded = await env.audit?.commitBeforeEffect();
  if (unrecorded !== undefined)
    return call.deliver(`${tool.name} did not run: ${unrecorded}. Tell the user.`, true, {
      error: { code: "audit_unavailable" },
    });
  if (turn.signal.aborted)
    return call.deliver("The turn was cancelled before the tool ran.", true, { error: { code: "cancelled" } });
  // The turn's cancel or the tool deadline, whichever comes first. (AbortSignal.any with
  // AbortSignal.timeout costs ~30 µs a call and leaves its timer pending for the whole deadline.)
  const controller = new AbortController();
  const onTurnAbort = (): void => controller.abort(turn.signal.reason);
  if (turn.signal.aborted) onTurnAbort();
  turn.signal.addEventListener("abort", onTurnAbort, { once: true });
  // It stops while the user answers an MCP server's form (the approval's deadline bounds that).
  // The only one for the call: the host runs the call under it, tightened to the capability's own
  // limit when that is shorter.
  const deadline = new Deadline(env.config.limits.toolTimeoutMs, () =>
    controller.abort(
      new DOMException(`the Engine's tool time limit of ${env.config.limits.toolTimeoutMs} ms passed`, "TimeoutError"),
    ),
  );
  const signal = controller.signal;
  const guard = guardsRepos(tool.capabilityId) && !tool.runsNoPrograms ? env.repoGuard : undefined;
  await guard?.prime(turn.session.id, turn.session.workspace);
  const startedAt = Date.now();
  // The call leaves first; the client events are built while the capability works.
  const running = host.invoke(tool, args, {
    sessionId: turn.session.id,
    workspace: turn.session.workspace,
    signal,
    elicit: deadline.around(elicitThroughApproval(call, record.callId, record.toolName)),
    deadline,
    onChunk: (text) => {
      if (turn.state === "done") return;
      call.flushStart();
      call.emit({ eventType: T.ACTION_PROGRESS, actionProgress: { callId: record.callId, text } });
    },
  });
  call.startSoon(() => {
    call.announce();
    call.emit({
      eventType: T.ACTION_STARTED,
      actionStarted: {
        callId: record.callId,
        toolName: tool.name,
        argumentsJson: record.argumentsJson,
        summary: summarize(`${tool.name} ${record.argumentsJson}`),
      },
    });
  });
  const outcome = await running.finally(() => {
    deadline.clear();
    turn.signal.removeEventListener("abort", onTurnAbort);
  });
  record.artifacts = outcome.artifacts;
  env.audit?.step(turn.session, "execution", record.callId, "engine", {
    toolName: tool.name,
    ok: outcome.ok,
    durationMs: Date.now() - record.startedAt,
    resultSha256: createHash("sha256").update(outcome.content).digest("hex"),
    artifacts: outcome.artifacts.map((a) => a.artifactId),
    ...(outcome.error ? { error: outcome.error } : {}),
  });
  const undone =
    (await guard
      ?.check(turn.session.id, turn.session.workspace, startedAt)
      .catch((err: unknown) => [`could not check the workspace's git repositories: ${(err as Error).message}`])) ?? [];
  const told = undone.length > 0 ? `\n\nPalisade ${undone.join("; ")}.` : "";
  if (outcome.ok)
    return call.deliver(`${outcome.content}${told}`, false, { terminal: tool.terminalOnSuccess, ran: true });
  const error =
    outcome.errorCode !== undefined
      ? { code: outcome.errorCode, message: outcome.error ?? outcome.errorCode }
      : outcome.error
        ? errorOf(outcome.error)
        : { code: "tool_error" };
  return call.deliver(`${outcome.content || `${tool.name} failed: ${outcome.error ?? "unknown error"}`}${told}`, true, {
    error,
    ran: true,
  });
}
