// Reads a streamed model response as SSE events, cut off when the server goes silent.

/** One server-sent event: its `event:` type (if any) and its data lines joined by newlines. */
export interface SseEvent {
  event: string | undefined;
  data: string;
}

/**
 * An incremental parser for the parts of SSE that model servers use: `data:` lines (joined),
 * `event:`, comments (`:`) and any line ending; a blank line ends an event. `id:` and `retry:`
 * mean nothing for one response and are ignored.
 */
export class SseParser {
  private buffer = "";
  private data: string[] = [];
  private event: string | undefined;

  constructor(private readonly onEvent: (event: SseEvent) => void) {}

  feed(text: string): void {
    this.buffer += text;
    for (;;) {
      const m = /\r\n|\n|\r/.exec(this.buffer);
      // A lone "\r" at the end may be the first half of "\r\n": wait for more.
      if (!m || (m[0] === "\r" && m.index === this.buffer.length - 1)) return;
      const line = this.buffer.slice(0, m.index);
      this.buffer = this.buffer.slice(m.index + m[0].length);
      this.line(line);
    }
  }

  /** The body ended: a last event without its blank line still counts. */
  end(): void {
    if (this.buffer) this.line(this.buffer);
    this.buffer = "";
    this.line("");
  }

  private line(line: string): void {
    if (line === "") {
      if (this.data.length > 0) this.onEvent({ event: this.event, data: this.data.join("\n") });
      this.data = [];
      this.event = undefined;
      return;
    }
    if (line.startsWith(":")) return;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.data.push(value);
    else if (field === "event") this.event = value;
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
