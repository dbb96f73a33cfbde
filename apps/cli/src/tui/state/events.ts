import { PipelineEventType } from "@palisade/protocol/pipeline";
import type { PipelineEvent, SubAgentEvent } from "@palisade/protocol/pipeline";
import type { ArtifactRef } from "@palisade/protocol/types";
import { choiceOf, decisionOf } from "../../format/decision.js";
import { newForm } from "./form.js";
import { stableSplitPoint } from "./split.js";
import { formatMs } from "../components/format.js";
import type {
  AssistantEntry,
  ChatState,
  Entry,
  NoticeEntry,
  SubAgentView,
  ThoughtEntry,
  ToolCardEntry,
} from "./types.js";

const PROGRESS_TAIL = 1200;

/** The banner while a cancel is on its way. */
export const CANCELLING = "cancelling…";

export function artifactsOf(refs: ArtifactRef[]): ToolCardEntry["artifacts"] {
  return refs.map((a) => ({
    id: a.artifactId,
    filename: a.filename,
    mimeType: a.mimeType,
    sizeBytes: Number(a.sizeBytes),
  }));
}

function newId(s: ChatState, prefix: string): [ChatState, string] {
  return [{ ...s, nextId: s.nextId + 1 }, `${prefix}${s.nextId}`];
}

export function notice(s: ChatState, level: NoticeEntry["level"], text: string): ChatState {
  const [s2, id] = newId(s, "n");
  const entry: NoticeEntry = { kind: "notice", id, level, text };
  return s2.turn ? { ...s2, live: [...s2.live, entry] } : { ...s2, committed: [...s2.committed, entry] };
}

/** Entries of the main transcript or of a sub-agent's. */
type Target = { entries: Entry[]; set: (s: ChatState, entries: Entry[]) => ChatState };

function targetFor(s: ChatState, subAgent: string | undefined): Target {
  if (subAgent) {
    return {
      entries: s.subAgents.find((a) => a.name === subAgent)?.entries ?? [],
      set: (st, entries) => upsertAgent(st, subAgent, (a) => ({ ...a, entries })),
    };
  }
  return { entries: s.live, set: (st, entries) => ({ ...st, live: entries }) };
}

function upsertAgent(s: ChatState, name: string, f: (a: SubAgentView) => SubAgentView): ChatState {
  const existing = s.subAgents.find((a) => a.name === name);
  const base: SubAgentView = existing ?? {
    name,
    task: "",
    state: "running",
    llmCalls: 0,
    toolCalls: 0,
    elapsedMs: 0,
    elapsedAt: s.now,
    resultExcerpt: "",
    error: "",
    entries: [],
  };
  const next = f(base);
  return { ...s, subAgents: existing ? s.subAgents.map((a) => (a.name === name ? next : a)) : [...s.subAgents, next] };
}

function appendText(s: ChatState, text: string, subAgent: string | undefined): ChatState {
  const t = targetFor(s, subAgent);
  const last = t.entries[t.entries.length - 1];
  if (last?.kind === "assistant" && last.streaming) {
    return t.set(s, [...t.entries.slice(0, -1), { ...last, text: last.text + text }]);
  }
  const [s2, id] = newId(s, "a");
  const entry: AssistantEntry = { kind: "assistant", id, text, streaming: true, continuation: false, subAgent };
  return t.set(s2, [...t.entries, entry]);
}

/** Reasoning of the main agent as it streams: one dimmed entry per stretch of thinking. */
function appendThought(s: ChatState, text: string): ChatState {
  const last = s.live[s.live.length - 1];
  if (last?.kind === "thought" && last.streaming)
    return { ...s, live: [...s.live.slice(0, -1), { ...last, text: last.text + text }] };
  const [s2, id] = newId(s, "r");
  const entry: ThoughtEntry = { kind: "thought", id, text, streaming: true };
  return { ...s2, live: [...stopStreaming(s2.live), entry] };
}

function stopStreaming(entries: Entry[]): Entry[] {
  return entries.map((e) =>
    (e.kind === "assistant" || e.kind === "thought") && e.streaming ? { ...e, streaming: false } : e,
  );
}

