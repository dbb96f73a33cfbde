// Turns: accept a user message, hand it to the Agent, route the Agent's events to the right
// turn, commit the turn's rows, then announce the end. Turns of one session run one after the
// other; turns of different sessions run concurrently.
import { randomUUID } from "node:crypto";
import { Code, RpcError } from "@palisade/protocol";
import { PipelineEventType } from "@palisade/protocol/pipeline";
import type { AgentEvent, AgentResponseComplete } from "@palisade/protocol/pipeline";
import { modelServerNamed } from "../agent/model-label.js";
import { addUsage, modeToProto, sessionToProto, usageToProto } from "../history/convert.js";
import { isTerminal } from "../events.js";
import type { EventInit, Subscription } from "../events.js";
import type { MessageRecord, Mode, SessionRecord } from "../ports.js";
import { sessionModel, titleFrom } from "../history/sessions.js";
import type { SessionDirectory } from "../history/sessions.js";
import { buildSystemPrompt } from "./context.js";
import { answerToolDefsRequest } from "./tool-defs-request.js";
import { restoreLoadedGroups, toolDefsOf } from "../calls/tool-defs.js";
import type { TurnEnv } from "./env.js";
import { AgentHistory } from "./history-sync.js";
import { runTurnToolCall } from "./tool-call.js";
import { replayProvenance } from "./provenance-replay.js";
import { Turn } from "../history/turn.js";

const T = PipelineEventType;

export type TurnEnd =
  | { kind: "complete"; reply: AgentResponseComplete }
  | { kind: "error"; code: string; message: string; recoverable: boolean }
  | { kind: "cancelled"; reason: string };

export interface SubmitRequest {
  content: string;
  sessionId: string;
  mode: Mode;
  source: string;
  clientMessageId: string;
  workspace: string;
  model: string;
}

export interface AgentAvailability {
  /** Undefined when an Agent is (or will soon be) available, else why not. */
  unavailable(): string | undefined;
  /** Starts an Agent stopped while idle (before a turn waits for it); resolves once the old one is gone. */
  wake?(): Promise<void>;
  waitMs: number;
}

export class TurnManager {
  private readonly active = new Map<string, Turn>();
  private readonly chains = new Map<string, Promise<void>>();
  private readonly recent = new Map<string, Turn>();
  /** What of each conversation the connected Agent holds (ProcessRequest sends only the rest). */
  readonly agentHistory = new AgentHistory();
  private accepting = true;

  constructor(
    private readonly env: TurnEnv,
    private readonly sessions: SessionDirectory,
    private readonly agent: AgentAvailability,
  ) {}

  get activeTurns(): Turn[] {
    return [...this.active.values()];
  }

  activeSessionCount(): number {
    return new Set(this.activeTurns.map((t) => t.session.id)).size;
  }

  /** True while a turn of the session is queued or running. */
  hasTurns(sessionId: string): boolean {
    return this.chains.has(sessionId) || this.activeTurns.some((t) => t.session.id === sessionId);
  }

  /** A new Agent connection: it holds no conversation yet. */
  agentConnected(): void {
    this.agentHistory.connected();
  }

  /** Forgets the session's recent client message ids (a retry after the session was idle starts a new turn) and what the Agent holds of it. */
  forgetSession(sessionId: string): void {
    this.agentHistory.forget(sessionId);
    const prefix = `${sessionId}/`;
    for (const key of [...this.recent.keys()]) if (key.startsWith(prefix)) this.recent.delete(key);
  }

  /** Turns remembered for client message ids. */
  get recentCount(): number {
    return this.recent.size;
  }

