import type { MessageInitShape } from "@bufbuild/protobuf";
import type {
  AgentEventSchema,
  CancelDirective,
  EngineDirective,
  ProcessRequest,
  ToolDefsDelivery,
  ToolGroup,
  ToolResultDelivery,
} from "@palisade/protocol/pipeline";
import { SessionMode } from "@palisade/protocol/types";
import { AgentFailure } from "./errors.js";
import { HistoryCache } from "./history-cache.js";
import type { HistoryCacheOptions } from "./history-cache.js";
import type { CallModel } from "./model.js";
import { toSpec } from "./tools.js";
import type { ToolSpec } from "./tools.js";
import { runTurn } from "./turn.js";
import type { LoadedTools, ToolOutcome, TurnPorts, TurnRequest } from "./turn.js";

export type AgentEventInit = MessageInitShape<typeof AgentEventSchema>;

export interface RuntimeOptions {
  /** Default model (ProcessRequest.model overrides) and context window. */
  model: string;
  contextWindow: number;
  callModel: CallModel;
  /** Hands an event to the stream; must not throw. */
  send(event: AgentEventInit): void;
  log?: (line: string) => void;
  /** Bounds of the kept conversations (default: HISTORY_IDLE_MS, HISTORY_MAX_BYTES). */
  historyCache?: HistoryCacheOptions;
}

interface Waiter<T> {
  resolve(value: T): void;
  reject(err: unknown): void;
}

/** Remember this many issued call ids to keep them unique for the Engine. */
const CALL_ID_MEMORY = 100_000;

const turnKey = (sessionId: string, messageId: string): string => `${sessionId}\u0000${messageId}`;

/**
 * Joins the tokens of one burst into one LLMTokenEmitted. A model often delivers several SSE
 * chunks in one read; sending each as its own event costs an encode, a frame and a hop per word
 * on every process down to the client. The first token of a burst leaves at once (time to first
 * token is untouched); tokens arriving before the event loop turns are joined and sent then.
 * Every other event of the turn calls `flush()` first, so the order on the stream holds; the end
 * of the turn `take()`s the pending burst into AgentResponseComplete instead (one message, not two).
 */
export class TokenBatcher {
  private pending = "";
  private armed = false;

  constructor(private readonly sendText: (text: string) => void) {}

  push(text: string): void {
    if (this.armed) {
      this.pending += text;
      return;
    }
    this.sendText(text);
    this.armed = true;
    setImmediate(() => {
      this.armed = false;
      this.flush();
    });
  }

  flush(): void {
    const text = this.take();
    if (text) this.sendText(text);
  }

  /** The pending text, no longer to be sent by the batcher (the caller sends it with its own event). */
  take(): string {
    const text = this.pending;
    this.pending = "";
    return text;
  }
}

/**
 * The Agent's side of one RunSession stream, without the transport: routes directives to turns
 * (each its own async task), correlates tool results by call_id and tool defs by request_id.
 */
