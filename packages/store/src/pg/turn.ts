// A turn's rows in one PostgreSQL transaction (../turn.ts on SQLite). A turn of messages, their
// tool calls, events and audit entries is one statement (turn-sql.ts TURN_COMMIT: one round trip,
// one WAL flush) when the audit head its rows are chained from is the one this store last saw,
// as it is while no other Engine appends meanwhile. Otherwise four round trips: BEGIN; one
// statement that locks what the turn writes under (the session's lease when fenced, the session's
// row with its counters updated, the audit chain's head); one statement that inserts the rows
// (multi-row, seqs counted on the server) and moves the audit head and the title; COMMIT.
// The rare rows (sub-agent runs and their transcripts, artifacts, memory, a call of an earlier
// message) take their own statements between a first insert of the main messages and the rest.
import type { PoolClient } from "pg";
import { chainRows, GENESIS_HASH } from "../audit.js";
import type { AuditKey } from "../audit.js";
import { StoreError, notFound } from "../errors.js";
import { TOOL_CALL_COLUMNS, messageRow, toolCallRow } from "../new-rows.js";
import { messageFromRow, toolCallFromRow } from "../rows.js";
import type { Row } from "../rows.js";
import type { CommittedTurn, TurnRows } from "../turn.js";
import { turnMessages } from "../turn.js";
import type { AuditRecord, EventRecord, MessageRecord } from "../types.js";
import { checkToolCall } from "../writes.js";
import type { NewToolCall } from "../inputs.js";
import type { PgDb } from "./db.js";
import { mapPgError } from "./errors.js";
import { searchVector } from "./fts-vector.js";
import type { KnownLexemes } from "./lexemes.js";
import { takenOver } from "./leases.js";
import { appendMemory, recordArtifact } from "./records.js";
import {
  MESSAGE_COLUMNS,
  TURN_COMMIT,
  TURN_HEAD_MOVED,
  TURN_INSERT,
  TURN_LOCK,
  TURN_NO_SESSION,
  TURN_TAKEN_OVER,
} from "./turn-sql.js";
import { insertMessage, nextMessageSeq, recordSubAgentRun, recordToolCall } from "./writes.js";

interface Batch {
  /** Rows of main-history messages (seq not yet known) and of tool calls, built once. */
  messages: Row[];
  toolCalls: Row[];
  events: NonNullable<TurnRows["events"]>;
  audit: AuditRecord[];
  autoTitle?: TurnRows["autoTitle"];
  /** Words for the lexeme table: those of the rows above and `lexemes.more`, less those `lexemes.known` has; none when absent. */
  lexemes?: { known: KnownLexemes; more: readonly string[] };
}

type Bases = { messageBase: number; eventBase: number };

/** TURN_INSERT's parameters for `b` (TURN_COMMIT's first ones), and the words they add to the lexeme table. */
function batchParams(sessionId: string, b: Batch): { values: unknown[]; lexemes: string[] } {
  const column = <T>(rows: readonly T[], get: (r: T) => unknown): unknown[] => rows.map(get);
  const mrows = b.messages;
  const crows = b.toolCalls;
  const text = (v: unknown): string | null => (typeof v === "string" ? v : null);
  const last = b.audit[b.audit.length - 1];
  const source = b.autoTitle?.source ?? "auto";
  const mvectors = mrows.map((m) => searchVector([text(m.content)]));
  const cvectors = crows.map((t) => searchVector([text(t.tool_name), text(t.arguments_json), text(t.result)]));
  const lexemes = b.lexemes
    ? b.lexemes.known.unknown([...mvectors, ...cvectors].flatMap((v) => v.lexemes).concat(b.lexemes.more))
    : [];
  const values = [
    sessionId,
    ...MESSAGE_COLUMNS.map((col) => column(mrows, (r) => r[col])),
    mvectors.map((v) => v.tsv),
    ...TOOL_CALL_COLUMNS.map((col) => column(crows, (r) => r[col])),
    cvectors.map((v) => v.tsv),
    column(b.events, (e) => e.messageId ?? ""),
    column(b.events, (e) => e.type),
    column(b.events, (e) => (typeof e.payload === "string" ? e.payload : JSON.stringify(e.payload ?? {}))),
    column(b.events, (e) => e.createdAt),
    column(b.audit, (r) => r.seq),
    column(b.audit, (r) => r.ts),
    column(b.audit, (r) => r.sessionId),
    column(b.audit, (r) => r.kind),
    column(b.audit, (r) => r.actor),
    column(b.audit, (r) => r.callId),
    column(b.audit, (r) => r.payload),
    column(b.audit, (r) => r.prevHash),
    column(b.audit, (r) => r.hash),
    last?.seq ?? null,
    last?.hash ?? null,
    b.autoTitle?.title ?? null,
    source,
    source === "auto" ? ["none", "first_message", "auto"] : ["none", "first_message"],
    lexemes,
  ];
  return { values, lexemes };
}

