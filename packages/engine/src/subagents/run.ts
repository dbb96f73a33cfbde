// One sub-agent run: its identity, state, counters, inbox and the waiters for its end.
import type { ChildProcess } from "node:child_process";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { PipelineEvent, SubAgentEventSchema } from "@palisade/protocol/pipeline";
import type { EventBus, EventInit } from "../events.js";
import type { Turn } from "../history/turn.js";
import type { RunSummary, StoredRun, SubAgentState } from "../ports.js";

export type SubAgentEventInit = MessageInitShape<typeof SubAgentEventSchema>;

const excerpt = (text: string, max = 500): string => (text.length > max ? `${text.slice(0, max)}…` : text);

export interface RunInit {
  id: string;
  name: string;
  task: string;
  token: string;
  model: string;
  groups: string[];
  depth: number;
  /**
   * Grant scopes whose "allow for this session" grants also cover this run's calls, nearest first
   * (its spawner's, then the spawner's own inherited ones); empty unless sub_agents.inherit_grants.
   */
  inheritedGrantScopes: string[];
  /** The user's turn that led to this run (for nested runs: the root's). */
  rootTurn: Turn;
  /** The session's running turn now, if any. */
  currentTurn: () => Turn | undefined;
  /** The pipeline turn of this run: parent session and message, its own signal and records. */
  turn: Turn;
}

/** The grant scope of the main agent's calls ("main") and of a sub-agent's (turns/tool-call.ts). */
export const grantScopeOf = (run: { name: string } | undefined): string => (run ? `sub-agent:${run.name}` : "main");

export class SubAgentRun {
  state: SubAgentState = "running";
  registered = false;
  result = "";
  error = "";
  llmCalls = 0;
  toolCalls = 0;
  readonly startedAt = Date.now();
  endedAt = 0;
  /** Follow-ups not yet collected by SubAgentPollMessage. */
  readonly inbox: string[] = [];
  readonly transcript: StoredRun["transcript"] = [];
  child: ChildProcess | undefined;
  /** Last lines the process wrote to stderr (the reason when it crashes). */
  stderrTail = "";
  readonly timers: NodeJS.Timeout[] = [];
  private resolveEnded!: () => void;
  readonly ended = new Promise<void>((r) => (this.resolveEnded = r));

  constructor(readonly init: RunInit) {
    this.transcript.push({ role: "user", content: init.task, createdAt: this.startedAt });
  }

  get name(): string {
    return this.init.name;
  }

  get sessionId(): string {
    return this.init.turn.session.id;
  }

  get running(): boolean {
    return this.state === "running";
  }

  elapsedMs(now = Date.now()): number {
    return (this.endedAt || now) - this.startedAt;
  }

  /**
   * The user's turn its events belong to: the one that spawned it while that runs, else the
   * session's running turn (a background sub-agent's approval must reach the chat driving the
   * conversation now), else the spawning one (seen by WatchSession).
   */
  liveTurn(): Turn {
    const root = this.init.rootTurn;
    if (root.state === "running") return root;
    const current = this.init.currentTurn();
    return current && current.state === "running" ? current : root;
  }

  /** Emits on the bus in the live turn, kept with that turn (stored with its events) and with the run. */
  emit(bus: EventBus, init: Omit<EventInit, "sessionId" | "messageId">): PipelineEvent {
    const live = this.liveTurn();
    const ev = bus.emit({ ...init, sessionId: this.sessionId, messageId: live.messageId });
    if (live.state === "running") live.keep(ev);
    this.init.turn.keep(ev);
    return ev;
  }

  /** Moves to a final state once; returns false when it had already ended. */
  end(state: Exclude<SubAgentState, "running">, detail: { result?: string; error?: string }): boolean {
    if (this.state !== "running") return false;
    this.state = state;
    this.endedAt = Date.now();
    this.result = detail.result ?? "";
    this.error = detail.error ?? "";
    if (state === "completed")
      this.transcript.push({ role: "assistant", content: this.result, createdAt: this.endedAt });
    for (const t of this.timers) clearTimeout(t);
    this.init.turn.abort.abort(new Error(this.error || `the sub-agent ${state}`));
    this.init.turn.markDone();
    this.resolveEnded();
    return true;
  }

  event(): SubAgentEventInit {
    return {
      name: this.name,
      task: this.init.task,
      state: this.state,
      llmCalls: this.llmCalls,
      toolCalls: this.toolCalls,
      elapsedMs: BigInt(this.elapsedMs()),
      resultExcerpt: excerpt(this.result),
      error: this.error,
    };
  }

  summary(): RunSummary {
    return {
      name: this.name,
      task: this.init.task,
      state: this.state,
      llmCalls: this.llmCalls,
      toolCalls: this.toolCalls,
      startedAt: this.startedAt,
      endedAt: this.endedAt,
      result: this.result,
      error: this.error,
    };
  }

  stored(): StoredRun {
    const { rootTurn, turn } = this.init;
    return {
      ...this.summary(),
      id: this.init.id,
      sessionId: this.sessionId,
      parentMessageId: rootTurn.messageId,
      parentUserMessageId: rootTurn.userMessageId,
      transcript: [...this.transcript],
      calls: [...turn.toolCalls],
    };
  }
}
