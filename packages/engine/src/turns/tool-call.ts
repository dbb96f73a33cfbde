// One tool call, end to end (DESIGN.md): resolve → validate → OTR gate → Shield → approval →
// invoke (artifacts and credentials are the host's business) → deliver → record → events.
import { createHash } from "node:crypto";
import { PipelineEventType } from "@palisade/protocol/pipeline";
import type { ToolCallProposed } from "@palisade/protocol/pipeline";
import type { ApprovalOutcome } from "../approvals.js";
import { approvalToProto, artifactToProto, summarize, verdictToProto } from "../convert.js";
import { visible, visibleJson } from "../adapters/shield.js";
import type { ActionClassInfo, ShieldInput, ToolCallRecordRow, ToolSpec, VerdictRecord } from "../ports.js";
import { LOAD_TOOLS, loadedGroupsOf, toolDefsOf } from "./engine-tools.js";
import { elicitThroughApproval } from "./elicitation.js";
import { writePreview } from "./preview.js";
import type { TurnEnv } from "./env.js";
import type { Turn } from "./turn.js";
import { guardsRepos } from "./nested-repos.js";

const T = PipelineEventType;

class CallContext {
  readonly record: ToolCallRecordRow;
  private delivered = false;
  private proposedSent = false;
  private verdictSent = false;
  /** Client events of an allowed call that wait for the next turn of the event loop (see invoke). */
  private pendingStart: (() => void) | undefined;
  /** What the call would change (a file write's diff), for clients. */
  preview = "";

  constructor(
    private readonly env: TurnEnv,
    readonly turn: Turn,
    readonly proposal: ToolCallProposed,
  ) {
    this.record = {
      callId: proposal.callId,
      toolName: proposal.toolName,
      argumentsJson: proposal.argumentsJson,
      approval: "",
      result: "",
      isError: false,
      durationMs: 0,
      artifacts: [],
      startedAt: Date.now(),
    };
  }

  /**
   * Emits ACTION_PROPOSED, then SHIELD_VERDICT once there is one, each once. An allowed call
   * announces itself after its capability call has left, so building and writing these client
   * events is not on the call's critical path; refusals and approvals announce before they act.
   */
  announce(): void {
    const { turn, env, proposal, record } = this;
    if (!this.proposedSent) {
      this.proposedSent = true;
      turn.emit(env.bus, {
        eventType: T.ACTION_PROPOSED,
        actionProposed: { callId: proposal.callId, toolName: proposal.toolName, argumentsJson: proposal.argumentsJson, preview: this.preview },
      });
    }
    if (record.verdict && !this.verdictSent) {
      this.verdictSent = true;
      turn.emit(env.bus, { eventType: T.SHIELD_VERDICT, shieldVerdict: verdictToProto(record.callId, record.toolName, record.verdict) });
    }
  }

  /**
   * Emits `events` (ACTION_PROPOSED, SHIELD_VERDICT, ACTION_STARTED of an allowed call) once the
   * current turn of the event loop is over: the capability request it just made is flushed to
   * its socket first, and building and writing client events never delays it. deliver() emits
   * them first if they are still waiting, so clients always see them before ACTION_COMPLETED.
   */
  startSoon(events: () => void): void {
    this.pendingStart = events;
    setImmediate(() => this.flushStart());
  }

  /** Emits the waiting start events now, if any (deliver, and progress chunks, which follow ACTION_STARTED). */
  flushStart(): void {
    const events = this.pendingStart;
    this.pendingStart = undefined;
    if (events && this.turn.state !== "done") events();
  }

