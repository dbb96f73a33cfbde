// Recording and replaying the gateway's model exchanges, for tests and offline reproductions:
// `record` appends each exchange (the request as forwarded, the response as received) to a
// JSON-lines file; `replay` answers requests from such a file, in order, without any upstream.
import { appendFile, readFile } from "node:fs/promises";
import { EngineError } from "../errors.js";

export interface Exchange {
  /** The request body as forwarded (parsed JSON). */
  request: unknown;
  status: number;
  contentType: string;
  /** The response body as received (an SSE stream or JSON text). */
  body: string;
}

export class ExchangeRecorder {
  private chain = Promise.resolve();
  constructor(
    readonly file: string,
    private readonly log: (line: string) => void,
  ) {}

  add(exchange: Exchange): void {
    this.chain = this.chain
      .then(() => appendFile(this.file, `${JSON.stringify(exchange)}\n`, { mode: 0o600 }))
      .catch((err: unknown) => this.log(`model gateway: cannot record to ${this.file}: ${(err as Error).message}`));
  }

  flush(): Promise<void> {
    return this.chain;
  }
}

/** Exchanges read back from a recording, handed out in their recorded order. */
export class ExchangeReplay {
  private next = 0;
  private constructor(
    readonly file: string,
    private readonly exchanges: Exchange[],
  ) {}

  static async load(file: string): Promise<ExchangeReplay> {
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (err) {
      throw new EngineError(
        "GATEWAY_REPLAY",
        `cannot read the model gateway recording ${file}: ${(err as Error).message}`,
        { cause: err },
      );
    }
    const exchanges = text
      .split("\n")
      .filter((l) => l.trim())
      .map((line, i) => {
        try {
          const e = JSON.parse(line) as Partial<Exchange>;
          if (typeof e.status !== "number" || typeof e.body !== "string") throw new Error("needs status and body");
          return {
            request: e.request,
            status: e.status,
            contentType: e.contentType ?? "application/json",
            body: e.body,
          };
        } catch (err) {
          throw new EngineError(
            "GATEWAY_REPLAY",
            `${file}:${String(i + 1)}: not a recorded exchange (${(err as Error).message})`,
          );
        }
      });
    return new ExchangeReplay(file, exchanges);
  }

  take(): Exchange | undefined {
    return this.exchanges[this.next++];
  }

  get remaining(): number {
    return Math.max(0, this.exchanges.length - this.next);
  }
}