function insertFailed(cause: unknown, sessionId: string): never {
  const detail = (cause as { detail?: unknown }).detail;
  const what = `commitTurn(${sessionId}): ${typeof detail === "string" ? detail : (cause as Error).message}`;
  return mapPgError(cause, {
    conflict: `${what} (a message or tool call of this turn is already recorded)`,
    missing: `${what} (a parent message or sub-agent run does not exist)`,
    invalid: `${what} (a role, verdict or approval decision is not one the store knows)`,
  });
}

/**
 * The main messages, tool calls, events and audit rows of `b` in one statement; the seqs it gave
 * the messages and events, and the words it added to the lexeme table.
 */
async function insertBatch(c: PoolClient, sessionId: string, b: Batch): Promise<Bases & { lexemes: string[] }> {
  try {
    const { values, lexemes } = batchParams(sessionId, b);
    const r = await c.query<{ message_base: number; event_base: number }>({
      name: "palisade_commit_turn",
      text: TURN_INSERT,
      values,
    });
    const row = r.rows[0] as { message_base: number; event_base: number };
    return { messageBase: row.message_base, eventBase: row.event_base, lexemes };
  } catch (cause) {
    return insertFailed(cause, sessionId);
  }
}

/** The audit head a store last wrote or saw: a turn's audit rows are chained from it before the head is locked. */
export interface HeadHint {
  head?: { seq: number; hash: string };
}

/** A turn's rows as they are inserted, built once (a default id or time is the same in the database and in the records returned). */
function turnBatch(sessionId: string, turn: TurnRows) {
  const { own, mainMessages, runMessages, counters } = turnMessages(sessionId, turn);
  const auditIn = (turn.audit ?? []).map((a) => ({ ...a, sessionId: a.sessionId ?? sessionId }));
  const mainRows = mainMessages.map((m) => messageRow(m, 0));
  const mainIds = new Set(mainRows.map((r) => r.id as string));
  const toolCalls = turn.toolCalls ?? [];
  const now = Date.now();
  const events = (turn.events ?? []).map((e) => ({ ...own(e), createdAt: e.createdAt ?? now }));
  const rare =
    (turn.subAgentRuns?.length ?? 0) + runMessages.length + (turn.artifacts?.length ?? 0) + (turn.memory?.length ?? 0) >
      0 || toolCalls.some((t) => !mainIds.has(t.messageId));
  return { own, runMessages, counters, auditIn, mainRows, toolCalls, events, rare };
}
type TurnBatch = ReturnType<typeof turnBatch>;

function committed(
  sessionId: string,
  b: TurnBatch,
  bases: Bases,
  messages: MessageRecord[],
  ownCalls: Row[],
  audit: AuditRecord[],
): CommittedTurn {
  const byId = new Map(messages.map((m) => [m.id, m]));
  for (const r of ownCalls) byId.get(r.message_id as string)?.toolCalls.push(toolCallFromRow(r));
  const events: EventRecord[] = b.events.map((e, i) => ({
    sessionId,
    seq: bases.eventBase + i + 1,
    messageId: e.messageId ?? "",
    type: e.type,
    payload: typeof e.payload === "string" ? e.payload : JSON.stringify(e.payload ?? {}),
    createdAt: e.createdAt,
  }));
  return { messages, events, audit };
}

