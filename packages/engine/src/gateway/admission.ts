// How much the gateway takes in before a request is even checked: a body cap that fits the
// model's context window, a cap on the bytes of bodies held at once (as many as 32 bodies at the
// cap), a cap on open connections and one request in flight per connection. Together they bound
// the memory a caller can make the Engine hold, however many model calls it has in flight.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { DEFAULT_CONTEXT_WINDOW } from "@palisade/agent/settings";
import { GatewayRefusal } from "./allowlist.js";

/**
 * Open connections at most: the Agent's pool (GATEWAY_CONNECTIONS of @palisade/agent, 256: one per
 * model call in flight) and as many again for sub-agents. Memory is bounded by the held bytes.
 */
export const DEFAULT_MAX_CONNECTIONS = 512;
/** Bodies at the cap that may be held at once (the bytes of all bodies in the gateway at most). */
export const HELD_BODIES = 32;
const MiB = 1024 * 1024;
/** Bytes of JSON per token of context a body may use: text runs 3-6, escaped tool output more. */
const BYTES_PER_TOKEN = 16;
const HARD_MAX_BODY = 32 * MiB;

/**
 * The largest body forwarded for a model with `contextWindow` tokens: 16 bytes per token plus
 * 1 MiB for tool definitions and framing, at most 32 MiB. A longer body holds more than the model
 * can read, so sending it would only fail upstream, after the Engine had held it.
 */
export function bodyCap(contextWindow = DEFAULT_CONTEXT_WINDOW): number {
  return Math.min(HARD_MAX_BODY, MiB + BYTES_PER_TOKEN * Math.max(1, Math.floor(contextWindow)));
}

function tooLarge(cap: number, contextWindow: number): GatewayRefusal {
  return new GatewayRefusal(
    413,
    "request_too_large",
    `the request body is over ${String(cap)} bytes, which exceeds the context window of model.context_window = ${String(contextWindow)} tokens; start a new session, or raise model.context_window if the model reads more`,
  );
}

/**
 * Reads a request body of at most `cap` bytes. A Content-Length over the cap is refused before
 * anything is read; a body that grows past it is refused as soon as it does, its bytes dropped.
 * A connection that ends before the body does rejects, so nothing read stays referenced. The
 * bytes count in `held` until the caller gives them back (when the request's answer is over); a
 * body that would pass the gateway's held bytes is refused with 503.
 */
export function readBody(
  req: IncomingMessage,
  contextWindow = DEFAULT_CONTEXT_WINDOW,
  held: HeldBytes = new HeldBytes(),
): Promise<Buffer> {
  const cap = bodyCap(contextWindow);
  const declared = Number(req.headers["content-length"] ?? NaN);
  if (declared > cap) return Promise.reject(tooLarge(cap, contextWindow));
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] = [];
    let size = 0;
    const settle = (err?: Error): void => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("close", onClose);
      const body = chunks;
      chunks = [];
      if (err) {
        held.give(size);
        reject(err);
      } else resolve(body.length === 1 ? (body[0] as Buffer) : Buffer.concat(body, size));
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > cap) {
        size -= chunk.length;
        settle(tooLarge(cap, contextWindow));
      } else if (!held.take(chunk.length, cap)) {
        size -= chunk.length;
        settle(
          new GatewayRefusal(
            503,
            "gateway_busy",
            `the model gateway holds ${String(HELD_BODIES)} request bodies' worth of bytes already; retry when another call has ended`,
          ),
        );
      } else chunks.push(chunk);
    };
    const onEnd = (): void => settle();
    const onError = (err: Error): void => settle(err);
    const onClose = (): void =>
      settle(new GatewayRefusal(400, "incomplete_request", "the connection ended before the request body did"));
    req.on("data", onData);
    req.once("end", onEnd);
    req.once("error", onError);
    req.once("close", onClose);
  });
}

/** The bytes of request bodies the gateway holds, across connections: at most HELD_BODIES bodies at the cap. */
export class HeldBytes {
  private bytes = 0;

  get held(): number {
    return this.bytes;
  }

  /** Counts `n` more bytes, or refuses when they would pass HELD_BODIES × `cap`. */
  take(n: number, cap: number): boolean {
    if (this.bytes + n > HELD_BODIES * cap) return false;
    this.bytes += n;
    return true;
  }

  give(n: number): void {
    this.bytes -= n;
  }
}

const BUSY = Symbol("palisade.gateway.busy");
const OVER_CAP = Symbol("palisade.gateway.overCap");
type Tracked = Socket & { [BUSY]?: boolean; [OVER_CAP]?: boolean };

/** Counts connections and marks those over the cap, which get a 503 for their request. */
export class ConnectionGate {
  private open = 0;

  constructor(private readonly max = DEFAULT_MAX_CONNECTIONS) {}

  /** For the server's `connection` event. */
  readonly onConnection = (socket: Socket): void => {
    const s = socket as Tracked;
    if (this.open >= this.max) s[OVER_CAP] = true;
    else {
      this.open++;
      socket.once("close", () => this.open--);
    }
  };

  /** Admits a request on its connection, or throws the refusal; `done` frees the connection's slot. */
  admit(req: IncomingMessage): () => void {
    const s = req.socket as Tracked;
    if (s[OVER_CAP])
      throw new GatewayRefusal(
        503,
        "too_many_connections",
        `too many connections to the model gateway (${String(this.max)} at most); retry when another call has ended`,
      );
    if (s[BUSY])
      throw new GatewayRefusal(
        429,
        "request_in_flight",
        "one request at a time per connection: wait for the answer before sending the next request",
      );
    s[BUSY] = true;
    return () => {
      s[BUSY] = false;
    };
  }
}

/**
 * Closes the connection of a refused request shortly after its answer went out: what the caller
 * still sends is discarded meanwhile, then no longer read.
 */
export function closeAfterAnswer(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader("connection", "close");
  res.once("finish", () => setTimeout(() => req.socket.destroy(), 100).unref());
}
