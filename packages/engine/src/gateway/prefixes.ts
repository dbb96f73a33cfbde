// The last body read of each conversation (BodyPrefix), so that the gateway reads of the next one
// only what the Agent added: a conversation's requests grow by a few messages per call, and
// reading the whole history again at every call cost the Engine more than anything else in it.
// Bounded by the bytes of the bodies kept alive, the least recently used dropped first.
import type { BodyPrefix } from "./body.js";

/** Bytes of bodies kept at most, all conversations together. */
export const BODY_PREFIX_MAX_BYTES = 32 * 1024 * 1024;

export class BodyPrefixes {
  private readonly byConversation = new Map<string, BodyPrefix>();
  private bytes = 0;

  constructor(private readonly maxBytes = BODY_PREFIX_MAX_BYTES) {}

  /** The conversation's prefix, no longer kept: its next body's reading gives the next one. */
  take(conversation: string): BodyPrefix | undefined {
    const prefix = this.byConversation.get(conversation);
    if (prefix === undefined) return undefined;
    this.byConversation.delete(conversation);
    this.bytes -= prefix.body.length;
    return prefix;
  }

  put(conversation: string, prefix: BodyPrefix): void {
    this.take(conversation);
    if (prefix.body.length > this.maxBytes) return;
    this.byConversation.set(conversation, prefix);
    this.bytes += prefix.body.length;
    for (const [id, old] of this.byConversation) {
      if (this.bytes <= this.maxBytes) break;
      this.byConversation.delete(id);
      this.bytes -= old.body.length;
    }
  }

  /** Conversations and bytes kept. */
  get size(): { conversations: number; bytes: number } {
    return { conversations: this.byConversation.size, bytes: this.bytes };
  }
}