export function updateCard(
  s: ChatState,
  callId: string,
  subAgent: string | undefined,
  toolName: string,
  f: (c: ToolCardEntry) => ToolCardEntry,
): ChatState {
  // A sub-agent's card may be announced without its name on later events: look everywhere.
  const owner =
    subAgent ?? s.subAgents.find((a) => a.entries.some((e) => e.kind === "tool" && e.callId === callId))?.name;
  const t = targetFor(s, owner);
  const index = t.entries.findIndex((e) => e.kind === "tool" && e.callId === callId);
  if (index >= 0) {
    const entries = [...t.entries];
    entries[index] = f(entries[index] as ToolCardEntry);
    return t.set(s, entries);
  }
  // Already printed for good (the turn moved on): never print the call twice.
  if (!owner && s.committed.some((e) => e.kind === "tool" && e.callId === callId && e.id === `t-${callId}`)) return s;
  const card: ToolCardEntry = {
    kind: "tool",
    id: `t-${callId}`,
    callId,
    toolName,
    argumentsJson: "",
    subAgent: owner,
    phase: "proposed",
    progress: "",
    artifacts: [],
  };
  return t.set(s, [...stopStreaming(t.entries), f(card)]);
}

function subAgentUpdate(s: ChatState, e: SubAgentEvent, type: PipelineEventType): ChatState {
  const state: SubAgentView["state"] =
    type === PipelineEventType.SUB_AGENT_COMPLETED
      ? "completed"
      : type === PipelineEventType.SUB_AGENT_FAILED
        ? "failed"
        : type === PipelineEventType.SUB_AGENT_CANCELLED
          ? "cancelled"
          : "running";
  return upsertAgent(s, e.name, (a) => ({
    ...a,
    task: e.task || a.task,
    state,
    llmCalls: e.llmCalls || a.llmCalls,
    toolCalls: e.toolCalls || a.toolCalls,
    ...(Number(e.elapsedMs) ? { elapsedMs: Number(e.elapsedMs), elapsedAt: s.now } : {}),
    resultExcerpt: e.resultExcerpt || a.resultExcerpt,
    error: e.error || a.error,
    entries: state === "running" ? a.entries : stopStreaming(a.entries),
  }));
}

/** How long a sub-agent has run: what the Engine last reported, plus the time since while it runs. */
export function agentElapsedMs(a: SubAgentView, now: number): number {
  if (a.state !== "running" || a.elapsedAt === undefined) return a.elapsedMs;
  return a.elapsedMs + Math.max(0, now - a.elapsedAt);
}

/** One line on a sub-agent that ended: its state, duration and result or error. */
export function subAgentEnded(a: SubAgentView): string {
  const detail = a.state === "completed" ? a.resultExcerpt : a.error;
  return `sub-agent ${a.name} ${a.state} after ${formatMs(a.elapsedMs)}${detail ? `: ${detail.split("\n")[0]?.slice(0, 200) ?? ""}` : ""}`;
}

/** Moves settled entries of the live area to the committed (printed-once) transcript. */
export function settle(s: ChatState): ChatState {
  const live = [...s.live];
  const committed = [...s.committed];
  while (live.length > 0) {
    const first = live[0] as Entry;
    // Blocked and denied calls still get their ACTION_COMPLETED; keep them live until then.
    const unsettledCard =
      first.kind === "tool" &&
      (first.phase === "proposed" ||
        first.phase === "running" ||
        first.phase === "awaiting-approval" ||
        ((first.phase === "blocked" || first.phase === "denied") && first.durationMs === undefined));
    if (unsettledCard) break;
    if (first.kind === "thought" && first.streaming) break;
    if (first.kind === "assistant" && first.streaming) {
      const cut = stableSplitPoint(first.text);
      if (cut > 0) {
        committed.push({
          ...first,
          id: `${first.id}.${s.nextId}`,
          text: first.text.slice(0, cut).trimEnd(),
          streaming: false,
        });
        live[0] = { ...first, text: first.text.slice(cut), continuation: true };
      }
      break;
    }
    // A continuation that ended empty (the answer stopped at a paragraph break) is dropped.
    if (!(first.kind === "assistant" && first.text.trim() === "")) committed.push(first);
    live.shift();
  }
  return live.length === s.live.length && committed.length === s.committed.length
    ? s
    : { ...s, live, committed, nextId: s.nextId + 1 };
}

function turnUsage(s: ChatState, input: number, output: number): ChatState {
  const at = s.live.findLastIndex((e) => e.kind === "assistant" && !e.subAgent);
  if (at < 0) return s;
  const live = [...s.live];
  live[at] = { ...(live[at] as AssistantEntry), usage: { input, output } };
  return { ...s, live };
}