  /** Sends the result to the Agent (once), records it, emits ACTION_COMPLETED. */
  deliver(content: string, isError: boolean, opts: { terminal?: boolean; error?: string } = {}): void {
    if (this.delivered) return;
    this.delivered = true;
    const r = this.record;
    r.result = content;
    r.isError = isError;
    r.durationMs = Date.now() - r.startedAt;
    const { turn, env } = this;
    if (turn.state === "done") return; // the turn ended (cancel, crash): nobody is waiting
    this.flushStart();
    this.announce();
    // The Agent (the turn's critical path) first, then the clients' notification.
    env.link.send({
      directive: {
        case: "toolResult",
        value: {
          callId: r.callId,
          content,
          isError,
          sessionId: turn.session.id,
          messageId: turn.messageId,
          terminal: Boolean(opts.terminal) && !isError,
        },
      },
    });
    turn.emit(env.bus, {
      eventType: T.ACTION_COMPLETED,
      actionCompleted: {
        callId: r.callId,
        toolName: r.toolName,
        success: !isError,
        resultSummary: summarize(content),
        error: isError ? (opts.error ?? summarize(content)) : "",
        durationMs: BigInt(r.durationMs),
        artifacts: r.artifacts.map(artifactToProto),
        argumentsJson: r.argumentsJson,
      },
    });
  }
}

/** Runs one proposal; never throws (failures go back to the model as tool errors). */
export async function runToolCall(env: TurnEnv, turn: Turn, proposal: ToolCallProposed): Promise<void> {
  const call = new CallContext(env, turn, proposal);
  turn.toolCalls.push(call.record);
  env.audit?.step(turn.session, "proposal", proposal.callId, "agent", { messageId: turn.messageId, toolName: proposal.toolName, argumentsJson: proposal.argumentsJson });
  try {
    await pipeline(env, call);
  } catch (err) {
    env.log(`tool call ${proposal.callId} (${proposal.toolName}) failed inside the Engine: ${(err as Error).stack ?? String(err)}`);
    call.deliver(`Internal error while running ${proposal.toolName}: ${(err as Error).message}`, true);
  }
}

async function pipeline(env: TurnEnv, call: CallContext): Promise<void> {
  const { turn, proposal, record } = call;
  const isLoadTools = proposal.toolName === LOAD_TOOLS;
  let tool: ToolSpec | undefined;
  if (!isLoadTools) {
    const resolved = env.host.resolve(proposal.toolName);
    if ("error" in resolved) return call.deliver(resolved.error, true);
    tool = resolved.tool;
    record.toolName = tool.name;
  }

  let args: unknown;
  try {
    args = proposal.argumentsJson.trim() === "" ? {} : JSON.parse(proposal.argumentsJson);
  } catch (err) {
    return call.deliver(`The arguments of ${record.toolName} are not valid JSON (${(err as Error).message}). Send a JSON object.`, true);
  }
  const schema = tool ? tool.parameters : loadToolsSchema;
  const invalid = env.validator.validate(record.toolName, schema, args);
  if (invalid) return call.deliver(`Invalid arguments for ${record.toolName}: ${invalid}. Fix them and call the tool again.`, true);

  if (turn.otr && tool) {
    const policy = env.shield.effectivePolicy(tool.name, tool.policy);
    const writes = writesFiles(env, tool);
    if (policy !== "allow" || writes) {
      const reason = writes
        ? `${tool.name} is not available off the record (it writes files, and an off-the-record session leaves nothing on disk)`
        : `${tool.name} is not available off the record (its policy is "${policy}"; only tools allowed by default run in OTR sessions)`;
      call.announce();
      turn.emit(env.bus, { eventType: T.OTR_BLOCKED, otrBlocked: { callId: record.callId, toolName: tool.name, reason } });
      return call.deliver(`Refused: ${reason}. Tell the user, or answer without this tool.`, true);
    }
  }

  const verdict = await judge(env, call, tool);
  record.verdict = verdict;
  env.audit?.step(turn.session, "verdict", record.callId, "shield", { toolName: record.toolName, ...verdict });
  // A file write's diff for the approval and the card; not when a detector or the judge raised a
  // concern (the file may be one that should not be shown or stored in the history).
  if (tool && verdict.decision !== "BLOCK" && (verdict.decision === "ALLOW" || verdict.tier === 0)) {
    call.preview = await writePreview(tool, args, turn.session.workspace);
  }
  if (verdict.decision !== "ALLOW") call.announce();
  if (verdict.decision === "BLOCK") {
    return call.deliver(
      `The Shield blocked this call to ${record.toolName}: ${verdict.reason}. Do not retry it; tell the user what you wanted to do and why it was refused.`,
      true,
    );
  }
  if (verdict.decision === "ESCALATE") {
    const { outcome, by, reason } = await askUser(env, call, verdict, tool);
    record.approval = outcome;
    const answered = outcome === "allow_once" || outcome === "allow_session" || outcome === "deny" || outcome === "unattended";
    // The actor of an answer is the client credential that gave it (token id and transport);
    // `unattended` is that client saying no person could be asked.
    const actor = !answered ? outcome : outcome === "unattended" ? `client (${by ?? "unknown client"})` : `user (${by ?? "unknown client"})`;
    env.audit?.step(turn.session, "approval", record.callId, actor, { toolName: record.toolName, decision: outcome, ...(by ? { answeredBy: by } : {}), ...(reason ? { reason } : {}) });
    if (outcome !== "allow_once" && outcome !== "allow_session" && outcome !== "session") {
      const why =
        outcome === "timeout"
          ? "The user did not answer the approval request in time, so the call was declined"
          : outcome === "cancelled"
            ? "The approval request was cancelled"
            : outcome === "unattended"
              ? `No one could approve this call (${reason ?? "the client has no one to ask"}), so it did not run`
              : `The user declined this tool call${reason ? `, saying: "${reason}"` : ""}`;
      return call.deliver(`${why} (${record.toolName}). Do not retry it; continue without it or ask the user what to do.`, true);
    }
  }
  if (turn.signal.aborted) return call.deliver("The turn was cancelled before the tool ran.", true);

  if (isLoadTools) return runLoadTools(env, call, args as { groups: string[] });
  if (!tool) return;
  await invoke(env, call, tool, args);
}

