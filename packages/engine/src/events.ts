// Per-session event bus: every event gets a timestamp and the session's next seq, then goes to
// that session's subscribers (SendMessage streams for one message, WatchSession for all).
import { create } from "@bufbuild/protobuf";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { AsyncQueue } from "@palisade/protocol";
import { PipelineEventSchema, PipelineEventType } from "@palisade/protocol/pipeline";
import type { PipelineEvent } from "@palisade/protocol/pipeline";

export type EventInit = Omit<MessageInitShape<typeof PipelineEventSchema>, "seq" | "timestampUnixMs" | "$typeName"> & {
  sessionId: string;
  messageId: string;
  eventType: PipelineEventType;
};

export interface Subscription extends AsyncIterable<PipelineEvent> {
  close(): void;
}

interface Subscriber {
  filter: (ev: PipelineEvent) => boolean;
  queue: AsyncQueue<PipelineEvent>;
}

/** Events after which a SendMessage stream ends. */
export function isTerminal(ev: PipelineEvent): boolean {
  return (
    ev.eventType === PipelineEventType.RESPONSE_COMPLETE ||
    ev.eventType === PipelineEventType.ERROR ||
    ev.eventType === PipelineEventType.TURN_CANCELLED
  );
}

export class EventBus {
  private readonly seqs = new Map<string, number>();
  private readonly subs = new Map<string, Set<Subscriber>>();
  private readonly listeners = new Set<(ev: PipelineEvent) => void>();

  /** Sets where the session's seq continues (from the store) unless already known. */
  prime(sessionId: string, lastSeq: number): void {
    if (!this.seqs.has(sessionId)) this.seqs.set(sessionId, lastSeq);
  }

  isPrimed(sessionId: string): boolean {
    return this.seqs.has(sessionId);
  }

  /** Drops the session's seq (it is primed from the store again on its next turn). */
  forgetSeq(sessionId: string): void {
    this.seqs.delete(sessionId);
  }

  hasSubscribers(sessionId: string): boolean {
    return this.subs.has(sessionId);
  }

  /** Sessions with a seq in memory. */
  get seqCount(): number {
    return this.seqs.size;
  }

  emit(init: EventInit): PipelineEvent {
    return this.publish(this.prepare(init));
  }

  /** Assigns seq and timestamp without delivering (to store an event before clients see it). */
  prepare(init: EventInit): PipelineEvent {
    const seq = (this.seqs.get(init.sessionId) ?? 0) + 1;
    this.seqs.set(init.sessionId, seq);
    return create(PipelineEventSchema, { ...init, seq: BigInt(seq), timestampUnixMs: BigInt(Date.now()) });
  }

  publish(ev: PipelineEvent): PipelineEvent {
    for (const listener of this.listeners) listener(ev);
    const subs = this.subs.get(ev.sessionId);
    if (subs) for (const s of subs) if (s.filter(ev)) s.queue.push(ev);
    return ev;
  }

  /** Observes every event of every session (tests, metrics). */
  onEvent(listener: (ev: PipelineEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  subscribe(sessionId: string, filter: (ev: PipelineEvent) => boolean = () => true): Subscription {
    const sub: Subscriber = { filter, queue: new AsyncQueue<PipelineEvent>() };
    let set = this.subs.get(sessionId);
    if (!set) this.subs.set(sessionId, (set = new Set()));
    set.add(sub);
    const close = (): void => {
      sub.queue.end();
      set.delete(sub);
      if (set.size === 0 && this.subs.get(sessionId) === set) this.subs.delete(sessionId);
    };
    return { close, [Symbol.asyncIterator]: () => sub.queue[Symbol.asyncIterator]() };
  }

  /** Ends every subscription of a session (deleted) or of all sessions (shutdown). */
  closeSession(sessionId?: string): void {
    const sets =
      sessionId === undefined ? [...this.subs.values()] : [this.subs.get(sessionId)].filter((s) => s !== undefined);
    for (const set of sets) for (const s of [...set]) s.queue.end();
    if (sessionId === undefined) this.subs.clear();
    else this.subs.delete(sessionId);
    if (sessionId !== undefined) this.seqs.delete(sessionId);
  }
}