function endTurn(s: ChatState): ChatState {
  const live = stopStreaming(s.live)
    .filter((e) => !(e.kind === "assistant" && e.text.trim() === ""))
    .map((e) =>
      e.kind === "tool" && (e.phase === "proposed" || e.phase === "running" || e.phase === "awaiting-approval")
        ? { ...e, phase: "cancelled" as const }
        : e,
    );
  const turnApprovals = s.approvals.filter((a) => a.sessionId !== s.sessionId);
  // The turn is over: a "cancelling…" still on screen would say otherwise.
  const banner = s.banner?.text === CANCELLING ? undefined : s.banner;
  return { ...s, live: [], committed: [...s.committed, ...live], turn: undefined, approvals: turnApprovals, banner };
}

function isForUs(s: ChatState, ev: PipelineEvent): boolean {
  if (ev.eventType === PipelineEventType.MESSAGE_ACCEPTED) return true;
  if (!s.sessionId || !ev.sessionId) return true;
  return ev.sessionId === s.sessionId;
}

/** The banner of a failed turn, whose message is already in the transcript. */
export function failedBanner(code: string | undefined, recoverable: boolean): string {
  return `the turn failed${code ? ` (${code})` : ""}: see the message above${recoverable ? " · you can send your message again" : ""}`;
}

/** Applies one PipelineEvent of the current session to the chat state. */
export function applyEvent(s: ChatState, ev: PipelineEvent): ChatState {
  if (!isForUs(s, ev)) return s;
  const next = applyOne(s, ev);
  return next.turn ? settle(next) : next;
}

