// Token usage read from a model response as it passes through the gateway: the `usage` object
// of a JSON completion, or of the SSE chunk that carries it (OpenAI sends it in the last chunk
// when `stream_options.include_usage` is set). Bytes are only looked at, never held back.
import { createParser } from "eventsource-parser";
import type { EventSourceParser } from "eventsource-parser";

export interface TokenCount {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
}

interface WireUsage {
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
  prompt_tokens_details?: { cached_tokens?: unknown } | null;
}

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0);

/** The usage of one parsed response object, or undefined when it has none. Pure. */
export function usageOf(value: unknown): TokenCount | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const usage = (value as { usage?: WireUsage | null }).usage;
  if (typeof usage !== "object" || usage === null) return undefined;
  return {
    inputTokens: num(usage.prompt_tokens),
    outputTokens: num(usage.completion_tokens),
    cacheReadTokens: num(usage.prompt_tokens_details?.cached_tokens),
  };
}

/** Largest SSE event looked at; longer ones (huge content deltas) cannot be the usage chunk's. */
const MAX_EVENT = 64 * 1024;

/** Finds the usage in a response body fed chunk by chunk (SSE, read with eventsource-parser, or JSON). */
export class UsageScanner {
  private json = "";
  private readonly decoder = new TextDecoder();
  private readonly parser: EventSourceParser | undefined;
  /** Set while the rest of an event past MAX_EVENT goes by: the parser starts again after it. */
  private overflowed = false;
  usage: TokenCount | undefined;

  constructor(sse: boolean) {
    this.parser = sse
      ? createParser({
          maxBufferSize: MAX_EVENT,
          onEvent: (e) => this.event(e.data),
          onError: (err) => {
            if (err.type === "max-buffer-size-exceeded") this.overflowed = true;
          },
        })
      : undefined;
  }

  push(chunk: Uint8Array): void {
    const text = this.decoder.decode(chunk, { stream: true });
    if (!this.parser) {
      if (this.json.length < 16 * 1024 * 1024) this.json += text;
      return;
    }
    this.feed(text);
  }

  end(): TokenCount | undefined {
    if (!this.parser) {
      try {
        this.usage = usageOf(JSON.parse(this.json));
      } catch {
        // Not JSON (an error page): no usage.
      }
      this.json = "";
    } else this.feed("\n\n");
    return this.usage;
  }

  /** Feeds the parser; past an overlong event, skips to the end of its line and starts again. */
  private feed(text: string): void {
    let rest = text;
    while (rest) {
      if (this.overflowed) {
        const nl = rest.indexOf("\n");
        if (nl < 0) return;
        rest = rest.slice(nl + 1);
        this.overflowed = false;
        this.parser?.reset();
        continue;
      }
      this.parser?.feed(rest);
      rest = "";
    }
  }

  private event(data: string): void {
    if (!data.includes('"usage"')) return;
    try {
      const found = usageOf(JSON.parse(data));
      if (found) this.usage = found;
    } catch {
      // A malformed event is the client's problem; it is forwarded untouched.
    }
  }
}