export class AgentRuntime {
  private initial: { tools: ToolSpec[]; groups: ToolGroup[] } | undefined;
  private readonly turns = new Map<string, { controller: AbortController; sessionId: string; done: Promise<void> }>();
  private readonly toolWaits = new Map<string, Waiter<ToolOutcome>>();
  private readonly defsWaits = new Map<string, Waiter<LoadedTools>>();
  private usedCallIds = new Set<string>();
  private seq = 0;
  private readonly log: (line: string) => void;
  /** Each session's conversation as the Engine sent it, so later requests carry only what is new. */
  readonly histories: HistoryCache;
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly options: RuntimeOptions) {
    this.log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
    this.histories = new HistoryCache(options.historyCache);
    // A copy is dropped within a minute of its idle window, sooner when the window is shorter.
    this.sweeper = setInterval(
      () => this.histories.sweep(),
      Math.max(1000, Math.min(60_000, this.histories.idleWindowMs)),
    );
    this.sweeper.unref();
  }

  get ready(): boolean {
    return this.initial !== undefined;
  }

  get activeTurns(): number {
    return this.turns.size;
  }

  /** Applies one directive. Returns "shutdown" when the Engine asked the Agent to stop. */
  handle(directive: EngineDirective): "continue" | "shutdown" {
    const d = directive.directive;
    switch (d.case) {
      case "initialToolDefs":
        this.initial = { tools: d.value.tools.map(toSpec), groups: [...d.value.groups] };
        return "continue";
      case "process":
        this.startTurn(d.value);
        return "continue";
      case "toolResult":
        this.deliverToolResult(d.value);
        return "continue";
      case "toolDefs":
        this.deliverToolDefs(d.value);
        return "continue";
      case "cancel":
        this.cancel(d.value);
        return "continue";
      case "shutdown":
        return "shutdown";
      default:
        this.log("palisade-agent: ignoring an empty or unknown directive");
        return "continue";
    }
  }

  /** Cancels every turn and waits for them to report. */
  async stop(reason: string): Promise<void> {
    clearInterval(this.sweeper);
    for (const t of this.turns.values()) t.controller.abort(new AgentFailure("CANCELLED", reason));
    await Promise.all([...this.turns.values()].map((t) => t.done));
  }

  private startTurn(req: ProcessRequest): void {
    const key = turnKey(req.sessionId, req.messageId);
    const fail = (code: "PROTOCOL_ERROR", message: string): void =>
      this.options.send({
        event: {
          case: "agentError",
          value: { sessionId: req.sessionId, messageId: req.messageId, code, message, recoverable: true },
        },
      });
    if (!this.initial)
      return fail(
        "PROTOCOL_ERROR",
        "ProcessRequest arrived before InitialToolDefs; the Engine must send InitialToolDefs first",
      );
    if (this.turns.has(key))
      return fail("PROTOCOL_ERROR", `message ${req.messageId} of session ${req.sessionId} is already being processed`);
    const conversation = this.histories.resolve(req);
    if ("missing" in conversation) {
      this.options.send({
        event: {
          case: "historyNeeded",
          value: { sessionId: req.sessionId, messageId: req.messageId, reason: conversation.missing },
        },
      });
      return;
    }

    const controller = new AbortController();
    const turn: TurnRequest = {
      sessionId: req.sessionId,
      messageId: req.messageId,
      content: req.content,
      history: conversation.history,
      systemPrompt: conversation.definitions.systemPrompt,
      model: req.model || this.options.model,
      tools: [...this.initial.tools, ...conversation.definitions.tools],
      groups: this.initial.groups,
      maxToolRounds: req.maxToolRounds,
      contextWindow: this.options.contextWindow,
      offTheRecord: req.mode === SessionMode.OTR,
    };
    const done = this.runOne(turn, controller.signal).finally(() => this.turns.delete(key));
    this.turns.set(key, { controller, sessionId: req.sessionId, done });
  }

  private async runOne(turn: TurnRequest, signal: AbortSignal): Promise<void> {
    const ids = { sessionId: turn.sessionId, messageId: turn.messageId };
    const tokens = new TokenBatcher((text) =>
      this.options.send({ event: { case: "llmTokenEmitted", value: { ...ids, text } } }),
    );
    const reasoning = new TokenBatcher((text) =>
      this.options.send({ event: { case: "thoughtEmitted", value: { ...ids, stage: "reasoning", text } } }),
    );
    // Order holds across the two kinds: one's pending text leaves before the other's.
    const streams = {
      flush: (): void => {
        reasoning.flush();
        tokens.flush();
      },
      token: (text: string): void => {
        reasoning.flush();
        tokens.push(text);
      },
      reasoning: (text: string): void => {
        tokens.flush();
        reasoning.push(text);
      },
    };
    try {
      const result = await runTurn(turn, this.portsFor(turn, streams), signal);
      if (signal.aborted) throw signal.reason;
      reasoning.flush();
      this.options.send({
        event: {
          case: "responseComplete",
          value: {
            ...ids,
            lastText: tokens.take(),
            content: result.content,
            thoughts: result.thoughts,
            usage: result.usage,
            llmCalls: result.llmCalls,
            toolRounds: result.toolRounds,
          },
        },
      });
    } catch (err) {
      const failure = signal.aborted
        ? signal.reason instanceof AgentFailure
          ? signal.reason
          : new AgentFailure("CANCELLED", "the turn was cancelled")
        : err instanceof AgentFailure
          ? err
          : new AgentFailure("INTERNAL", `the Agent failed: ${err instanceof Error ? err.message : String(err)}`, {
              cause: err,
            });
      if (failure.code === "INTERNAL") this.log(`palisade-agent: ${String(err instanceof Error ? err.stack : err)}`);
      streams.flush();
      this.options.send({
        event: {
          case: "agentError",
          value: { ...ids, code: failure.code, message: failure.message, recoverable: failure.recoverable },
        },
      });
    }
  }

  private portsFor(
    turn: TurnRequest,
    streams: { flush(): void; token(text: string): void; reasoning(text: string): void },
  ): TurnPorts {
    const ids = { sessionId: turn.sessionId, messageId: turn.messageId };
    const send = (event: AgentEventInit): void => {
      streams.flush();
      this.options.send(event);
    };
    return {
      callModel: (request) => this.options.callModel({ ...request, sessionId: turn.sessionId }),
      emitToken: (text) => streams.token(text),
      emitThought: (stage, text) => {
        if (stage === "reasoning") streams.reasoning(text);
        else send({ event: { case: "thoughtEmitted", value: { ...ids, stage, text } } });
      },
      proposeTool: (call, signal) => {
        const result = this.wait(this.toolWaits, call.callId, signal);
        send({
          event: {
            case: "toolProposal",
            value: { ...ids, callId: call.callId, toolName: call.name, argumentsJson: call.argumentsJson },
          },
        });
        return result;
      },
      loadTools: (groups, signal) => {
        const requestId = `defs-${String(++this.seq)}`;
        const result = this.wait(this.defsWaits, requestId, signal);
        send({ event: { case: "toolDefsRequest", value: { ...ids, groups, requestId } } });
        return result;
      },
      flushMemory: (flush) => send({ event: { case: "memoryFlush", value: { ...ids, ...flush } } }),
      reserveCallId: (proposed) => this.reserveCallId(proposed),
    };
  }

  private reserveCallId(proposed: string): string {
    let id = proposed;
    while (!id || this.usedCallIds.has(id) || this.toolWaits.has(id))
      id = `call_${crypto.randomUUID().replaceAll("-", "")}`;
    if (this.usedCallIds.size >= CALL_ID_MEMORY) this.usedCallIds = new Set();
    this.usedCallIds.add(id);
    return id;
  }

  private wait<T>(waits: Map<string, Waiter<T>>, key: string, signal: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (signal.aborted) {
        reject(new AgentFailure("CANCELLED", "the turn was cancelled"));
        return;
      }
      const onAbort = (): void => {
        waits.delete(key);
        reject(new AgentFailure("CANCELLED", "the turn was cancelled"));
      };
      signal.addEventListener("abort", onAbort, { once: true });
      waits.set(key, {
        resolve: (v) => {
          signal.removeEventListener("abort", onAbort);
          resolve(v);
        },
        reject,
      });
    });
  }

  private deliverToolResult(d: ToolResultDelivery): void {
    const waiter = this.toolWaits.get(d.callId);
    if (!waiter) {
      this.log(
        `palisade-agent: ToolResultDelivery for unknown or finished call_id ${JSON.stringify(d.callId)} ignored`,
      );
      return;
    }
    this.toolWaits.delete(d.callId);
    waiter.resolve({ content: d.content, isError: d.isError, terminal: d.terminal });
  }

  private deliverToolDefs(d: ToolDefsDelivery): void {
    const waiter = this.defsWaits.get(d.requestId);
    if (!waiter) {
      this.log(`palisade-agent: ToolDefsDelivery for unknown request_id ${JSON.stringify(d.requestId)} ignored`);
      return;
    }
    this.defsWaits.delete(d.requestId);
    waiter.resolve({
      tools: d.tools.map(toSpec),
      unknownGroups: [...d.unknownGroups],
      loadedGroups: [...d.loadedGroups],
    });
  }

  private cancel(c: CancelDirective): void {
    const reason = `the turn was cancelled${c.reason ? `: ${c.reason}` : ""}`;
    for (const [key, t] of this.turns) {
      const match = c.messageId ? key === turnKey(c.sessionId, c.messageId) : t.sessionId === c.sessionId;
      if (match) t.controller.abort(new AgentFailure("CANCELLED", reason));
    }
  }
}
