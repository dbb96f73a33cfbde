// Session lists, paginated history, sub-agent transcripts and export on PostgreSQL. Read-only.
import { StoreError, notFound } from "../errors.js";
import { renderExport, sessionArtifacts } from "../export.js";
import type { ExportFormat, ExportOptions, ExportResult, SessionExport } from "../export.js";
import { clampInt, decodeCursor, encodeCursor, SORTS } from "../history.js";
import type { HistoryOptions, HistoryPage, ListSessionsOptions, SessionPage } from "../history.js";
import { messageFromRow, sessionFromRow, subAgentRunFromRow, toolCallFromRow } from "../rows.js";
import type { Row } from "../rows.js";
import type { EventRecord, MessageRecord, SubAgentRunRecord, ToolCallRecord } from "../types.js";
import type { Queryable } from "./db.js";
import { listArtifacts, listEvents, listMemory } from "./records.js";
import { getSessionRow } from "./writes.js";

const ORDER: Record<string, string> = {
  updated_desc: "updated_at DESC, id DESC",
  updated_asc: "updated_at ASC, id ASC",
  created_desc: "created_at DESC, id DESC",
  created_asc: "created_at ASC, id ASC",
  title: "lower(title) ASC, id ASC",
};

export async function listSessions(c: Queryable, options: ListSessionsOptions = {}): Promise<SessionPage> {
  const limit = clampInt(options.limit, 50, 1, 1000, "limit");
  const offset = options.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0)
    throw new StoreError("INVALID_ARGUMENT", `offset must be an integer >= 0, got ${offset}`);
  const sort = options.sort ?? "updated_desc";
  const order = Object.hasOwn(ORDER, sort) ? ORDER[sort] : undefined;
  if (order === undefined)
    throw new StoreError(
      "INVALID_ARGUMENT",
      `unknown sort ${JSON.stringify(options.sort)}: use one of ${SORTS.join(", ")}`,
    );
  const filter = options.titleFilter ?? "";
  if (filter === "") {
    const [rows, total] = await Promise.all([
      c.query<Row>(`SELECT * FROM sessions ORDER BY ${order} LIMIT $1 OFFSET $2`, [limit, offset]),
      c.query<{ n: number }>("SELECT COUNT(*) AS n FROM sessions"),
    ]);
    return { sessions: rows.rows.map(sessionFromRow), total: total.rows[0]?.n ?? 0 };
  }
  const like = `%${filter.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
  const rows = await c.query<Row>(`SELECT * FROM sessions WHERE title ILIKE $1 ORDER BY ${order} LIMIT $2 OFFSET $3`, [
    like,
    limit,
    offset,
  ]);
  const total = await c.query<{ n: number }>("SELECT COUNT(*) AS n FROM sessions WHERE title ILIKE $1", [like]);
  return { sessions: rows.rows.map(sessionFromRow), total: total.rows[0]?.n ?? 0 };
}

function attach(messages: MessageRecord[], calls: ToolCallRecord[]): void {
  const byId = new Map(messages.map((m) => [m.id, m]));
  for (const call of calls) byId.get(call.messageId)?.toolCalls.push(call);
}

export async function getHistory(c: Queryable, sessionId: string, options: HistoryOptions = {}): Promise<HistoryPage> {
  const limit = clampInt(options.limit, 50, 1, 1000, "limit");
  const before = options.cursor ? decodeCursor(options.cursor) : 2 ** 31 - 1;
  const rows = (
    await c.query<Row>(
      "SELECT * FROM messages WHERE session_id = $1 AND sub_agent_run_id IS NULL AND seq < $2 ORDER BY seq DESC LIMIT $3",
      [sessionId, before, limit + 1],
    )
  ).rows;
  const more = rows.length > limit;
  const page = rows
    .slice(0, limit)
    .reverse()
    .map((r) => messageFromRow(r, []));
  const first = page[0];
  if (first) {
    const calls = await c.query<Row>("SELECT * FROM tool_calls WHERE message_id = ANY($1) ORDER BY pk", [
      page.map((m) => m.id),
    ]);
    attach(page, calls.rows.map(toolCallFromRow));
  }
  return { messages: page, nextCursor: more && first ? encodeCursor(first.seq) : "" };
}

export async function listSubAgentRuns(c: Queryable, sessionId: string): Promise<SubAgentRunRecord[]> {
  return (
    await c.query<Row>("SELECT * FROM sub_agent_runs WHERE session_id = $1 ORDER BY started_at, id", [sessionId])
  ).rows.map(subAgentRunFromRow);
}

export async function getSubAgentTranscript(c: Queryable, runId: string): Promise<MessageRecord[]> {
  const messages = (
    await c.query<Row>("SELECT * FROM messages WHERE sub_agent_run_id = $1 ORDER BY seq", [runId])
  ).rows.map((r) => messageFromRow(r, []));
  attach(
    messages,
    (await c.query<Row>("SELECT * FROM tool_calls WHERE sub_agent_run_id = $1 ORDER BY pk", [runId])).rows.map(
      toolCallFromRow,
    ),
  );
  return messages;
}

export async function collectExport(c: Queryable, id: string, options: ExportOptions = {}): Promise<SessionExport> {
  const session = await getSessionRow(c, id);
  if (!session) throw notFound("session", id);
  const messages: MessageRecord[] = [];
  let cursor = "";
  do {
    const page = await getHistory(c, id, { limit: 1000, ...(cursor ? { cursor } : {}) });
    messages.unshift(...page.messages);
    cursor = page.nextCursor;
  } while (cursor !== "");
  const runs = await listSubAgentRuns(c, id);
  const subAgentRuns = [];
  for (const run of runs) subAgentRuns.push({ ...run, transcript: await getSubAgentTranscript(c, run.id) });
  const data: SessionExport = {
    format: "palisade.session-export",
    version: 1,
    exportedAt: options.now ?? Date.now(),
    session,
    messages,
    subAgentRuns,
    artifacts: [],
    memory: await listMemory(c, id),
  };
  data.artifacts = sessionArtifacts(
    await listArtifacts(c, id),
    [...messages, ...subAgentRuns.flatMap((r) => r.transcript)],
    id,
  );
  if (options.includeEvents) {
    const events: EventRecord[] = [];
    for (
      let batch = await listEvents(c, id, 0, 5000);
      batch.length > 0;
      batch = await listEvents(c, id, batch[batch.length - 1]?.seq ?? 0, 5000)
    ) {
      events.push(...batch);
    }
    data.events = events;
  }
  return data;
}

export async function exportSession(
  c: Queryable,
  id: string,
  format: ExportFormat,
  options: ExportOptions = {},
): Promise<ExportResult> {
  return renderExport(await collectExport(c, id, options), id, format);
}
