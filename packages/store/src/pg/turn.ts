// A turn's rows in one PostgreSQL transaction (../turn.ts on SQLite): the session's row is
// locked first (its counters are updated once), each seq counter read once, then the rows.
import type { AuditKey } from "../audit.js";
import { StoreError, notFound } from "../errors.js";
import type { CommittedTurn, TurnRows } from "../turn.js";
import { turnMessages } from "../turn.js";
import type { MessageRecord, TokenUsage } from "../types.js";
import { checkToolCall } from "../writes.js";
import type { NewMessage } from "../writes.js";
import { appendAuditRows } from "./audit.js";
import type { Queryable } from "./db.js";
import { appendMemory, insertEvents, nextEventSeq, recordArtifact } from "./records.js";
import {
  addToSession,
  insertMessage,
  insertToolCall,
  lockSession,
  nextMessageSeq,
  recordSubAgentRun,
  recordToolCall,
  setAutoTitle,
} from "./writes.js";

export async function commitTurn(
  c: Queryable,
  sessionId: string,
  turn: TurnRows,
  auditKey: AuditKey | undefined,
): Promise<CommittedTurn> {
  const { own, mainMessages, runMessages } = turnMessages(sessionId, turn);
  const usage: TokenUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  let count = 0;
  let newest = 0;
  for (const m of [...mainMessages, ...runMessages]) {
    if ((m.subAgentRunId ?? null) === null) {
      count++;
      newest = Math.max(newest, m.createdAt);
    }
    if (m.usage) {
      usage.inputTokens += m.usage.inputTokens;
      usage.outputTokens += m.usage.outputTokens;
      usage.cacheReadTokens += m.usage.cacheReadTokens;
      usage.cacheWriteTokens += m.usage.cacheWriteTokens;
    }
  }
  const exists =
    mainMessages.length + runMessages.length > 0
      ? await addToSession(c, sessionId, count, newest, usage)
      : await lockSession(c, sessionId);
  if (!exists) throw notFound("session", sessionId);

  const seqs = new Map<string | null, number>();
  const insert = async (m: NewMessage): Promise<MessageRecord> => {
    const run = m.subAgentRunId ?? null;
    const seq = seqs.get(run) ?? (await nextMessageSeq(c, sessionId, run));
    seqs.set(run, seq + 1);
    return insertMessage(c, m, seq);
  };
  const messages: MessageRecord[] = [];
  for (const m of mainMessages) messages.push(await insert(m));
  for (const r of turn.subAgentRuns ?? []) await recordSubAgentRun(c, own(r));
  for (const m of runMessages) messages.push(await insert(m));
  const byId = new Map(messages.map((m) => [m.id, m]));
  for (const call of turn.toolCalls ?? []) {
    const ownMessage = byId.get(call.messageId);
    if (ownMessage === undefined) {
      const rec = await recordToolCall(c, call);
      if (rec.sessionId !== sessionId)
        throw new StoreError(
          "INVALID_ARGUMENT",
          `commitTurn(${sessionId}) got tool call ${call.callId} of session ${rec.sessionId}`,
        );
      continue;
    }
    checkToolCall(call);
    ownMessage.toolCalls.push(await insertToolCall(c, call, sessionId));
  }
  for (const a of turn.artifacts ?? []) await recordArtifact(c, own(a));
  for (const m of turn.memory ?? []) await appendMemory(c, own(m));
  const eventRows = turn.events ?? [];
  const eventSeq = eventRows.length > 0 ? await nextEventSeq(c, sessionId) : 0;
  const events = await insertEvents(c, eventRows.map(own), eventSeq);
  const audit = await appendAuditRows(
    c,
    (turn.audit ?? []).map((a) => ({ ...a, sessionId: a.sessionId ?? sessionId })),
    auditKey,
  );
  if (turn.autoTitle) await setAutoTitle(c, sessionId, turn.autoTitle.title, turn.autoTitle.source ?? "auto");
  return { messages, events, audit };
}
