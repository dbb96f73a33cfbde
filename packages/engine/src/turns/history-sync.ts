// What of a session's conversation the Agent already holds, so a ProcessRequest carries only the
// messages it lacks. The Engine stays the source of truth: the context is always built from the
// stored records, and only a prefix the Engine can show unchanged (the very records, or equal ones,
// under the same compaction, sent to the same Agent connection) is left out. Anything else — a new
// Agent, a dropped session, a compaction, a changed or removed record — starts a new generation
// with the whole conversation. The Agent checks the base against its copy by count and digest and
// answers HistoryNeeded when they differ; it never fills a gap itself. The system prompt and the
// tool definitions (~6 KB with the files tools) ride along the same way: a request whose
// conversation builds on the Agent's copy and whose definitions equal the last ones sent leaves
// them out (`same_definitions`), and the Agent uses those it keeps with the copy.
import { randomUUID } from "node:crypto";
import { chainHistoryDigest } from "@palisade/protocol";
import type { MessageRecord } from "../ports.js";
import { buildContext, contextOf } from "./context.js";
import type { ContextInit } from "./context.js";
import type { ToolDefInit } from "../calls/tool-defs.js";

export interface SessionMemory {
  summary: string;
  compactedMessages: number;
}

/** The conversation fields of one ProcessRequest. */
export interface HistoryPart {
  history: ContextInit[];
  historyGeneration: string;
  historyBase: number;
  historyDigest: string;
}

/** What a turn runs with besides the conversation. */
export interface Definitions {
  systemPrompt: string;
  loadedGroups: string[];
  tools: ToolDefInit[];
}

/** The definitions fields of one ProcessRequest: all of them, or none and `sameDefinitions`. */
export type DefinitionsPart = Definitions & { sameDefinitions: boolean };

const NO_DEFINITIONS: DefinitionsPart = { systemPrompt: "", loadedGroups: [], tools: [], sameDefinitions: true };

const sameTool = (a: ToolDefInit, b: ToolDefInit | undefined): boolean =>
  a === b ||
  (b !== undefined &&
    a.name === b.name &&
    a.description === b.description &&
    a.parametersJson === b.parametersJson &&
    a.group === b.group &&
    Boolean(a.terminalOnSuccess) === Boolean(b.terminalOnSuccess));

function sameDefinitions(a: Definitions, b: Definitions): boolean {
  return (
    a.systemPrompt === b.systemPrompt &&
    a.loadedGroups.length === b.loadedGroups.length &&
    a.loadedGroups.every((g, i) => g === b.loadedGroups[i]) &&
    a.tools.length === b.tools.length &&
    a.tools.every((t, i) => sameTool(t, b.tools[i]))
  );
}

interface SentState {
  /** The Agent connection it was sent to. */
  connection: number;
  generation: string;
  /** The records the sent context was built from. */
  records: readonly MessageRecord[];
  summary: string;
  skipped: number;
  /** Context messages the Agent holds under `generation`, and their chain digest. */
  count: number;
  digest: string;
  /** The definitions the Agent keeps with its copy. */
  definitions: Definitions;
}

/** Same stored message: the same record, or one with equal fields (a store may hand out copies). */
function sameRecord(a: MessageRecord, b: MessageRecord | undefined): boolean {
  if (a === b) return true;
  if (!b || a.id !== b.id || a.role !== b.role || a.content !== b.content || a.toolCalls.length !== b.toolCalls.length)
    return false;
  return a.toolCalls.every((c, i) => {
    const d = b.toolCalls[i];
    return (
      c === d ||
      (d !== undefined &&
        c.callId === d.callId &&
        c.toolName === d.toolName &&
        c.argumentsJson === d.argumentsJson &&
        c.result === d.result)
    );
  });
}

export class AgentHistory {
  private readonly sessions = new Map<string, SentState>();
  private connection = 0;

  /** A new Agent connection holds nothing. */
  connected(): void {
    this.connection++;
    this.sessions.clear();
  }

  forget(sessionId: string): void {
    this.sessions.delete(sessionId);
  }

  /** Sessions whose sent state is held. */
  get size(): number {
    return this.sessions.size;
  }

  /**
   * The history and definitions for the next ProcessRequest of `sessionId`, and the Agent's copy
   * as it will be once the request arrives. `whole`: send everything (the Agent said it lacks the base).
   */
  next(
    sessionId: string,
    records: readonly MessageRecord[],
    memory: SessionMemory,
    definitions: Definitions,
    whole = false,
  ): HistoryPart & DefinitionsPart {
    const summary = memory.summary;
    const skipped = summary ? Math.min(memory.compactedMessages, records.length) : 0;
    const prev = this.sessions.get(sessionId);
    if (!whole && prev && prev.count > 0 && this.extends(prev, records, summary, skipped)) {
      const added = records.slice(prev.records.length).flatMap(contextOf);
      const digest = added.length > 0 ? chainHistoryDigest(prev.digest, added) : prev.digest;
      const same = sameDefinitions(definitions, prev.definitions);
      const part = {
        history: added,
        historyGeneration: prev.generation,
        historyBase: prev.count,
        historyDigest: prev.digest,
        ...(same ? NO_DEFINITIONS : { ...definitions, sameDefinitions: false }),
      };
      this.sessions.set(sessionId, {
        ...prev,
        records: [...records],
        count: prev.count + added.length,
        digest,
        definitions: same ? prev.definitions : definitions,
      });
      return part;
    }
    const history = buildContext(records, memory);
    const generation = randomUUID();
    this.sessions.set(sessionId, {
      connection: this.connection,
      generation,
      // A copy: a caller's array may grow in place (an off-the-record session's is live).
      records: [...records],
      summary,
      skipped,
      count: history.length,
      digest: chainHistoryDigest("", history),
      definitions,
    });
    return {
      history,
      historyGeneration: generation,
      historyBase: 0,
      historyDigest: "",
      ...definitions,
      sameDefinitions: false,
    };
  }

  /** True when `records` only add to what was sent, under the same compaction, to this connection. */
  private extends(prev: SentState, records: readonly MessageRecord[], summary: string, skipped: number): boolean {
    if (prev.connection !== this.connection || prev.summary !== summary || prev.skipped !== skipped) return false;
    if (records.length < prev.records.length || skipped > prev.records.length) return false;
    for (let i = 0; i < prev.records.length; i++) {
      const r = records[i];
      if (!r || !sameRecord(r, prev.records[i])) return false;
    }
    return true;
  }
}
