/** Default cap on the output a command returns: the first 48 KiB and the last 16 KiB are kept. */
export const DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024;

/**
 * Collects a command's output up to `maxBytes`: the head (3/4) and the tail (1/4) are kept,
 * the middle is dropped and counted, because both the start (what ran) and the end (the
 * error) of a long output matter.
 */
export class CappedOutput {
  private readonly headLimit: number;
  private readonly tailLimit: number;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer = Buffer.alloc(0);
  private total = 0;

  constructor(readonly maxBytes: number = DEFAULT_MAX_OUTPUT_BYTES) {
    this.headLimit = Math.floor((maxBytes * 3) / 4);
    this.tailLimit = maxBytes - this.headLimit;
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    const room = this.headLimit - this.headBytes;
    if (room > 0) {
      const part = chunk.subarray(0, room);
      this.head.push(part);
      this.headBytes += part.length;
      chunk = chunk.subarray(part.length);
    }
    if (chunk.length === 0) return;
    const joined = Buffer.concat([this.tail, chunk]);
    this.tail = joined.length > this.tailLimit ? joined.subarray(joined.length - this.tailLimit) : joined;
  }

  get totalBytes(): number {
    return this.total;
  }

  get truncated(): boolean {
    return this.total > this.maxBytes;
  }

  /** The kept output as text, with a marker where bytes were dropped. */
  text(): string {
    const head = Buffer.concat(this.head).toString("utf8");
    if (!this.truncated) return head + this.tail.toString("utf8");
    const omitted = this.total - this.headBytes - this.tail.length;
    return `${head}\n[... output cut: ${omitted} bytes omitted of ${this.total} ...]\n${this.tail.toString("utf8")}`;
  }
}

/** Splits a byte stream into complete lines (keeping "\n"); `flush` returns the unterminated rest. */
export class LineSplitter {
  private pending = "";
  private readonly decoder = new TextDecoder("utf-8");

  push(chunk: Buffer): string[] {
    this.pending += this.decoder.decode(chunk, { stream: true });
    const lines: string[] = [];
    let nl = this.pending.indexOf("\n");
    while (nl !== -1) {
      lines.push(this.pending.slice(0, nl + 1));
      this.pending = this.pending.slice(nl + 1);
      nl = this.pending.indexOf("\n");
    }
    return lines;
  }

  flush(): string | undefined {
    const rest = this.pending + this.decoder.decode();
    this.pending = "";
    return rest === "" ? undefined : rest;
  }
}