const loadToolsSchema = {
  type: "object",
  properties: { groups: { type: "array", items: { type: "string" } } },
  required: ["groups"],
};

/** Tool kinds whose effect is a file on disk: refused off the record. */
const DISK_WRITING = new Set(["file-write", "file-delete", "file-move", "file-copy", "document-write"]);

/**
 * Whether a tool writes, moves or deletes files, as the Shield reads its semantics (declared,
 * else inferred from its schema); an invalid declared block counts as writing.
 */
function writesFiles(env: TurnEnv, tool: ToolSpec): boolean {
  if (!env.shield.toolSemantics) return typeof tool.semantics?.["kind"] === "string" && DISK_WRITING.has(tool.semantics["kind"]);
  try {
    return env.shield.toolSemantics({ toolName: tool.name, toolSchema: tool.parameters, ...(tool.semantics ? { toolSemantics: tool.semantics } : {}) }).writesFiles;
  } catch {
    return true;
  }
}

function shieldInput(call: CallContext, tool: ToolSpec | undefined): ShieldInput {
  const { turn, record } = call;
  return {
    callId: record.callId,
    toolName: record.toolName,
    argumentsJson: record.argumentsJson,
    sessionId: turn.session.id,
    mode: turn.session.mode,
    workspace: turn.session.workspace,
    capabilityId: tool?.capabilityId ?? LOAD_TOOLS,
    ...(tool?.policy ? { manifestPolicy: tool.policy } : tool ? {} : { manifestPolicy: "allow" as const }),
    ...(tool?.networkMode ? { networkMode: tool.networkMode } : {}),
    ...(tool?.networkAllowlist ? { networkAllowlist: tool.networkAllowlist } : {}),
    ...(tool ? { toolSchema: tool.parameters } : {}),
    ...(tool?.semantics ? { toolSemantics: tool.semantics } : {}),
  };
}

async function judge(env: TurnEnv, call: CallContext, tool: ToolSpec | undefined): Promise<VerdictRecord> {
  try {
    return await env.shield.evaluate(shieldInput(call, tool), call.turn.signal);
  } catch (err) {
    return { decision: "BLOCK", tier: 0, confidence: 1, reason: `the Shield failed (failing closed): ${(err as Error).message}`, ruleIds: ["engine.fail_closed"], evaluationUs: 0 };
  }
}

