// One user message being answered: its state, its tool calls and the events it produced.
import { toJsonString } from "@bufbuild/protobuf";
import { PipelineEventSchema, PipelineEventType } from "@palisade/protocol/pipeline";
import type { PipelineEvent } from "@palisade/protocol/pipeline";
import type { EventBus, EventInit } from "../events.js";
import type { EventRecord, SessionRecord, ToolCallRecordRow, Usage } from "../ports.js";
import { ZERO_USAGE } from "./convert.js";

export type TurnState = "queued" | "running" | "finishing" | "done";

export class Turn {
  readonly abort = new AbortController();
  readonly toolCalls: ToolCallRecordRow[] = [];
  /** Tool calls in flight, so the turn can wait for them before committing. */
  readonly inFlight = new Set<Promise<void>>();
  /**
   * Events kept for idempotent replays of SendMessage (client_message_id) and for the store,
   * converted to JSON only when the turn is committed (never for OTR turns).
   */
  readonly replay: PipelineEvent[] = [];
  state: TurnState = "queued";
  /** Where the message came from (ProcessRequest.source). */
  source = "";
  /** The Agent lacked the conversation it was assumed to hold, and the turn was sent again whole. */
  historyResent = false;
  text = "";
  usage: Usage = ZERO_USAGE;
  private resolveDone!: () => void;
  readonly done = new Promise<void>((r) => (this.resolveDone = r));

  constructor(
    readonly session: SessionRecord,
    readonly messageId: string,
    readonly userMessageId: string,
    readonly content: string,
    readonly createdAt: number,
    readonly clientMessageId: string,
  ) {}

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  get otr(): boolean {
    return this.session.mode === "otr";
  }

  /** Emits an event for this turn and keeps it for the store (tokens and reasoning pieces are not stored: the reply carries them whole). */
  emit(bus: EventBus, init: Omit<EventInit, "sessionId" | "messageId">): PipelineEvent {
    const ev = bus.emit({ ...init, sessionId: this.session.id, messageId: this.messageId });
    this.keep(ev);
    return ev;
  }

  keep(ev: PipelineEvent): void {
    const piece =
      ev.eventType === PipelineEventType.LLM_TOKEN ||
      (ev.eventType === PipelineEventType.THOUGHT && ev.thought?.stage === "reasoning");
    if (!piece) {
      this.replay.push(ev);
    }
  }

  /** The kept events as store records (protobuf JSON payloads). */
  get events(): EventRecord[] {
    return this.replay.map((ev) => ({
      sessionId: ev.sessionId,
      messageId: ev.messageId,
      seq: Number(ev.seq),
      type: PipelineEventType[ev.eventType] ?? String(ev.eventType),
      timestamp: Number(ev.timestampUnixMs),
      payloadJson: toJsonString(PipelineEventSchema, ev),
    }));
  }

  track(p: Promise<void>): void {
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
  }

  markDone(): void {
    this.state = "done";
    this.resolveDone();
  }
}
