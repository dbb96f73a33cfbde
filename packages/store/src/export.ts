// Session export: JSON (everything, machine-readable) and Markdown (for people). Read-only.
import { storedApprovalWords } from "@palisade/shield/words";
import type { Db } from "./db.js";
import { notFound } from "./errors.js";
import { getHistory, getSession, getSubAgentTranscript, listSubAgentRuns } from "./history.js";
import { listArtifacts, listEvents, listMemory } from "./records.js";
import { inTextOrder } from "./text-order.js";
import type {
  ArtifactRecord,
  EventRecord,
  MemoryRecord,
  MessageRecord,
  SessionRecord,
  SubAgentRunRecord,
  ToolCallRecord,
} from "./types.js";

export type ExportFormat = "md" | "json";

export interface ExportOptions {
  /** Include the pipeline event log (JSON only; can be large). Default false. */
  includeEvents?: boolean;
  now?: number;
}

export interface SessionExport {
  format: "palisade.session-export";
  version: 1;
  exportedAt: number;
  session: SessionRecord;
  messages: MessageRecord[];
  subAgentRuns: Array<SubAgentRunRecord & { transcript: MessageRecord[] }>;
  artifacts: ArtifactRecord[];
  memory: MemoryRecord[];
  events?: EventRecord[];
}

export interface ExportResult {
  content: string;
  filename: string;
  mimeType: string;
}

/**
 * The artifacts of a session: the ones stored here, and the ones its tool calls produced that a
 * capability host keeps (their bytes and expiry live there: `hasData` false, `expiresAt` null).
 */
export function sessionArtifacts(
  stored: ArtifactRecord[],
  messages: MessageRecord[],
  sessionId: string,
): ArtifactRecord[] {
  const out = [...stored];
  const seen = new Set(stored.map((a) => a.id));
  for (const m of messages) {
    for (const c of m.toolCalls) {
      for (const a of c.artifacts) {
        if (seen.has(a.artifactId)) continue;
        seen.add(a.artifactId);
        out.push({
          id: a.artifactId,
          sessionId,
          owner: "",
          callId: c.callId,
          filename: a.filename,
          mimeType: a.mimeType,
          sizeBytes: a.sizeBytes,
          sha256: null,
          path: null,
          hasData: false,
          createdAt: c.createdAt,
          expiresAt: null,
        });
      }
    }
  }
  return out;
}

export function collectExport(db: Db, id: string, options: ExportOptions = {}): SessionExport {
  const session = getSession(db, id);
  if (!session) throw notFound("session", id);
  const messages: MessageRecord[] = [];
  let cursor = "";
  do {
    const page = getHistory(db, id, { limit: 1000, cursor: cursor || undefined });
    messages.unshift(...page.messages);
    cursor = page.nextCursor;
  } while (cursor !== "");
  const data: SessionExport = {
    format: "palisade.session-export",
    version: 1,
    exportedAt: options.now ?? Date.now(),
    session,
    messages,
    subAgentRuns: listSubAgentRuns(db, id).map((run) => ({ ...run, transcript: getSubAgentTranscript(db, run.id) })),
    artifacts: [],
    memory: listMemory(db, id),
  };
  data.artifacts = sessionArtifacts(
    listArtifacts(db, id),
    [...messages, ...data.subAgentRuns.flatMap((r) => r.transcript)],
    id,
  );
  if (options.includeEvents) {
    const events: EventRecord[] = [];
    for (
      let batch = listEvents(db, id, 0, 5000);
      batch.length > 0;
      batch = listEvents(db, id, batch[batch.length - 1]?.seq ?? 0, 5000)
    ) {
      events.push(...batch);
    }
    data.events = events;
  }
  return data;
}

const iso = (ms: number): string => new Date(ms).toISOString();

function fence(text: string, lang = ""): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((m) => m.length));
  const f = "`".repeat(longest + 1);
  return `${f}${lang}\n${text}\n${f}`;
}

