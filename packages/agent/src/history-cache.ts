// The Agent's copy of each session's conversation, so the Engine sends only new messages. A copy is
// used only when it is exactly the base a ProcessRequest names (generation, count and digest);
// otherwise the Agent asks for the whole conversation (HistoryNeeded) rather than guess. Bounded:
// copies idle for `idleMs` are dropped, and the least recently used go first past `maxBytes`.
// A copy also keeps the system prompt and tools its last request carried, for requests that say
// they are the same (`same_definitions`).
import { chainHistoryDigest } from "@palisade/protocol";
import type { ContextMessage, ProcessRequest } from "@palisade/protocol/pipeline";
import { toSpec } from "./tools.js";
import type { ToolSpec } from "./tools.js";

/** The Engine forgets what it sent after its session idle window (limits.sessionIdleMs, 5 min by default), which it passes as PALISADE_HISTORY_IDLE_MS. */
export const HISTORY_IDLE_MS = 300_000;
export const HISTORY_MAX_BYTES = 64 * 1024 * 1024;

export interface HistoryCacheOptions {
  idleMs?: number;
  maxBytes?: number;
  now?: () => number;
}

/** What a turn runs with besides the conversation, as the Engine last sent it. */
export interface Definitions {
  systemPrompt: string;
  tools: readonly ToolSpec[];
}

interface Copy {
  generation: string;
  messages: ContextMessage[];
  digest: string;
  definitions: Definitions;
  bytes: number;
  usedAt: number;
}

export type Resolved = { history: readonly ContextMessage[]; definitions: Definitions } | { missing: string };

type Request = Pick<ProcessRequest, "sessionId" | "history" | "historyGeneration" | "historyBase" | "historyDigest"> &
  Partial<Pick<ProcessRequest, "systemPrompt" | "tools" | "sameDefinitions">>;

const definitionsOf = (req: Request): Definitions => ({
  systemPrompt: req.systemPrompt ?? "",
  tools: (req.tools ?? []).map(toSpec),
});

function definitionBytes(d: Definitions): number {
  let n = 2 * d.systemPrompt.length;
  for (const t of d.tools) n += 64 + 2 * (t.name.length + t.description.length + t.parametersJson.length);
  return n;
}

/** Rough memory held by a message (UTF-16 strings plus object overhead). */
function bytesOf(messages: readonly ContextMessage[]): number {
  let n = 0;
  for (const m of messages) {
    n += 64 + 2 * (m.content.length + m.toolCallId.length);
    for (const c of m.toolCalls) n += 64 + 2 * (c.id.length + c.name.length + c.argumentsJson.length);
  }
  return n;
}

export class HistoryCache {
  /** Least recently used first. */
  private readonly copies = new Map<string, Copy>();
  private bytes = 0;
  private readonly idleMs: number;
  private readonly maxBytes: number;
  private readonly now: () => number;

  constructor(options: HistoryCacheOptions = {}) {
    this.idleMs = options.idleMs ?? HISTORY_IDLE_MS;
    this.maxBytes = options.maxBytes ?? HISTORY_MAX_BYTES;
    this.now = options.now ?? Date.now;
  }

  get sessions(): number {
    return this.copies.size;
  }

  /** How long a copy is kept without a request. */
  get idleWindowMs(): number {
    return this.idleMs;
  }

  get heldBytes(): number {
    return this.bytes;
  }

  /**
   * The whole conversation for `req`: its history as is (no generation), or the kept copy with
   * `req.history` appended when the copy is exactly the base the Engine assumed.
   */
  resolve(req: Request): Resolved {
    const now = this.now();
    this.sweep(now);
    const copy = this.copies.get(req.sessionId);
    if (!req.historyGeneration || req.historyBase <= 0) {
      if (copy) this.drop(req.sessionId, copy);
      if (req.sameDefinitions)
        return { missing: "the request names the definitions of a conversation it sends whole (a faulty Engine)" };
      const definitions = definitionsOf(req);
      if (!req.historyGeneration) return { history: req.history, definitions };
      const messages = [...req.history];
      this.keep(req.sessionId, {
        generation: req.historyGeneration,
        messages,
        digest: chainHistoryDigest("", messages),
        definitions,
        bytes: bytesOf(messages) + definitionBytes(definitions),
        usedAt: now,
      });
      return { history: [...messages], definitions };
    }
    const why = !copy
      ? "the Agent holds no copy of this conversation (it restarted or dropped it)"
      : copy.generation !== req.historyGeneration
        ? "the Agent holds another version of this conversation"
        : copy.messages.length !== req.historyBase
          ? `the Agent holds ${String(copy.messages.length)} messages of this conversation, not ${String(req.historyBase)}`
          : copy.digest !== req.historyDigest
            ? "the Agent's copy of this conversation differs from the Engine's (digest)"
            : undefined;
    if (why || !copy) {
      if (copy) this.drop(req.sessionId, copy);
      return { missing: why ?? "no copy" };
    }
    this.copies.delete(req.sessionId);
    if (!req.sameDefinitions) {
      const definitions = definitionsOf(req);
      const added = definitionBytes(definitions) - definitionBytes(copy.definitions);
      copy.definitions = definitions;
      copy.bytes += added;
      this.bytes += added;
    }
    if (req.history.length > 0) {
      copy.messages.push(...req.history);
      copy.digest = chainHistoryDigest(copy.digest, req.history);
      const added = bytesOf(req.history);
      copy.bytes += added;
      this.bytes += added;
    }
    copy.usedAt = now;
    this.copies.set(req.sessionId, copy);
    this.trim(req.sessionId);
    // A snapshot: the next request appends to the copy while this turn may still read its own.
    return { history: [...copy.messages], definitions: copy.definitions };
  }

  /** Drops copies idle for the idle window. */
  sweep(now = this.now()): void {
    for (const [id, copy] of this.copies) {
      if (now - copy.usedAt < this.idleMs) break;
      this.drop(id, copy);
    }
  }

  private keep(sessionId: string, copy: Copy): void {
    this.copies.set(sessionId, copy);
    this.bytes += copy.bytes;
    this.trim(sessionId);
  }

  /** Past the byte cap, least recently used copies go first; the one in use goes last. */
  private trim(current: string): void {
    for (const [id, copy] of this.copies) {
      if (this.bytes <= this.maxBytes) return;
      if (id !== current) this.drop(id, copy);
    }
    const copy = this.copies.get(current);
    if (this.bytes > this.maxBytes && copy) this.drop(current, copy);
  }

  private drop(sessionId: string, copy: Copy): void {
    this.copies.delete(sessionId);
    this.bytes -= copy.bytes;
  }
}
