// Token usage read from a model response as it passes through the gateway: the `usage` object
// of a JSON completion, or of the SSE chunk that carries it (OpenAI sends it in the last chunk
// when `stream_options.include_usage` is set). Bytes are only looked at, never held back.

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

/** Largest SSE line looked at; longer lines (huge content deltas) cannot be the usage chunk's. */
const MAX_LINE = 64 * 1024;

/** Finds the usage in a response body fed chunk by chunk (SSE or JSON). */
export class UsageScanner {
  private pending = "";
  private json = "";
  private skipping = false;
  private readonly decoder = new TextDecoder();
  usage: TokenCount | undefined;

  constructor(private readonly sse: boolean) {}

  push(chunk: Uint8Array): void {
    const text = this.decoder.decode(chunk, { stream: true });
    if (!this.sse) {
      if (this.json.length < 16 * 1024 * 1024) this.json += text;
      return;
    }
    let start = 0;
    for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", start)) {
      this.line(this.pending + text.slice(start, nl));
      this.pending = "";
      this.skipping = false;
      start = nl + 1;
    }
    if (this.skipping) return;
    this.pending += text.slice(start);
    if (this.pending.length > MAX_LINE) {
      this.pending = "";
      this.skipping = true;
    }
  }

  end(): TokenCount | undefined {
    if (!this.sse) {
      try {
        this.usage = usageOf(JSON.parse(this.json));
      } catch {
        // Not JSON (an error page): no usage.
      }
      this.json = "";
    } else if (this.pending) {
      this.line(this.pending);
      this.pending = "";
    }
    return this.usage;
  }

  private line(raw: string): void {
    if (this.skipping || !raw.startsWith("data:") || !raw.includes('"usage"')) return;
    try {
      const found = usageOf(JSON.parse(raw.slice(5)));
      if (found) this.usage = found;
    } catch {
      // A malformed line is the client's problem; it is forwarded untouched.
    }
  }
}