  /** Accepts a message; the returned subscription yields this turn's events and ends after its last. */
  async submit(req: SubmitRequest): Promise<{ turn: Turn; events: Subscription }> {
    if (!this.accepting)
      throw new RpcError(Code.UNAVAILABLE, "the Engine is shutting down and accepts no new messages");
    if (!req.content.trim())
      throw new RpcError(Code.INVALID_ARGUMENT, "content is empty: send the text of the user's message");
    const session = req.sessionId
      ? await this.sessions.get(req.sessionId)
      : await this.sessions.create({ mode: req.mode, workspace: req.workspace, model: req.model });
    if (!session)
      throw new RpcError(
        Code.NOT_FOUND,
        `session ${req.sessionId} does not exist: omit session_id to start one, or use CreateSession`,
      );
    // A model asked for with the message (the chat's /model) is used for it, also in a stored
    // session. Otherwise a session that did not choose its model follows the configured one, and
    // records it (lists and exports show the model its turns ran with).
    if (req.model) {
      session.model = req.model;
      session.modelChosen = true;
    } else if (!session.modelChosen && session.model !== this.env.config.model.name) {
      session.model = this.env.config.model.name;
      if (session.mode !== "otr") await this.env.store.recordSessionModel(session.id, session.model);
    }
    if (req.clientMessageId) {
      const prior = this.recent.get(`${session.id}/${req.clientMessageId}`);
      if (prior) return { turn: prior, events: this.follow(prior) };
    }
    // Several Engines on one database: a session another Engine serves is continued there.
    const owner = session.mode === "otr" ? "" : ((await this.env.store.sessionOwner?.(session.id)) ?? "");
    if (owner)
      throw new RpcError(
        Code.FAILED_PRECONDITION,
        `session ${session.id} is served by ${owner}: continue it there, or send again once that lease has run out`,
      );
    if (!this.env.bus.isPrimed(session.id))
      this.env.bus.prime(session.id, session.mode === "otr" ? 0 : await this.env.store.lastEventSeq(session.id));

    // what the user wrote is theirs: the Shield tells their destinations from others'
    if (session.mode !== "otr") await replayProvenance(this.env, session.id, session.workspace);
    this.env.shield.observe?.({ sessionId: session.id, kind: "user-message", text: req.content });
    const turn = new Turn(
      session,
      `msg_${randomUUID()}`,
      `msg_${randomUUID()}`,
      req.content,
      Date.now(),
      req.clientMessageId,
    );
    this.active.set(turn.messageId, turn);
    if (req.clientMessageId) this.remember(turn);
    const events = this.follow(turn);
    turn.emit(this.env.bus, {
      eventType: T.MESSAGE_ACCEPTED,
      messageAccepted: { session: sessionToProto(session), userMessageId: turn.userMessageId },
    });

    const previous = this.chains.get(session.id) ?? Promise.resolve();
    const next = previous.then(() => this.run(turn, req.source));
    this.chains.set(session.id, next);
    void next.finally(() => {
      if (this.chains.get(session.id) === next) this.chains.delete(session.id);
    });
    return { turn, events };
  }

  /** A subscription to one turn's events: replays what it already emitted, then follows it. */
  private follow(turn: Turn): Subscription {
    const seen = new Set<bigint>();
    const sub = this.env.bus.subscribe(turn.session.id, (ev) => ev.messageId === turn.messageId && !seen.has(ev.seq));
    const replay = [...turn.replay];
    const close = (): void => sub.close();
    return {
      close,
      async *[Symbol.asyncIterator]() {
        for (const ev of replay) {
          seen.add(ev.seq);
          yield ev;
          if (isTerminal(ev)) return close();
        }
        for await (const ev of sub) {
          yield ev;
          if (isTerminal(ev)) break;
        }
        close();
      },
    };
  }

  private remember(turn: Turn): void {
    this.recent.set(`${turn.session.id}/${turn.clientMessageId}`, turn);
    if (this.recent.size > 500) this.recent.delete(this.recent.keys().next().value as string);
  }

  private async run(turn: Turn, source: string): Promise<void> {
    if (turn.state !== "queued") return; // cancelled while queued
    turn.state = "running";
    if (turn.session.mode !== "otr" && this.env.store.claimSession) {
      try {
        const claim = await this.env.store.claimSession(turn.session.id, {
          userMessageId: turn.userMessageId,
          content: turn.content,
          createdAt: turn.createdAt,
        });
        if (!claim.ok) {
          return this.finish(turn, {
            kind: "error",
            code: "SESSION_OWNED",
            message: `session ${turn.session.id} is served by ${claim.owner}: continue it there, or send again once that lease has run out`,
            recoverable: true,
          });
        }
      } catch (err) {
        return this.finish(turn, {
          kind: "error",
          code: "STORE_FAILED",
          message: `could not take the session for this turn: ${(err as Error).message}`,
          recoverable: true,
        });
      }
    }
    const why = this.agent.unavailable();
    if (why) return this.finish(turn, { kind: "error", code: "AGENT_UNAVAILABLE", message: why, recoverable: false });
    await this.agent.wake?.();
    try {
      await this.env.link.waitConnected(this.agent.waitMs, turn.signal);
    } catch (err) {
      if (turn.signal.aborted) return;
      const detail = this.agent.unavailable() ?? (err as Error).message;
      return this.finish(turn, {
        kind: "error",
        code: "AGENT_UNAVAILABLE",
        message: `the Agent is not available: ${detail}`,
        recoverable: true,
      });
    }
    turn.source = source;
    await this.sendProcess(turn, false);
    await turn.done;
  }