const mainRecords = (rows: Row[], base: number): MessageRecord[] =>
  rows.map((r, i) => messageFromRow({ ...r, seq: base + i + 1 }));

/**
 * A turn's commit, in one statement (TURN_COMMIT) when it can be: a turn of main messages, their
 * tool calls, events and audit rows, whose audit head is known (`hint`). Otherwise, or when another
 * Engine moved the audit head since, under BEGIN … COMMIT (commitInTx). `hint` is kept up to date.
 */
export async function commitTurn(
  db: PgDb,
  sessionId: string,
  turn: TurnRows,
  auditKey: AuditKey | undefined,
  hint: HeadHint,
  known: KnownLexemes,
  fence?: { engineId: string },
): Promise<CommittedTurn> {
  const b = turnBatch(sessionId, turn);
  const auditWanted = b.auditIn.length > 0;
  if (!b.rare && (!auditWanted || hint.head !== undefined)) {
    const head = hint.head ?? { seq: 0, hash: GENESIS_HASH };
    const audit = chainRows(head, b.auditIn, auditKey);
    const ownCalls = b.toolCalls.map((call) => {
      checkToolCall(call);
      return toolCallRow(call, sessionId);
    });
    const batch = batchParams(sessionId, {
      messages: b.mainRows,
      toolCalls: ownCalls,
      events: b.events,
      audit,
      ...(turn.autoTitle ? { autoTitle: turn.autoTitle } : {}),
      lexemes: { known, more: [] },
    });
    const params = [
      ...batch.values,
      fence?.engineId ?? null,
      auditWanted,
      auditWanted ? head.seq : null,
      auditWanted ? head.hash : null,
      ...counterParams(b),
    ];
    let r: { rows: Array<{ message_base: number; event_base: number }> } | undefined;
    try {
      r = await db.pool.query<{ message_base: number; event_base: number }>({
        name: "palisade_commit_turn_locked",
        text: TURN_COMMIT,
        values: params,
      });
    } catch (cause) {
      const e = cause as { code?: unknown; detail?: unknown; hint?: unknown };
      if (e.code === TURN_TAKEN_OVER) throw takenOver(sessionId, String(e.detail));
      if (e.code === TURN_NO_SESSION) throw notFound("session", sessionId);
      if (e.code !== TURN_HEAD_MOVED) insertFailed(cause, sessionId);
      // Another Engine appended to the chain: commit under the locks, from the head as it is.
      delete hint.head;
    }
    if (r !== undefined) {
      const row = r.rows[0] as { message_base: number; event_base: number };
      const bases = { messageBase: row.message_base, eventBase: row.event_base };
      rememberHead(hint, audit);
      known.learn(batch.lexemes);
      return committed(sessionId, b, bases, mainRecords(b.mainRows, bases.messageBase), ownCalls, audit);
    }
  }
  const { done, lexemes } = await db.tx((c) => commitInTx(c, sessionId, turn, b, auditKey, known, fence));
  rememberHead(hint, done.audit);
  known.learn(lexemes);
  return done;
}

/** The session counters' parameters, in the order both commit statements take them (as addToSession). */
function counterParams(b: TurnBatch): number[] {
  const { count, newest, usage } = b.counters;
  return [count, newest, usage.inputTokens, usage.outputTokens, usage.cacheReadTokens, usage.cacheWriteTokens];
}

/** The head a committed turn's audit rows leave, for the next turn's one-statement commit. */
function rememberHead(hint: HeadHint, audit: ReadonlyArray<{ seq: number; hash: string }>): void {
  const last = audit[audit.length - 1];
  if (last) hint.head = { seq: last.seq, hash: last.hash };
}