function toolCallMd(c: ToolCallRecord): string {
  const lines = [
    `#### Tool call \`${c.toolName}\` (${c.callId})${c.subAgentName ? ` — sub-agent ${c.subAgentName}` : ""}`,
    "",
    fence(c.argumentsJson, "json"),
    "",
  ];
  if (c.verdict) {
    const v = c.verdict;
    lines.push(
      `- Shield: **${v.decision}** (tier ${v.tier}, confidence ${v.confidence})${v.reason ? ` — ${v.reason}` : ""}${v.ruleIds.length ? ` [rules: ${v.ruleIds.join(", ")}]` : ""}`,
    );
  }
  if (c.approval)
    lines.push(
      `- Approval: **${storedApprovalWords(c.approval.decision)}** by ${c.approval.by || "?"} at ${iso(c.approval.at)}`,
    );
  if (c.durationMs !== null) lines.push(`- Duration: ${c.durationMs} ms`);
  if (c.resultTrust) lines.push(`- Provenance: result labelled **${c.resultTrust}**`);
  for (const a of c.artifacts)
    lines.push(`- Artifact: ${a.filename} (${a.mimeType}, ${a.sizeBytes} bytes, id ${a.artifactId})`);
  if (c.result !== null) lines.push("", c.isError ? "Result (error):" : "Result:", "", fence(c.result));
  return lines.join("\n");
}

function messageMd(m: MessageRecord): string {
  const usage = m.usage ? ` · tokens in ${m.usage.inputTokens} / out ${m.usage.outputTokens}` : "";
  const head = `### ${m.role} · #${m.seq} · ${iso(m.createdAt)}${usage}`;
  const body = inTextOrder(m.content, m.toolCalls).map((p) =>
    p.kind === "text" ? p.text : `\n${toolCallMd(p.call)}\n`,
  );
  return [head, "", ...body].join("\n");
}

export function renderMarkdown(e: SessionExport): string {
  const s = e.session;
  const out = [
    `# ${s.title || "Untitled session"}`,
    "",
    `- Session: ${s.id}`,
    `- Mode: ${s.mode} · Model: ${s.model || "unknown"} · Workspace: ${s.workspace || "?"}`,
    `- Created: ${iso(s.createdAt)} · Updated: ${iso(s.updatedAt)} · Messages: ${s.messageCount}`,
    `- Tokens: in ${s.usage.inputTokens}, out ${s.usage.outputTokens}, cache read ${s.usage.cacheReadTokens}, cache write ${s.usage.cacheWriteTokens}`,
    "",
    "## Conversation",
    "",
    ...e.messages.map((m) => `${messageMd(m)}\n`),
  ];
  if (e.subAgentRuns.length > 0) {
    out.push("## Sub-agent runs", "");
    for (const r of e.subAgentRuns) {
      out.push(
        `### ${r.name} (${r.id}) — ${r.state}`,
        "",
        `- Task: ${r.task}`,
        `- Started ${iso(r.startedAt)}${r.endedAt !== null ? `, ended ${iso(r.endedAt)}` : ""}`,
        `- LLM calls: ${r.llmCalls}, tool calls: ${r.toolCalls}`,
      );
      if (r.result !== null) out.push(`- Result: ${r.result}`);
      if (r.error !== null) out.push(`- Error: ${r.error}`);
      out.push("", ...r.transcript.map((m) => `${messageMd(m).replace(/^###/, "####")}\n`));
    }
  }
  if (e.artifacts.length > 0) {
    out.push("## Artifacts", "", "| id | file | type | bytes | created | expires |", "|---|---|---|---|---|---|");
    for (const a of e.artifacts) {
      const expires =
        a.expiresAt !== null
          ? iso(a.expiresAt)
          : a.hasData || a.path !== null
            ? "never"
            : "with the capability's store";
      out.push(`| ${a.id} | ${a.filename} | ${a.mimeType} | ${a.sizeBytes} | ${iso(a.createdAt)} | ${expires} |`);
    }
    out.push("");
  }
  if (e.memory.length > 0) {
    out.push("## Memory", "", ...e.memory.map((m) => `- ${iso(m.createdAt)}: ${m.content}`), "");
  }
  return out.join("\n");
}

export function exportSession(db: Db, id: string, format: ExportFormat, options: ExportOptions = {}): ExportResult {
  return renderExport(collectExport(db, id, options), id, format);
}

/** The export file of collected data (either store). */
export function renderExport(data: SessionExport, id: string, format: ExportFormat): ExportResult {
  const base = `palisade-session-${id}`;
  return format === "json"
    ? { content: `${JSON.stringify(data, null, 2)}\n`, filename: `${base}.json`, mimeType: "application/json" }
    : { content: renderMarkdown(data), filename: `${base}.md`, mimeType: "text/markdown" };
}
