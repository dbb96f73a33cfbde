import type { JSONRPCMessage, Progress, Transport } from "@modelcontextprotocol/client";

/**
 * Progress notifications, seen as they arrive on the transport. The SDK hands notifications to
 * their handlers a microtask late but settles a response at once, so the last progress of a
 * call (sent just before its result) would be dropped; watching the transport keeps the order.
 */
export class ProgressTap {
  private readonly listeners = new Map<string, (p: Progress) => void>();
  private next = 0;

  /** Wraps the transport's message handler (call after the client connected). */
  attach(transport: Transport): void {
    const inner = transport.onmessage;
    transport.onmessage = (message, extra) => {
      this.see(message);
      inner?.(message, extra);
    };
  }

  /** A fresh progressToken whose notifications go to `fn` until `forget`. */
  listen(fn: (p: Progress) => void): string {
    const token = `palisade-progress-${++this.next}`;
    this.listeners.set(token, fn);
    return token;
  }

  forget(token: string): void {
    this.listeners.delete(token);
  }

  private see(message: JSONRPCMessage): void {
    if (!("method" in message) || message.method !== "notifications/progress" || "id" in message) return;
    const p = (message.params ?? {}) as Record<string, unknown>;
    const fn = this.listeners.get(String(p.progressToken));
    if (!fn || typeof p.progress !== "number") return;
    fn({
      progress: p.progress,
      ...(typeof p.total === "number" ? { total: p.total } : {}),
      ...(typeof p.message === "string" ? { message: p.message } : {}),
    });
  }
}