  /** Sends the turn's ProcessRequest; `whole`: with the whole conversation, whatever the Agent holds. */
  private async sendProcess(turn: Turn, whole: boolean): Promise<void> {
    try {
      const request = await this.processRequest(turn, whole);
      const sent = turn.state === "running" && this.env.link.send({ directive: { case: "process", value: request } });
      // Not sent: the Agent did not get what the Engine now assumes it holds.
      if (!sent) this.agentHistory.forget(turn.session.id);
      if (turn.state !== "running") return;
      if (!sent) {
        return this.finish(turn, {
          kind: "error",
          code: "AGENT_UNAVAILABLE",
          message: "the Agent disconnected before the message could be sent",
          recoverable: true,
        });
      }
    } catch (err) {
      this.agentHistory.forget(turn.session.id);
      return this.finish(turn, {
        kind: "error",
        code: "CONTEXT_FAILED",
        message: `could not prepare the conversation: ${(err as Error).message}`,
        recoverable: true,
      });
    }
  }

  private async processRequest(turn: Turn, whole: boolean) {
    const { session } = turn;
    const env = this.env;
    const messages = await this.sessions.messages(session);
    const memory =
      session.mode === "otr" ? { facts: [], summary: "", compactedMessages: 0 } : await env.store.memory(session.id);
    const loaded = restoreLoadedGroups(env, session.id, messages);
    const systemPrompt = buildSystemPrompt({
      agentName: env.config.agent.name,
      workspace: session.workspace,
      mode: session.mode,
      groups: env.host.groups(),
      capabilityPrompts: env.host.prompts([...loaded]),
      facts: memory.facts,
    });
    const definitions = { systemPrompt, loadedGroups: [...loaded], tools: toolDefsOf(env, loaded) };
    return {
      sessionId: session.id,
      messageId: turn.messageId,
      content: turn.content,
      mode: modeToProto(session.mode),
      source: turn.source,
      ...this.agentHistory.next(session.id, messages, memory, definitions, whole),
      model: sessionModel(session, env.config.model.name),
      maxToolRounds: env.config.limits.maxToolRounds,
    };
  }

