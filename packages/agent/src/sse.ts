// Reads a streamed model response as SSE events, cut off when the server goes silent.
import { createParser } from "eventsource-parser";
import type { EventSourceParser } from "eventsource-parser";

/** One server-sent event: its `event:` type (if any) and its data lines joined by newlines. */
export interface SseEvent {
  event: string | undefined;
  data: string;
}

/**
 * An incremental SSE parser (eventsource-parser underneath): `data:` lines joined, `event:`,
 * comments and any line ending; a blank line ends an event. `id:` and `retry:` mean nothing for
 * one response and are dropped. Unlike an EventSource, a last event without its blank line still
 * counts at `end()` (some servers close the body right after it).
 */
export class SseParser {
  private readonly parser: EventSourceParser;

  constructor(onEvent: (event: SseEvent) => void) {
    this.parser = createParser({ onEvent: (e) => onEvent({ event: e.event, data: e.data }) });
  }

  feed(text: string): void {
    this.parser.feed(text);
  }

  /** The body ended: ends the last line and the last event. */
  end(): void {
    this.parser.feed("\n\n");
    this.parser.reset();
  }
}

/** The server sent nothing (not even an SSE comment) for `idleMs`. */
export class StreamStalled extends Error {
  constructor(
    readonly idleMs: number,
    /** Whether any byte of the body had arrived before the silence. */
    readonly sawBytes: boolean,
  ) {
    super(`no data for ${String(idleMs / 1000)} s`);
    this.name = new.target.name;
  }
}

function readWithin(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  ms: number,
  sawBytes: boolean,
): ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new StreamStalled(ms, sawBytes)), ms);
    reader.read().then(
      (r) => {
        clearTimeout(timer);
        resolve(r);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}

/**
 * The events of an SSE body, in order, until `[DONE]` or the end of the body. Any bytes, SSE
 * comments included (OpenRouter sends them while it waits), restart the idle clock; `idleMs` of
 * silence throws StreamStalled and cancels the body.
 */
export async function* sseEvents(body: ReadableStream<Uint8Array>, idleMs: number): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const queue: SseEvent[] = [];
  const parser = new SseParser((e) => queue.push(e));
  let sawBytes = false;
  try {
    for (;;) {
      const { done, value } = await readWithin(reader, idleMs, sawBytes);
      if (done) break;
      sawBytes = true;
      parser.feed(decoder.decode(value, { stream: true }));
      while (queue.length > 0) {
        const event = queue.shift()!;
        if (event.data.trim() === "[DONE]") return;
        yield event;
      }
    }
    // A last event without its closing blank line still counts.
    parser.feed(decoder.decode());
    parser.end();
    for (const event of queue) if (event.data.trim() !== "[DONE]") yield event;
  } finally {
    reader.cancel().catch(() => undefined);
  }
}