/**
 * What "allow for this session" grants: the action's effect class (same tool, program, options and
 * operands, path scope or host, from the Shield), for the main agent or for one sub-agent; without
 * a class from the Shield only the identical call. A destructive action gets no grant at all
 * (`key` undefined): "a" then allows this call only.
 */
function grantOf(env: TurnEnv, call: CallContext, tool: ToolSpec | undefined): { key: string | undefined; label: string; cls: string } {
  let cls: ActionClassInfo = { key: "", label: "" };
  try {
    cls = env.shield.actionClass?.(shieldInput(call, tool)) ?? cls;
  } catch {
    cls = { key: "", label: "" };
  }
  if (cls.askEveryTime !== undefined) return { key: undefined, label: `this call only (${cls.askEveryTime}: asked every time)`, cls: "" };
  if (cls.key === "") cls = { key: `${call.record.toolName}\u0000${call.record.argumentsJson}`, label: `${call.record.toolName} with exactly these arguments` };
  return { key: grantKey(env.grantScope ?? "main", cls.key), label: cls.label, cls: cls.key };
}

const grantKey = (scope: string, cls: string): string => `${scope}\u0000${cls}`;

/**
 * Who granted this class for the session: "session" (this agent's own grant), "session
 * (inherited from …)" (a parent's, when the user chose that sub-agents inherit grants), or
 * undefined.
 */
function grantedBy(env: TurnEnv, sessionId: string, key: string, cls: string): string | undefined {
  if (env.approvals.isGrantedForSession(sessionId, key)) return "session";
  for (const scope of env.inheritedGrantScopes ?? []) {
    if (env.approvals.isGrantedForSession(sessionId, grantKey(scope, cls))) return `session (inherited from ${scope === "main" ? "the main agent" : scope.replace(/^sub-agent:/, "sub-agent ")})`;
  }
  return undefined;
}

async function askUser(env: TurnEnv, call: CallContext, verdict: VerdictRecord, tool: ToolSpec | undefined): Promise<{ outcome: ApprovalOutcome | "session"; by?: string; reason?: string }> {
  const { turn, record } = call;
  const sessionId = turn.session.id;
  const { key, label, cls } = grantOf(env, call, tool);
  // a grant answers the policy's question again; a detector's or the judge's concern is asked every time
  const granted = verdict.tier === 0 && key !== undefined ? grantedBy(env, sessionId, key, cls) : undefined;
  if (granted !== undefined) {
    turn.emit(env.bus, {
      eventType: T.APPROVAL_RESOLVED,
      approvalResolved: { approvalId: "", callId: record.callId, decision: approvalToProto("session"), resolvedBy: granted },
    });
    return { outcome: "session", ...(granted !== "session" ? { by: granted } : {}) };
  }
  const ticket = env.approvals.open({ sessionId, callId: record.callId, toolName: record.toolName, ...(key !== undefined ? { grantKey: key } : {}), signal: turn.signal });
  turn.emit(env.bus, {
    eventType: T.APPROVAL_NEEDED,
    approvalNeeded: {
      approvalId: ticket.approvalId,
      callId: record.callId,
      toolName: record.toolName,
      argumentsJson: visibleJson(record.argumentsJson),
      reason: visible(verdict.reason),
      deadlineUnixMs: BigInt(ticket.deadline),
      tier: verdict.tier,
      ruleIds: verdict.ruleIds,
      grantScope: visible(label),
      preview: call.preview,
    },
  });
  const outcome = await ticket.outcome;
  const resolvedBy = outcome === "timeout" || outcome === "cancelled" || outcome === "unattended" ? outcome : "user";
  if (turn.state !== "done") {
    turn.emit(env.bus, {
      eventType: T.APPROVAL_RESOLVED,
      approvalResolved: { approvalId: ticket.approvalId, callId: record.callId, decision: approvalToProto(outcome), resolvedBy },
    });
  }
  return { outcome, ...(ticket.answeredBy ? { by: ticket.answeredBy } : {}), ...(ticket.reason ? { reason: ticket.reason } : {}) };
}