  /** Routes one event from the Agent stream. */
  onAgentEvent(ev: AgentEvent): void {
    const e = ev.event;
    switch (e.case) {
      case "llmTokenEmitted": {
        const turn = this.running(e.value.messageId);
        if (!turn) return;
        turn.text += e.value.text;
        turn.emit(this.env.bus, { eventType: T.LLM_TOKEN, llmToken: { text: e.value.text } });
        return;
      }
      case "thoughtEmitted": {
        const turn = this.running(e.value.messageId);
        if (!turn) return;
        turn.emit(this.env.bus, { eventType: T.THOUGHT, thought: { stage: e.value.stage, text: e.value.text } });
        return;
      }
      case "toolProposal": {
        const turn = this.running(e.value.messageId);
        if (!turn) {
          this.env.link.send({
            directive: {
              case: "toolResult",
              value: {
                callId: e.value.callId,
                content: "This turn has ended.",
                isError: true,
                sessionId: e.value.sessionId,
                messageId: e.value.messageId,
              },
            },
          });
          return;
        }
        turn.track(runTurnToolCall(this.env, turn, e.value));
        return;
      }
      case "toolDefsRequest": {
        const turn = this.active.get(e.value.messageId);
        answerToolDefsRequest(this.env, turn, e.value).catch((err: unknown) =>
          this.env.log(`load_tools failed: ${(err as Error).message}`),
        );
        return;
      }
      case "memoryFlush": {
        const turn = this.active.get(e.value.messageId);
        const mf = e.value;
        if (turn?.otr || this.sessions.isOtr(mf.sessionId)) return; // off the record: remember nothing
        this.env.store
          .saveMemory({
            sessionId: mf.sessionId,
            messageId: mf.messageId,
            content: mf.content,
            summary: mf.summary,
            compactedMessages: mf.compactedMessages,
          })
          .catch((err: unknown) => this.env.log(`storing a memory flush failed: ${(err as Error).message}`));
        if (turn) turn.emit(this.env.bus, { eventType: T.MEMORY_FLUSHED });
        return;
      }
      case "historyNeeded": {
        const turn = this.running(e.value.messageId);
        if (!turn || turn.session.id !== e.value.sessionId) return;
        // Once per turn: the second request carried the whole conversation, so a second answer
        // like this one is the Agent failing, not a gap in its copy.
        if (turn.historyResent) {
          void this.finish(turn, {
            kind: "error",
            code: "AGENT_ERROR",
            message: `the Agent asked for the conversation again after it was sent whole (${e.value.reason})`,
            recoverable: true,
          });
          return;
        }
        turn.historyResent = true;
        void this.sendProcess(turn, true);
        return;
      }
      case "responseComplete": {
        const turn = this.running(e.value.messageId);
        if (!turn) return;
        // The last burst of tokens came with the end: clients get it as a token, as they would have.
        if (e.value.lastText) {
          turn.text += e.value.lastText;
          turn.emit(this.env.bus, { eventType: T.LLM_TOKEN, llmToken: { text: e.value.lastText } });
        }
        void this.finish(turn, { kind: "complete", reply: e.value });
        return;
      }
      case "agentError": {
        const turn = this.running(e.value.messageId);
        // The Agent names the model server by a label: the user reads its URL (no credentials).
        const message = modelServerNamed(e.value.message, this.env.config.model.baseUrl);
        if (turn)
          void this.finish(turn, {
            kind: "error",
            code: e.value.code || "AGENT_ERROR",
            message,
            recoverable: e.value.recoverable,
          });
        return;
      }
      default:
        return;
    }
  }

  private running(messageId: string): Turn | undefined {
    const turn = this.active.get(messageId);
    return turn && turn.state === "running" ? turn : undefined;
  }

  /** The Agent went away: every turn it was working on ends with a recoverable error. */
  onAgentLost(reason: string): void {
    for (const turn of this.activeTurns) {
      if (turn.state !== "running") continue;
      void this.finish(turn, {
        kind: "error",
        code: "AGENT_CRASHED",
        message: `the Agent stopped while answering (${reason}); it is being restarted, send the message again`,
        recoverable: true,
      });
    }
  }

  /** Cancels the turn `messageId` (or the session's current one). Returns false when nothing ran. */
  cancel(sessionId: string, messageId: string, reason = "cancelled by the user"): boolean {
    const turn = messageId
      ? this.active.get(messageId)
      : this.activeTurns.find((t) => t.session.id === sessionId && t.state !== "queued");
    if (!turn || turn.session.id !== sessionId || turn.state === "done" || turn.state === "finishing") return false;
    this.env.link.send({ directive: { case: "cancel", value: { sessionId, messageId: turn.messageId, reason } } });
    void this.finish(turn, { kind: "cancelled", reason });
    return true;
  }

