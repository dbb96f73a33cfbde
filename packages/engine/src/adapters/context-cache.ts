// The Agent's context of recently active sessions, as the SQLite adapter keeps it in memory:
// bounded by how much text it holds, not by a number of sessions, so every conversation of a busy
// Engine stays cached (a session-count cap below the number of sessions in use made every turn
// read its whole conversation back from SQLite), while a few very long ones cannot fill memory.
// Least recently used sessions go first; idle sessions are dropped anyway (SessionSweeper).
import type { MessageRecord } from "../ports.js";

/** Characters of message text (content, tool arguments and results) kept in memory at most. */
export const CONTEXT_CACHE_CHARS = 32 * 1024 * 1024;
/** What a record costs beyond its text, counted in characters. */
const RECORD_OVERHEAD = 256;

export function recordChars(m: MessageRecord): number {
  let n = RECORD_OVERHEAD + m.content.length;
  for (const c of m.toolCalls) n += RECORD_OVERHEAD + c.toolName.length + c.argumentsJson.length + c.result.length;
  return n;
}

const charsOf = (messages: readonly MessageRecord[]): number => messages.reduce((n, m) => n + recordChars(m), 0);

export class ContextCache {
  private readonly entries = new Map<string, { messages: MessageRecord[]; chars: number }>();
  private total = 0;

  constructor(private readonly maxChars = CONTEXT_CACHE_CHARS) {}

  /** The session's cached messages (the live array), now the most recently used; undefined when not cached. */
  get(sessionId: string): MessageRecord[] | undefined {
    const e = this.entries.get(sessionId);
    if (!e) return undefined;
    this.entries.delete(sessionId);
    this.entries.set(sessionId, e);
    return e.messages;
  }

  set(sessionId: string, messages: MessageRecord[]): void {
    this.delete(sessionId);
    const chars = charsOf(messages);
    this.entries.set(sessionId, { messages, chars });
    this.total += chars;
    this.evict(sessionId);
  }

  /** Appends to a cached session (nothing when it is not cached). */
  append(sessionId: string, added: readonly MessageRecord[]): void {
    const e = this.entries.get(sessionId);
    if (!e) return;
    e.messages.push(...added);
    const chars = charsOf(added);
    e.chars += chars;
    this.total += chars;
    this.evict(sessionId);
  }

  delete(sessionId: string): void {
    const e = this.entries.get(sessionId);
    if (!e) return;
    this.entries.delete(sessionId);
    this.total -= e.chars;
  }

  /** Sessions cached now. */
  get size(): number {
    return this.entries.size;
  }

  /** Drops least recently used sessions while over the limit; `keep` (the one just used) stays. */
  private evict(keep: string): void {
    for (const [id, e] of this.entries) {
      if (this.total <= this.maxChars) return;
      if (id === keep) continue;
      this.entries.delete(id);
      this.total -= e.chars;
    }
  }
}