async function invoke(env: TurnEnv, call: CallContext, tool: ToolSpec, args: unknown): Promise<void> {
  const { turn, record } = call;
  // The call's proposal, verdict and approval are committed before it can have an effect.
  const unrecorded = await env.audit?.commitBeforeEffect();
  if (unrecorded !== undefined) return call.deliver(`${tool.name} did not run: ${unrecorded}. Tell the user.`, true);
  if (turn.signal.aborted) return call.deliver("The turn was cancelled before the tool ran.", true);
  // The turn's cancel or the tool deadline, whichever comes first. (AbortSignal.any with
  // AbortSignal.timeout costs ~30 µs a call and leaves its timer pending for the whole deadline.)
  const controller = new AbortController();
  const onTurnAbort = (): void => controller.abort(turn.signal.reason);
  if (turn.signal.aborted) onTurnAbort();
  turn.signal.addEventListener("abort", onTurnAbort, { once: true });
  const deadline = setTimeout(
    () => controller.abort(new DOMException(`the Engine's tool time limit of ${env.config.limits.toolTimeoutMs} ms passed`, "TimeoutError")),
    env.config.limits.toolTimeoutMs,
  );
  const signal = controller.signal;
  const guard = guardsRepos(tool.capabilityId) ? env.repoGuard : undefined;
  await guard?.prime(turn.session.id, turn.session.workspace);
  const startedAt = Date.now();
  // The call leaves first; the client events are built while the capability works.
  const running = env.host.invoke(tool, args, {
    sessionId: turn.session.id,
    workspace: turn.session.workspace,
    signal,
    elicit: elicitThroughApproval(env, turn, record.callId, record.toolName),
    onChunk: (text) => {
      if (turn.state === "done") return;
      call.flushStart();
      turn.emit(env.bus, { eventType: T.ACTION_PROGRESS, actionProgress: { callId: record.callId, text } });
    },
  });
  call.startSoon(() => {
    call.announce();
    turn.emit(env.bus, {
      eventType: T.ACTION_STARTED,
      actionStarted: { callId: record.callId, toolName: tool.name, argumentsJson: record.argumentsJson, summary: summarize(`${tool.name} ${record.argumentsJson}`) },
    });
  });
  const outcome = await running.finally(() => {
    clearTimeout(deadline);
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
  const undone = (await guard?.check(turn.session.id, turn.session.workspace, startedAt).catch((err: unknown) => [`could not check the workspace's git repositories: ${(err as Error).message}`])) ?? [];
  const told = undone.length > 0 ? `\n\nPalisade ${undone.join("; ")}.` : "";
  if (outcome.ok) call.deliver(`${outcome.content}${told}`, false, { terminal: tool.terminalOnSuccess });
  else call.deliver(`${outcome.content || `${tool.name} failed: ${outcome.error ?? "unknown error"}`}${told}`, true, outcome.error ? { error: outcome.error } : {});
}

function runLoadTools(env: TurnEnv, call: CallContext, args: { groups: string[] }): void {
  const groups = env.host.groups();
  const known = new Set(groups.map((g) => g.name));
  const down = new Map(groups.flatMap((g) => (g.down ? [[g.name, g.down] as const] : [])));
  const ok = args.groups.filter((g) => known.has(g));
  const unknown = args.groups.filter((g) => !known.has(g));
  const loaded = loadedGroupsOf(env, call.turn.session.id);
  // A group that is down is loaded too: its tools come with the next turn once it is back.
  for (const g of ok) loaded.add(g);
  const up = ok.filter((g) => !down.has(g));
  const names = toolDefsOf(env, up).map((t) => t.name);
  const parts = [up.length > 0 ? `Loaded ${up.join(", ")}: ${names.join(", ")}.` : "No group loaded."];
  for (const g of ok) if (down.has(g)) parts.push(`Group ${g} is ${down.get(g) ?? "down"}.`);
  if (unknown.length > 0) parts.push(`Unknown groups: ${unknown.join(", ")}. Available: ${[...known].join(", ")}.`);
  call.deliver(parts.join(" "), up.length === 0);
}