function applyOne(s: ChatState, ev: PipelineEvent): ChatState {
  switch (ev.eventType) {
    case PipelineEventType.MESSAGE_ACCEPTED: {
      const info = ev.messageAccepted?.session;
      const turn = s.turn ? { ...s.turn, messageId: ev.messageId || s.turn.messageId } : s.turn;
      return {
        ...s,
        turn,
        sessionId: info?.id || ev.sessionId || s.sessionId,
        sessionTitle: info?.title || s.sessionTitle,
        model: info?.model || s.model,
      };
    }
    case PipelineEventType.LLM_TOKEN: {
      const sub = ev.llmToken?.subAgentName || undefined;
      const st = s.turn && !sub && !s.turn.sawText ? { ...s, turn: { ...s.turn, sawText: true } } : s;
      // The answer begins: the reasoning before it is complete.
      const done = sub
        ? st
        : { ...st, live: st.live.map((e) => (e.kind === "thought" && e.streaming ? { ...e, streaming: false } : e)) };
      return appendText(done, ev.llmToken?.text ?? "", sub);
    }
    case PipelineEventType.THOUGHT: {
      const t = ev.thought;
      if (!t || t.subAgentName) return s;
      return t.stage === "reasoning" ? appendThought(s, t.text) : notice(s, "warn", t.text);
    }
    case PipelineEventType.ACTION_PROPOSED: {
      const p = ev.actionProposed;
      if (!p) return s;
      return updateCard(s, p.callId, p.subAgentName || undefined, p.toolName, (c) => ({
        ...c,
        toolName: p.toolName,
        argumentsJson: p.argumentsJson || c.argumentsJson,
        preview: p.preview || c.preview,
      }));
    }
    case PipelineEventType.SHIELD_VERDICT: {
      const v = ev.shieldVerdict;
      if (!v) return s;
      const decision = decisionOf(v.decision);
      return updateCard(s, v.callId, undefined, v.toolName, (c) => ({
        ...c,
        verdict: { decision, tier: v.tier, reason: v.reason, confidence: v.confidence, ruleIds: v.ruleIds },
        phase: decision === "block" ? "blocked" : decision === "escalate" ? "awaiting-approval" : c.phase,
      }));
    }
    case PipelineEventType.APPROVAL_NEEDED: {
      const a = ev.approvalNeeded;
      if (!a) return s;
      const queued = s.approvals.some((p) => p.approvalId === a.approvalId);
      const approvals = queued
        ? s.approvals
        : [
            ...s.approvals,
            {
              approvalId: a.approvalId,
              sessionId: ev.sessionId || s.sessionId || "",
              callId: a.callId,
              toolName: a.toolName,
              argumentsJson: a.argumentsJson,
              reason: a.reason,
              tier: a.tier,
              ruleIds: a.ruleIds,
              deadlineMs: Number(a.deadlineUnixMs),
              subAgent: a.subAgentName || undefined,
              grantScope: a.grantScope,
              preview: a.preview,
              ...(a.elicitation
                ? {
                    form: newForm(a.elicitation.capabilityId, a.elicitation.message, a.elicitation.requestedSchemaJson),
                  }
                : {}),
            },
          ];
      return updateCard({ ...s, approvals }, a.callId, a.subAgentName || undefined, a.toolName, (c) => ({
        ...c,
        argumentsJson: c.argumentsJson || a.argumentsJson,
        preview: c.preview || a.preview || undefined,
        phase: "awaiting-approval",
      }));
    }
    case PipelineEventType.APPROVAL_RESOLVED: {
      const r = ev.approvalResolved;
      if (!r) return s;
      const choice = choiceOf(r.decision);
      const approvals = s.approvals.filter((p) => p.approvalId !== r.approvalId);
      return updateCard({ ...s, approvals }, r.callId, undefined, "", (c) => ({
        ...c,
        approval: { choice, by: r.resolvedBy },
        phase: choice === "deny" ? "denied" : c.phase === "awaiting-approval" ? "proposed" : c.phase,
      }));
    }
    case PipelineEventType.ACTION_STARTED: {
      const a = ev.actionStarted;
      if (!a) return s;
      return updateCard(s, a.callId, a.subAgentName || undefined, a.toolName, (c) => ({
        ...c,
        toolName: a.toolName || c.toolName,
        argumentsJson: a.argumentsJson || c.argumentsJson,
        summary: a.summary || c.summary,
        phase: "running",
      }));
    }
    case PipelineEventType.ACTION_PROGRESS: {
      const p = ev.actionProgress;
      if (!p) return s;
      return updateCard(s, p.callId, undefined, "", (c) => ({
        ...c,
        progress: (c.progress + p.text).slice(-PROGRESS_TAIL),
      }));
    }
    case PipelineEventType.ACTION_COMPLETED: {
      const a = ev.actionCompleted;
      if (!a) return s;
      return updateCard(s, a.callId, a.subAgentName || undefined, a.toolName, (c) => ({
        ...c,
        toolName: a.toolName || c.toolName,
        argumentsJson: a.argumentsJson || c.argumentsJson,
        phase: a.success ? "done" : c.phase === "denied" || c.phase === "blocked" ? c.phase : "failed",
        resultSummary: a.resultSummary,
        error: a.error || undefined,
        durationMs: Number(a.durationMs),
        artifacts: artifactsOf(a.artifacts),
      }));
    }
    case PipelineEventType.OTR_BLOCKED: {
      const o = ev.otrBlocked;
      if (!o) return s;
      return updateCard(s, o.callId, undefined, o.toolName, (c) => ({ ...c, phase: "otr-blocked", error: o.reason }));
    }
    case PipelineEventType.RESPONSE_COMPLETE: {
      const r = ev.responseComplete;
      let st = s;
      // Engines that do not stream tokens still send the whole answer here.
      if (r?.content && !s.turn?.sawText) st = appendText(st, r.content, undefined);
      const usage = r?.usage;
      st = usage
        ? {
            ...st,
            tokens: { input: st.tokens.input + usage.inputTokens, output: st.tokens.output + usage.outputTokens },
          }
        : st;
      // What this turn cost in tokens, under its answer (the status line keeps the session's sum).
      return endTurn(
        usage && (usage.inputTokens || usage.outputTokens) ? turnUsage(st, usage.inputTokens, usage.outputTokens) : st,
      );
    }
    case PipelineEventType.ERROR: {
      const e = ev.pipelineError;
      const text = `${e?.message || "the turn failed"}${e?.code ? ` (${e.code})` : ""}${e?.recoverable ? " · you can send your message again" : ""}`;
      // The whole message goes in the transcript once; the banner only points at it.
      const st = notice(s, "error", text);
      return { ...endTurn(st), banner: { level: "error", text: failedBanner(e?.code, e?.recoverable ?? false) } };
    }
    case PipelineEventType.TURN_CANCELLED:
      return endTurn(
        notice(s, "warn", `turn cancelled${ev.turnCancelled?.reason ? `: ${ev.turnCancelled.reason}` : ""}`),
      );
    case PipelineEventType.SUB_AGENT_SPAWNED:
    case PipelineEventType.SUB_AGENT_PROGRESS:
    case PipelineEventType.SUB_AGENT_COMPLETED:
    case PipelineEventType.SUB_AGENT_FAILED:
    case PipelineEventType.SUB_AGENT_CANCELLED:
      return ev.subAgent ? subAgentUpdate(s, ev.subAgent, ev.eventType) : s;
    case PipelineEventType.MEMORY_FLUSHED:
      return notice(s, "info", "older turns were summarized to keep the context small");
    default:
      return s;
  }
}