/** The turn under BEGIN … COMMIT: its locks first (TURN_LOCK), then its rows. */
async function commitInTx(
  c: PoolClient,
  sessionId: string,
  turn: TurnRows,
  b: TurnBatch,
  auditKey: AuditKey | undefined,
  known: KnownLexemes,
  fence?: { engineId: string },
): Promise<{ done: CommittedTurn; lexemes: string[] }> {
  const lock = (
    await c.query<{
      lease_engine: string | null;
      lease_live: boolean | null;
      found: number;
      head_seq: number | null;
      head_hash: string | null;
    }>(TURN_LOCK, [sessionId, fence !== undefined, b.auditIn.length > 0, ...counterParams(b)])
  ).rows[0];
  if (fence && lock?.lease_engine != null && lock.lease_engine !== fence.engineId && lock.lease_live === true)
    throw takenOver(sessionId, lock.lease_engine);
  if (!lock || lock.found === 0) throw notFound("session", sessionId);
  const head =
    lock.head_seq !== null && lock.head_hash !== null
      ? { seq: lock.head_seq, hash: lock.head_hash }
      : { seq: 0, hash: GENESIS_HASH };
  const audit = chainRows(head, b.auditIn, auditKey);
  const { own, mainRows, toolCalls, events } = b;

  const messages: MessageRecord[] = [];
  const ownCalls: Row[] = [];
  const ownCall = (call: NewToolCall): void => {
    checkToolCall(call);
    ownCalls.push(toolCallRow(call, sessionId));
  };
  const rest = (): Batch => ({
    messages: [],
    toolCalls: ownCalls,
    events,
    audit,
    ...(turn.autoTitle ? { autoTitle: turn.autoTitle } : {}),
  });
  let bases: Bases;
  let lexemes: string[];
  if (!b.rare) {
    toolCalls.forEach(ownCall);
    ({ lexemes, ...bases } = await insertBatch(c, sessionId, {
      ...rest(),
      messages: mainRows,
      lexemes: { known, more: [] },
    }));
    messages.push(...mainRecords(mainRows, bases.messageBase));
  } else {
    // The words of every row of the turn in the first statement: one insert into the lexeme table
    // per transaction, in one order, so that two turns adding the same new words never deadlock.
    const more = [
      ...b.runMessages.map((m) => m.content),
      ...toolCalls.flatMap((t) => [t.toolName, t.argumentsJson ?? null, t.result ?? null]),
    ];
    const first = await insertBatch(c, sessionId, {
      messages: mainRows,
      toolCalls: [],
      events: [],
      audit: [],
      lexemes: { known, more: more.flatMap((text) => searchVector([text]).lexemes) },
    });
    lexemes = first.lexemes;
    messages.push(...mainRecords(mainRows, first.messageBase));
    for (const r of turn.subAgentRuns ?? []) await recordSubAgentRun(c, own(r));
    const seqs = new Map<string, number>();
    for (const m of b.runMessages) {
      const run = m.subAgentRunId as string;
      const seq = seqs.get(run) ?? (await nextMessageSeq(c, sessionId, run));
      seqs.set(run, seq + 1);
      messages.push(await insertMessage(c, m, seq, false));
    }
    const ids = new Set(messages.map((m) => m.id));
    for (const call of toolCalls) {
      if (ids.has(call.messageId)) {
        ownCall(call);
        continue;
      }
      // A call of an earlier message: recordToolCall finds that message's session.
      const rec = await recordToolCall(c, call, false);
      if (rec.sessionId !== sessionId)
        throw new StoreError(
          "INVALID_ARGUMENT",
          `commitTurn(${sessionId}) got tool call ${call.callId} of session ${rec.sessionId}`,
        );
    }
    for (const a of turn.artifacts ?? []) await recordArtifact(c, own(a));
    for (const m of turn.memory ?? []) await appendMemory(c, own(m));
    bases = await insertBatch(c, sessionId, rest());
  }
  return { done: committed(sessionId, b, bases, messages, ownCalls, audit), lexemes };
}
