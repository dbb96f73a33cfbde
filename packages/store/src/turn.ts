// A turn's rows in one transaction. The Engine commits one per turn, so this is the store's hot
// path: the session row is updated once for all messages, each seq counter is read once, and
// the records returned are built from what was inserted instead of read back.
import { appendAuditRows } from "./audit.js";
import type { AuditKey, NewAudit } from "./audit.js";
import type { Db } from "./db.js";
import { StoreError, notFound } from "./errors.js";
import { appendMemory, insertEvent, nextEventSeq, recordArtifact } from "./records.js";
import type { NewArtifact, NewEvent, NewMemory } from "./inputs.js";
import type { AuditRecord, EventRecord, MessageRecord, TokenUsage } from "./types.js";
import {
  addToSession,
  checkMessage,
  checkToolCall,
  insertMessage,
  insertToolCall,
  nextMessageSeq,
  recordSubAgentRun,
  recordToolCall,
  setAutoTitle,
} from "./writes.js";
import type { NewMessage, NewSubAgentRun, NewToolCall } from "./inputs.js";

/** A row of a turn: its sessionId may be omitted (it is the turn's). */
export type InTurn<T extends { sessionId?: string }> = Omit<T, "sessionId"> & { sessionId?: string };

/** All rows of one turn, written in one transaction (in this order, so references resolve). */
export interface TurnRows {
  /** Main-history messages (user, assistant rounds, tool results). */
  messages?: Array<InTurn<NewMessage>>;
  subAgentRuns?: Array<InTurn<NewSubAgentRun>>;
  /** Transcript messages of the sub-agent runs above (subAgentRunId set). */
  subAgentMessages?: Array<InTurn<NewMessage>>;
  toolCalls?: NewToolCall[];
  artifacts?: Array<InTurn<NewArtifact>>;
  memory?: Array<InTurn<NewMemory>>;
  events?: Array<InTurn<NewEvent>>;
  audit?: NewAudit[];
  /** Replace the title unless the user chose one. */
  autoTitle?: { title: string; source?: "auto" | "first_message" };
}

export interface CommittedTurn {
  messages: MessageRecord[];
  events: EventRecord[];
  audit: AuditRecord[];
}

/**
 * A turn's rows checked as one session's (a row naming another session is refused) and its messages
 * with their creation time: the part of commitTurn both stores share.
 */
export function turnMessages(sessionId: string, turn: TurnRows) {
  const own = <T extends { sessionId?: string }>(x: T): T & { sessionId: string } => {
    if (x.sessionId !== undefined && x.sessionId !== sessionId) {
      throw new StoreError("INVALID_ARGUMENT", `commitTurn(${sessionId}) got a row of session ${x.sessionId}`);
    }
    return { ...x, sessionId };
  };
  const now = Date.now();
  const inTurn = (m: InTurn<NewMessage>): NewMessage & { sessionId: string; createdAt: number } => {
    const x = own(m);
    checkMessage(x);
    return { ...x, createdAt: x.createdAt ?? now };
  };
  const mainMessages = (turn.messages ?? []).map(inTurn);
  const runMessages = (turn.subAgentMessages ?? []).map(inTurn);
  // The session's counters for all messages of the turn at once, as appendMessage keeps them:
  // main-history messages count and move updated_at, every message's usage adds up.
  const usage: TokenUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  let count = 0;
  let newest = 0;
  for (const m of [...mainMessages, ...runMessages]) {
    if ((m.subAgentRunId ?? null) === null) {
      count++;
      newest = Math.max(newest, m.createdAt);
    }
    const u = m.usage;
    if (u) {
      usage.inputTokens += u.inputTokens;
      usage.outputTokens += u.outputTokens;
      usage.cacheReadTokens += u.cacheReadTokens;
      usage.cacheWriteTokens += u.cacheWriteTokens;
    }
  }
  return { own, mainMessages, runMessages, counters: { count, newest, usage } };
}

export function commitTurn(db: Db, sessionId: string, turn: TurnRows, auditKey: AuditKey | undefined): CommittedTurn {
  const { own, mainMessages, runMessages, counters } = turnMessages(sessionId, turn);
  const { count, newest, usage } = counters;
  return db.tx(() => {
    const exists =
      mainMessages.length + runMessages.length > 0
        ? addToSession(db, sessionId, count, newest, usage)
        : db.stmt("SELECT 1 FROM sessions WHERE id = ?").get(sessionId) !== undefined;
    if (!exists) throw notFound("session", sessionId);

    // Each history's next seq is read once (the main history's, each sub-agent run's).
    const seqs = new Map<string | null, number>();
    const insert = (m: NewMessage): MessageRecord => {
      const run = m.subAgentRunId ?? null;
      const seq = seqs.get(run) ?? nextMessageSeq(db, sessionId, run);
      seqs.set(run, seq + 1);
      return insertMessage(db, m, seq);
    };
    const messages = mainMessages.map(insert);
    for (const r of turn.subAgentRuns ?? []) recordSubAgentRun(db, own(r));
    for (const m of runMessages) messages.push(insert(m));
    const byId = new Map(messages.map((m) => [m.id, m]));
    for (const c of turn.toolCalls ?? []) {
      const ownMessage = byId.get(c.messageId);
      if (ownMessage === undefined) {
        // A call of an earlier message: recordToolCall finds that message's session.
        const rec = recordToolCall(db, c);
        if (rec.sessionId !== sessionId)
          throw new StoreError(
            "INVALID_ARGUMENT",
            `commitTurn(${sessionId}) got tool call ${c.callId} of session ${rec.sessionId}`,
          );
        continue;
      }
      checkToolCall(c);
      ownMessage.toolCalls.push(insertToolCall(db, c, sessionId));
    }
    for (const a of turn.artifacts ?? []) recordArtifact(db, own(a));
    for (const m of turn.memory ?? []) appendMemory(db, own(m));
    const eventRows = turn.events ?? [];
    let eventSeq = eventRows.length > 0 ? nextEventSeq(db, sessionId) : 0;
    const events = eventRows.map((e) => insertEvent(db, own(e), eventSeq++));
    const audit = appendAuditRows(
      db,
      (turn.audit ?? []).map((a) => ({ ...a, sessionId: a.sessionId ?? sessionId })),
      auditKey,
    );
    if (turn.autoTitle) setAutoTitle(db, sessionId, turn.autoTitle.title, turn.autoTitle.source ?? "auto");
    return { messages, events, audit };
  });
}