  async finish(turn: Turn, end: TurnEnd): Promise<void> {
    if (turn.state === "done" || turn.state === "finishing") return;
    turn.state = "finishing";
    if (end.kind !== "complete") turn.abort.abort(new Error(end.kind === "error" ? end.message : end.reason));
    await settle(turn, end.kind === "complete" ? 30_000 : 2_000);

    const env = this.env;
    const { session } = turn;
    const now = Date.now();
    const reply = end.kind === "complete" ? end.reply : undefined;
    const usage = reply?.usage ? addUsage(session.usage, reply.usage) : session.usage;
    // A cancelled turn keeps what was streamed: history shows what its clients saw (a restart cuts turns too).
    const content = reply ? reply.content || turn.text : end.kind === "cancelled" ? turn.text : "";
    const terminal: EventInit =
      end.kind === "complete"
        ? {
            sessionId: session.id,
            messageId: turn.messageId,
            eventType: T.RESPONSE_COMPLETE,
            responseComplete: {
              content,
              ...(reply?.usage ? { usage: usageToProto(addUsage(turn.usage, reply.usage)) } : {}),
              thoughts: reply?.thoughts ?? [],
              assistantMessageId: turn.messageId,
            },
          }
        : end.kind === "error"
          ? {
              sessionId: session.id,
              messageId: turn.messageId,
              eventType: T.ERROR,
              pipelineError: { code: end.code, message: end.message, recoverable: end.recoverable },
            }
          : {
              sessionId: session.id,
              messageId: turn.messageId,
              eventType: T.TURN_CANCELLED,
              turnCancelled: { reason: end.reason },
            };
    let last = env.bus.prepare(terminal);
    turn.keep(last);

    const hasAssistant = content !== "" || turn.toolCalls.length > 0;
    const title = session.title ? undefined : titleFrom(turn.content);
    const user = { id: turn.userMessageId, content: turn.content, createdAt: turn.createdAt };
    const assistant = hasAssistant
      ? {
          id: turn.messageId,
          content,
          createdAt: now,
          usage: reply?.usage ? addUsage(turn.usage, reply.usage) : turn.usage,
        }
      : undefined;
    let nameIt = false;
    try {
      if (session.mode === "otr") {
        this.sessions.appendOtr(session.id, otrMessages(session, user, assistant, turn));
      } else {
        const audit = env.audit?.takeForCommit() ?? []; // one transaction and one fsync for the turn and its audit entries
        await env.store.commitTurn({
          session: { ...session, updatedAt: now, usage, ...(title ? { title } : {}) },
          status: end.kind === "complete" ? "completed" : end.kind === "error" ? "error" : "cancelled",
          user,
          ...(assistant ? { assistant } : {}),
          toolCalls: turn.toolCalls,
          events: turn.events,
          ...(title ? { title } : {}),
          ...(audit.length > 0 ? { audit } : {}),
        });
      }
      if (session.mode !== "otr")
        await env.store
          .finishTurn?.(session.id)
          .catch((err: unknown) => env.log(`lease of ${session.id} not shortened: ${(err as Error).message}`));
      if (title) session.title = title;
      nameIt = Boolean(title) && end.kind === "complete" && !turn.otr;
      session.updatedAt = now;
      session.usage = usage;
      session.messageCount += hasAssistant ? 2 : 1;
    } catch (err) {
      env.log(`commit of ${turn.messageId} failed: ${(err as Error).stack ?? String(err)}`);
      last = env.bus.prepare({
        sessionId: session.id,
        messageId: turn.messageId,
        eventType: T.ERROR,
        pipelineError: {
          code: "STORE_FAILED",
          message: `the turn could not be saved: ${(err as Error).message}`,
          recoverable: false,
        },
      });
      turn.keep(last);
    }
    turn.markDone();
    this.active.delete(turn.messageId);
    env.bus.publish(last);
    // After RESPONSE_COMPLETE went out: the title call never delays it.
    if (nameIt) env.titles?.request(session, turn.content, content);
  }

  /** Stops accepting; waits for running turns up to `deadlineMs`, then cancels the rest. */
  async drain(deadlineMs: number): Promise<void> {
    this.accepting = false;
    const all = Promise.all(this.activeTurns.map((t) => t.done));
    const timer = new Promise<void>((r) => setTimeout(r, deadlineMs).unref());
    await Promise.race([all, timer]);
    for (const t of this.activeTurns) this.cancel(t.session.id, t.messageId, "the Engine is shutting down");
    await Promise.all(this.activeTurns.map((t) => t.done));
  }
}

async function settle(turn: Turn, maxMs: number): Promise<void> {
  if (turn.inFlight.size === 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.allSettled([...turn.inFlight]),
    new Promise<void>((r) => (timer = setTimeout(r, maxMs))),
  ]);
  clearTimeout(timer);
}

function otrMessages(
  session: SessionRecord,
  user: { id: string; content: string; createdAt: number },
  assistant: { id: string; content: string; createdAt: number } | undefined,
  turn: Turn,
): MessageRecord[] {
  const out: MessageRecord[] = [
    {
      id: user.id,
      sessionId: session.id,
      role: "user",
      content: user.content,
      createdAt: user.createdAt,
      toolCalls: [],
      seq: 0,
    },
  ];
  if (assistant)
    out.push({
      id: assistant.id,
      sessionId: session.id,
      role: "assistant",
      content: assistant.content,
      createdAt: assistant.createdAt,
      toolCalls: [...turn.toolCalls],
      seq: 0,
    });
  return out;
}
