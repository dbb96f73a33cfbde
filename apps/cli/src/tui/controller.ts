import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { Code, RpcError } from "@palisade/protocol";
import { ElicitationAction, SessionMode } from "@palisade/protocol/types";
import type { FormAnswer } from "./state/form.js";
import type { StatusResponse, SubAgentEvent } from "@palisade/protocol/pipeline";
import { downloadArtifact } from "../commands/artifacts.js";
import type { EngineClient } from "../engine/connect.js";
import { describeRpcError, isUnavailable } from "../engine/errors.js";
import { shownMessage } from "../format/terminal-text.js";
import { choiceToProto } from "../format/decision.js";
import { update } from "./state/reducer.js";
import { attachMentions } from "./mentions.js";
import type { Action, ChatState, Effect, SubAgentView } from "./state/types.js";

/** Actions carrying text from the Engine: the model's, a tool's or a capability server's. */
const FROM_ENGINE = new Set<Action["type"]>([
  "event",
  "historyLoaded",
  "sessionsLoaded",
  "searchLoaded",
  "agentsLoaded",
  "modelsLoaded",
]);

/** How the chat reaches the Engine; `reconnect` re-discovers it (it may have restarted elsewhere). */
export interface EngineLink {
  client: EngineClient;
  reconnect(): Promise<EngineClient>;
  /**
   * Marks a call in flight on `client`; the function returned marks its end. A link that replaces
   * its client on reconnect closes the old one only after its calls ended.
   */
  hold?(client: EngineClient): () => void;
  close(): void;
}

export interface ControllerHooks {
  onExit(): void;
  clearScreen(): void;
  workspace: string;
  cwd: string;
  now?: () => number;
  /** Heartbeat period (GetStatus) used to notice a restarted Engine; 0 disables it. */
  heartbeatMs?: number;
  /** Called for each message sent (to keep input history); never for off-the-record ones. */
  remember?: (text: string) => void;
  /** What differs between the running Engine's setup and this chat's (lines to show), or undefined. */
  checkSetup?: () => Promise<string[] | undefined>;
  /** Restarts the Engine with this chat's config and environment; resolves to what it runs with now. */
  restartEngine?: () => Promise<string>;
}

/** A status from the Engine, with whether the config file it names exists here now. */
function statusAction(status: StatusResponse): Action {
  return { type: "status", status, configPresent: !status.configFile || existsSync(status.configFile) };
}

const FORM_ACTION = {
  accept: ElicitationAction.ACCEPT,
  decline: ElicitationAction.DECLINE,
  cancel: ElicitationAction.CANCEL,
} as const;

function formToProto(a: FormAnswer): { action: ElicitationAction; contentJson: string } {
  return { action: FORM_ACTION[a.action], contentJson: a.action === "accept" ? JSON.stringify(a.content) : "" };
}

function agentView(a: SubAgentEvent): SubAgentView {
  const state = (["running", "completed", "failed", "cancelled"] as const).find((s) => s === a.state) ?? "running";
  return {
    name: a.name,
    task: a.task,
    state,
    llmCalls: a.llmCalls,
    toolCalls: a.toolCalls,
    elapsedMs: Number(a.elapsedMs),
    resultExcerpt: a.resultExcerpt,
    error: a.error,
    entries: [],
  };
}

/**
 * The thin shell around the pure reducer: holds the state, performs effects over gRPC and
 * feeds their results back as actions. React reads it with useSyncExternalStore.
 */
export class ChatController {
  private state: ChatState;
  private readonly listeners = new Set<() => void>();
  private readonly streams = new Map<string, AbortController>();
  private timers: NodeJS.Timeout[] = [];
  private pendingSearch: NodeJS.Timeout | undefined;
  private reconnecting = false;
  private restarting = false;
  private lastNotice = "";
  private closed = false;
  /** Off-the-record sessions this chat holds: each is ended (deleted) once the chat leaves it. */
  private readonly offTheRecord = new Set<string>();
  private readonly now: () => number;

  constructor(
    private readonly link: EngineLink,
    initial: ChatState,
    private readonly hooks: ControllerHooks,
  ) {
    this.state = initial;
    this.now = hooks.now ?? Date.now;
    this.lastNotice = initial.engineNotice?.join("\n") ?? "";
  }

  getState = (): ChatState => this.state;

  subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };

  dispatch = (incoming: Action): void => {
    if (this.closed) return;
    // what the Engine sends (the model's text, tool output, titles) holds no raw terminal control
    const action = FROM_ENGINE.has(incoming.type) ? shownMessage(incoming) : incoming;
    const withTime = action.type === "key" || action.type === "event" ? this.withNow() : this.state;
    const { state, effects } = update(withTime, action);
    if (state !== this.state) {
      this.state = state;
      this.leaveOffTheRecord(state);
      for (const l of this.listeners) l();
    }
    for (const e of effects) this.schedule(e);
  };

  /**
   * An off-the-record session lives in the Engine's memory (its conversation and artifacts) until
   * it is deleted: the chat ends it when it moves to another session (/otr, /new, /resume) and
   * when it closes (endOffTheRecord).
   */
  private leaveOffTheRecord(s: ChatState): void {
    if (s.otr && s.sessionId) this.offTheRecord.add(s.sessionId);
    for (const id of this.offTheRecord) {
      if (id === s.sessionId) continue;
      this.offTheRecord.delete(id);
      void this.link.client.deleteSession({ sessionId: id }, { timeoutMs: 5_000 }).catch(() => undefined);
    }
  }

  /** Ends the off-the-record sessions still held; called before the chat closes. */
  async endOffTheRecord(): Promise<void> {
    const ids = [...this.offTheRecord];
    this.offTheRecord.clear();
    await Promise.all(
      ids.map((sessionId) =>
        this.link.client.deleteSession({ sessionId }, { timeoutMs: 3_000 }).catch(() => undefined),
      ),
    );
  }

  /** Runs an effect; a debounced search replaces the one still waiting (and a session listing cancels it). */
  private schedule(e: Effect): void {
    if (e.type === "search" || e.type === "listSessions") {
      clearTimeout(this.pendingSearch);
      this.pendingSearch = undefined;
    }
    if (e.type === "search" && e.debounceMs) {
      this.pendingSearch = setTimeout(() => {
        this.pendingSearch = undefined;
        if (!this.closed) void this.perform(e);
      }, e.debounceMs);
      return;
    }
    void this.perform(e);
  }

  private withNow(): ChatState {
    return { ...this.state, now: this.now() };
  }

  start(): void {
    let n = 0;
    this.timers.push(
      setInterval(() => {
        n++;
        const s = this.state;
        const busy =
          s.turn !== undefined ||
          s.approvals.length > 0 ||
          s.banner?.until !== undefined ||
          s.ctrlCArmedAt !== undefined;
        if (busy || n % 4 === 0) this.dispatch({ type: "tick", now: this.now() });
      }, 250),
    );
    const hb = this.hooks.heartbeatMs ?? 3000;
    if (hb > 0) this.timers.push(setInterval(() => void this.heartbeat(), hb));
    void this.heartbeat();
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers) clearInterval(t);
    clearTimeout(this.pendingSearch);
    for (const a of this.streams.values()) a.abort();
    this.link.close();
  }

  private async heartbeat(): Promise<void> {
    if (this.reconnecting || this.restarting || this.closed) return;
    try {
      const status = await this.link.client.getStatus({}, { timeoutMs: 2500 });
      if (this.state.connection !== "connected") this.dispatch({ type: "connection", state: "connected" });
      this.dispatch(statusAction(status));
      await this.refreshNotice();
      await this.pollBackgroundAgents();
    } catch (err) {
      if (isUnavailable(err)) void this.reconnect(describeRpcError(err));
    }
  }

  /**
   * Sub-agents still running after their turn ended report their end on no stream the chat
   * holds; between turns their state is asked for instead, so their line shows when they finish.
   */
  private async pollBackgroundAgents(): Promise<void> {
    const s = this.state;
    if (s.turn || !s.sessionId || !s.subAgents.some((a) => a.state === "running")) return;
    const res = await this.link.client.listSubAgents({ sessionId: s.sessionId }, { timeoutMs: 2500 });
    if (this.state.sessionId === s.sessionId && !this.state.turn)
      this.dispatch({ type: "agentsLoaded", agents: res.agents.map(agentView) });
  }

  /** Shows (or clears) the notice that the running Engine started with another setup. */
  private async refreshNotice(): Promise<void> {
    const lines = await this.hooks.checkSetup?.().catch(() => undefined);
    const key = lines?.join("\n") ?? "";
    if (key === this.lastNotice || this.closed) return;
    this.lastNotice = key;
    this.dispatch({ type: "engineNotice", lines });
  }

  private async restartEngine(): Promise<void> {
    const restart = this.hooks.restartEngine;
    if (!restart)
      return this.dispatch({
        type: "failed",
        what: "restart",
        message: "restarting the Engine is not available here; run 'palisade engine restart'",
      });
    this.restarting = true;
    this.dispatch({ type: "connection", state: "reconnecting", detail: "restarting the Engine" });
    try {
      const summary = await restart();
      await this.link.reconnect();
      const status = await this.link.client.getStatus({}, { timeoutMs: 5000 });
      this.dispatch({ type: "connection", state: "connected" });
      this.dispatch(statusAction(status));
      this.dispatch({ type: "engineRestarted", summary });
    } catch (err) {
      this.dispatch({
        type: "failed",
        what: "restart",
        message: err instanceof Error ? err.message.split("\n").join(" ") : String(err),
      });
    } finally {
      this.restarting = false;
    }
    await this.refreshNotice();
    void this.heartbeat();
  }

  /** Re-discovers the Engine until it answers; typed text stays in the editor meanwhile. */
  private async reconnect(detail: string): Promise<void> {
    if (this.reconnecting || this.closed) return;
    this.reconnecting = true;
    this.dispatch({ type: "connection", state: "reconnecting", detail });
    let delay = 200;
    while (!this.closed) {
      try {
        await this.link.reconnect();
        const status = await this.link.client.getStatus({}, { timeoutMs: 2500 });
        this.reconnecting = false;
        this.dispatch({ type: "connection", state: "connected" });
        this.dispatch(statusAction(status));
        return;
      } catch {
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, 2000);
      }
    }
  }

  private fail(what: string, err: unknown): void {
    if (isUnavailable(err)) void this.reconnect(describeRpcError(err));
    this.dispatch({ type: "failed", what, message: describeRpcError(err) });
  }

  /** The client to call now, marked in use until the returned release is called. */
  private take(): { client: EngineClient; release: () => void } {
    const client = this.link.client;
    return { client, release: this.link.hold?.(client) ?? (() => undefined) };
  }

  private async perform(e: Effect): Promise<void> {
    const { client, release } = this.take();
    try {
      switch (e.type) {
        case "send":
          return await this.send(e);
        case "cancel": {
          const res = await client.cancelMessage(
            { sessionId: e.sessionId, messageId: e.messageId },
            { timeoutMs: 5000 },
          );
          if (!res.cancelled)
            this.dispatch({ type: "failed", what: "cancel", message: res.message || "the turn had already finished" });
          return;
        }
        case "resolveApproval": {
          const ack = await client.resolveApproval(
            {
              approvalId: e.approvalId,
              decision: choiceToProto(e.choice),
              sessionId: e.sessionId,
              reason: e.reason ?? "",
              ...(e.form ? { elicitation: formToProto(e.form) } : {}),
            },
            { timeoutMs: 5000 },
          );
          if (!ack.accepted)
            this.dispatch({
              type: "failed",
              what: "approval",
              message: ack.message || "the Engine did not accept the answer (already decided or timed out)",
            });
          return;
        }
        case "listSessions": {
          const res = await client.listSessions(
            { limit: 50, offset: e.offset, titleFilter: e.filter },
            { timeoutMs: 5000 },
          );
          this.dispatch({ type: "sessionsLoaded", items: res.sessions, total: res.total, offset: e.offset });
          return;
        }
        case "loadHistory": {
          const res = await client.getHistory(
            { sessionId: e.sessionId, limit: e.purpose === "resume" ? 40 : 50, cursor: e.cursor },
            { timeoutMs: 10_000 },
          );
          this.dispatch({
            type: "historyLoaded",
            purpose: e.purpose,
            sessionId: e.sessionId,
            session: res.session,
            messages: res.messages,
            nextCursor: res.nextCursor,
            cursor: e.cursor,
          });
          return;
        }
        case "resolvePrefix":
          return await this.resolvePrefix(e.prefix);
        case "search": {
          const res = await client.searchSessions({ query: e.query, limit: 50 }, { timeoutMs: 10_000 });
          this.dispatch({ type: "searchLoaded", query: e.query, hits: res.hits, total: res.total });
          return;
        }
        case "loadStatus": {
          const status = await client.getStatus({}, { timeoutMs: 5000 });
          this.dispatch(statusAction(status));
          return;
        }
        case "loadTools": {
          const res = await client.listTools({ sessionId: this.state.sessionId ?? "" }, { timeoutMs: 5000 });
          this.dispatch({ type: "toolsLoaded", tools: res.tools });
          return;
        }
        case "listModels": {
          const res = await client.listModels({}, { timeoutMs: 15_000 });
          this.dispatch({
            type: "modelsLoaded",
            models: res.models,
            configured: res.configured,
            answered: res.answered,
            error: res.error,
            baseUrl: res.baseUrl,
          });
          return;
        }
        case "loadAgents": {
          const res = this.state.sessionId
            ? await client.listSubAgents({ sessionId: this.state.sessionId }, { timeoutMs: 5000 })
            : { agents: [] };
          this.dispatch({ type: "agentsLoaded", agents: res.agents.map(agentView) });
          return;
        }
        case "export": {
          const res = await client.exportSession({ sessionId: e.sessionId, format: e.format }, { timeoutMs: 30_000 });
          const name = e.file ?? (res.filename || `palisade-${e.sessionId.slice(0, 8)}.${e.format}`);
          const file = isAbsolute(name) ? name : join(this.hooks.cwd, name);
          await writeFile(file, res.content);
          this.dispatch({ type: "exported", file, bytes: Buffer.byteLength(res.content) });
          return;
        }
        case "deleteSession": {
          const res = await client.deleteSession({ sessionId: e.sessionId }, { timeoutMs: 10_000 });
          if (res.deleted) this.dispatch({ type: "sessionDeleted", sessionId: e.sessionId });
          else
            this.dispatch({ type: "failed", what: "delete", message: "the Engine did not delete it (already gone?)" });
          return;
        }
        case "saveArtifact": {
          const dir = e.dir === undefined ? this.hooks.cwd : isAbsolute(e.dir) ? e.dir : join(this.hooks.cwd, e.dir);
          const file = await downloadArtifact(client, e.sessionId, e.artifactId, dir);
          this.dispatch({ type: "artifactSaved", file });
          return;
        }
        case "restartEngine":
          return await this.restartEngine();
        case "clearScreen":
          this.hooks.clearScreen();
          return;
        case "exit":
          this.hooks.onExit();
          return;
      }
    } catch (err) {
      this.fail(e.type === "resolveApproval" ? "approval" : e.type, err);
    } finally {
      release();
    }
  }

  private async resolvePrefix(prefix: string): Promise<void> {
    const res = await this.link.client.listSessions({ limit: 1000 }, { timeoutMs: 5000 });
    // Lists show ids with or without their `ses_` prefix; either is accepted.
    const matches = res.sessions.filter((s) => s.id.startsWith(prefix) || s.id.startsWith(`ses_${prefix}`));
    if (matches.length === 1) this.dispatch({ type: "prefixResolved", sessionId: (matches[0] as { id: string }).id });
    else if (matches.length === 0)
      this.dispatch({
        type: "failed",
        what: "resume",
        message: `no stored session id starts with “${prefix}” (see /sessions)`,
      });
    else
      this.dispatch({
        type: "failed",
        what: "resume",
        message: `“${prefix}” matches ${matches.length} sessions (${matches
          .slice(0, 3)
          .map((m) => m.id.slice(0, 8))
          .join(", ")}…); type more of the id`,
      });
  }

  private async send(e: Extract<Effect, { type: "send" }>): Promise<void> {
    const abort = new AbortController();
    let release = (): void => undefined;
    this.streams.set(e.clientMessageId, abort);
    // The input history keeps what the box showed (a large paste stays its placeholder).
    if (!e.otr) this.hooks.remember?.(e.display);
    try {
      const attached = await attachMentions(e.text, this.hooks.workspace, abort.signal);
      for (const note of attached.notes) this.dispatch({ type: "mention", clientMessageId: e.clientMessageId, note });
      const taken = this.take();
      release = taken.release;
      const stream = taken.client.sendMessage(
        {
          content: attached.text,
          sessionId: e.sessionId ?? "",
          mode: e.otr ? SessionMode.OTR : SessionMode.NORMAL,
          source: "cli",
          clientMessageId: e.clientMessageId,
          workspace: this.hooks.workspace,
          model: e.model,
        },
        { signal: abort.signal },
      );
      for await (const event of stream) this.dispatch({ type: "event", event });
      this.dispatch({ type: "streamEnded", clientMessageId: e.clientMessageId });
    } catch (err) {
      if (this.closed) return;
      if (err instanceof RpcError && err.code === Code.RESOURCE_EXHAUSTED) {
        const limit = /limit of (\d+) bytes/.exec(err.message)?.[1];
        this.dispatch({
          type: "tooLarge",
          clientMessageId: e.clientMessageId,
          bytes: Buffer.byteLength(e.text),
          limitBytes: limit ? Number(limit) : undefined,
        });
        return;
      }
      const lost = isUnavailable(err);
      const message = lost
        ? "lost the Engine during this turn; it may have finished there (see /sessions once reconnected)"
        : `the turn failed: ${describeRpcError(err)}`;
      this.dispatch({ type: "streamEnded", clientMessageId: e.clientMessageId, error: message });
      if (lost) void this.reconnect(describeRpcError(err));
    } finally {
      release();
      this.streams.delete(e.clientMessageId);
    }
  }
}
