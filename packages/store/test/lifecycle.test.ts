import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import type { SessionExport, Store } from "@palisade/store";
import { allow, escalate, tempStore } from "./helpers.js";

function fullSession(store: Store, id: string, at: number): void {
  store.createSession({ id, title: `Session ${id}`, titleSource: "user", createdAt: at, model: "gpt-test", workspace: "/w" });
  store.commitTurn(id, {
    messages: [
      { id: `${id}-u`, role: "user", content: "fetch the report and summarize", createdAt: at },
      { id: `${id}-a`, role: "assistant", content: "Here is the summary.", createdAt: at + 10, usage: { inputTokens: 30, outputTokens: 12, cacheReadTokens: 0, cacheWriteTokens: 0 } },
    ],
    subAgentRuns: [{ id: `${id}-r`, parentMessageId: `${id}-a`, name: "summarizer", task: "summarize report", state: "completed", result: "3 bullet points", llmCalls: 1, toolCalls: 1, startedAt: at + 1, endedAt: at + 9 }],
    subAgentMessages: [{ id: `${id}-sa`, subAgentRunId: `${id}-r`, role: "assistant", content: "reading report", createdAt: at + 2 }],
    toolCalls: [
      {
        callId: "c1", messageId: `${id}-a`, toolName: "http__post", argumentsJson: '{"url":"https://x"}', verdict: escalate,
        approval: { decision: "allow_once", by: "tui", at: at + 5 }, result: "posted", durationMs: 20, createdAt: at + 3,
        artifacts: [{ artifactId: `${id}-art`, filename: "report.pdf", mimeType: "application/pdf", sizeBytes: 2048 }],
      },
      { callId: "c2", messageId: `${id}-sa`, subAgentRunId: `${id}-r`, subAgentName: "summarizer", toolName: "documents__read", argumentsJson: "{}", verdict: allow, result: "text", createdAt: at + 4 },
    ],
    artifacts: [
      { id: `${id}-art`, filename: "report.pdf", mimeType: "application/pdf", sizeBytes: 2048, path: `/data/artifacts/${id}-art`, callId: "c1", createdAt: at + 5 },
      { id: `${id}-blob`, filename: "note.txt", mimeType: "text/plain", sizeBytes: 2, data: new Uint8Array([111, 107]), createdAt: at + 6 },
    ],
    memory: [{ content: "report is quarterly", createdAt: at + 8 }],
    events: [{ type: "MESSAGE_ACCEPTED", messageId: `${id}-u`, createdAt: at }, { type: "RESPONSE_COMPLETE", messageId: `${id}-a`, createdAt: at + 10 }],
    audit: [{ kind: "execution", callId: "c1", payload: { tool: "http__post" }, ts: at + 4 }],
  });
}

const TABLES = ["sessions", "messages", "tool_calls", "events", "memory", "artifacts", "sub_agent_runs"] as const;

function counts(path: string): Record<string, number> {
  const db = new BetterSqlite3(path, { readonly: true });
  const out: Record<string, number> = {};
  for (const t of [...TABLES, "audit", "messages_fts", "tool_calls_fts"]) out[t] = (db.prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n;
  db.close();
  return out;
}

describe("deleteSession", () => {
  it("cascades to every row of the session, returns artifact files, keeps the audit trail", () => {
    const { store, path } = tempStore();
    fullSession(store, "s1", 1000);
    fullSession(store, "s2", 2000);
    expect(counts(path)).toMatchObject({ sessions: 2, messages: 6, tool_calls: 4, events: 4, memory: 2, artifacts: 4, sub_agent_runs: 2, audit: 2 });
    expect(store.deleteSession("s1")).toEqual({ deleted: true, artifactPaths: ["/data/artifacts/s1-art"] });
    const after = counts(path);
    expect(after).toMatchObject({ sessions: 1, messages: 3, tool_calls: 2, events: 2, memory: 1, artifacts: 2, sub_agent_runs: 1, audit: 2 });
    expect(store.search("report").hits.every((h) => h.sessionId === "s2")).toBe(true);
    expect(store.deleteSession("s1")).toEqual({ deleted: false, artifactPaths: [] });
    expect(store.verifyAudit().ok).toBe(true);
  });
});

describe("applyRetention", () => {
  it("deletes sessions older than maxAgeDays and expired artifacts", () => {
    const { store } = tempStore();
    const day = 86_400_000;
    const now = 100 * day;
    fullSession(store, "old", now - 40 * day);
    fullSession(store, "new", now - 2 * day);
    store.recordArtifact({ id: "exp", sessionId: "new", filename: "tmp.bin", sizeBytes: 1, path: "/data/exp", expiresAt: now - 1 });
    const r = store.applyRetention({ maxAgeDays: 30, now });
    expect(r.deletedSessions).toEqual(["old"]);
    expect(r.expiredArtifacts).toEqual(["exp"]);
    expect(r.artifactPaths.sort()).toEqual(["/data/artifacts/old-art", "/data/exp"]);
    expect(store.listSessions().sessions.map((s) => s.id)).toEqual(["new"]);
    expect(store.listArtifacts("new").map((a) => a.id)).toEqual(["new-art", "new-blob"]);
  });

  it("deletes least recently updated sessions until the database fits maxBytes", () => {
    const { store } = tempStore();
    const big = "lorem ipsum dolor sit amet ".repeat(400);
    for (let i = 0; i < 40; i++) {
      store.createSession({ id: `s${String(i).padStart(2, "0")}`, createdAt: i });
      store.appendMessage({ sessionId: `s${String(i).padStart(2, "0")}`, role: "user", content: `${big} ${i}`, createdAt: 1000 + i });
    }
    const before = store.stats().dbBytes;
    const used = store.applyRetention({ maxBytes: Number.MAX_SAFE_INTEGER }).bytesBefore;
    const r = store.applyRetention({ maxBytes: Math.floor(used / 2) });
    expect(r.bytesAfter).toBeLessThanOrEqual(Math.floor(used / 2));
    expect(r.deletedSessions.length).toBeGreaterThan(5);
    expect(r.deletedSessions.length).toBeLessThan(40);
    // Oldest go first: every survivor was updated after every deleted session.
    const survivors = store.listSessions({ limit: 100 }).sessions.map((s) => s.id);
    expect([...r.deletedSessions].sort().pop()! < [...survivors].sort()[0]!).toBe(true);
    expect(store.stats().dbBytes).toBeLessThan(before);
  });
});

describe("exportSession", () => {
  it("exports JSON with full fidelity", () => {
    const { store } = tempStore();
    fullSession(store, "s1", 1000);
    const out = store.exportSession("s1", "json", { includeEvents: true, now: 5 });
    expect(out).toMatchObject({ filename: "palisade-session-s1.json", mimeType: "application/json" });
    const data = JSON.parse(out.content) as SessionExport;
    expect(data.session).toMatchObject({ id: "s1", title: "Session s1", messageCount: 2, usage: { inputTokens: 30 } });
    expect(data.messages.map((m) => m.id)).toEqual(["s1-u", "s1-a"]);
    expect(data.messages[1]?.toolCalls[0]).toMatchObject({
      callId: "c1", verdict: escalate, approval: { decision: "allow_once", by: "tui", at: 1005 }, result: "posted", durationMs: 20,
      artifacts: [{ artifactId: "s1-art", filename: "report.pdf" }],
    });
    expect(data.subAgentRuns).toMatchObject([{ id: "s1-r", name: "summarizer", state: "completed", result: "3 bullet points", transcript: [{ id: "s1-sa", toolCalls: [{ callId: "c2", subAgentName: "summarizer" }] }] }]);
    expect(data.artifacts.map((a) => [a.id, a.path, a.hasData])).toEqual([["s1-art", "/data/artifacts/s1-art", false], ["s1-blob", null, true]]);
    expect(data.memory.map((m) => m.content)).toEqual(["report is quarterly"]);
    expect(data.events?.map((e) => e.type)).toEqual(["MESSAGE_ACCEPTED", "RESPONSE_COMPLETE"]);
    expect(store.exportSession("s1", "json").content).not.toContain('"events"');
  });

  it("exports Markdown a person can read", () => {
    const { store } = tempStore();
    fullSession(store, "s1", 1000);
    const md = store.exportSession("s1", "md");
    expect(md.mimeType).toBe("text/markdown");
    for (const text of [
      "# Session s1", "### user · #1", "fetch the report and summarize", "#### Tool call `http__post` (c1)", '{"url":"https://x"}',
      "Shield: **escalate** (tier 1, confidence 0.6) — network write [rules: net-post]", "Approval: **allow_once** by tui",
      "Artifact: report.pdf (application/pdf, 2048 bytes", "## Sub-agent runs", "### summarizer (s1-r) — completed", "Task: summarize report",
      "documents__read", "## Artifacts", "| s1-art | report.pdf |", "## Memory", "report is quarterly",
    ]) expect(md.content).toContain(text);
    expect(md.content).toContain("Model: gpt-test");
    expect(() => store.exportSession("nope", "md")).toThrow(expect.objectContaining({ code: "NOT_FOUND" }));
  });

  it("a session stored without a model (older Engines recorded none) exports as model: unknown", () => {
    const { store } = tempStore();
    store.createSession({ id: "old", title: "Old", createdAt: 1 });
    expect(store.exportSession("old", "md").content).toContain("Model: unknown");
  });
});

describe("exportSession artifacts", () => {
  it("lists the artifacts the session's tool calls produced even when a capability host keeps their bytes", () => {
    const { store } = tempStore();
    store.createSession({ id: "s9", createdAt: 1000 });
    store.commitTurn("s9", {
      messages: [{ id: "s9-a", role: "assistant", content: "Your PDF is ready.", createdAt: 1001 }],
      toolCalls: [
        {
          callId: "c9", messageId: "s9-a", toolName: "documents__create_pdf", argumentsJson: "{}", verdict: allow, result: "ok", createdAt: 1002,
          artifacts: [{ artifactId: "art_0123456789abcdef01234567", filename: "Hi.pdf", mimeType: "application/pdf", sizeBytes: 1491 }],
        },
      ],
    });
    const data = JSON.parse(store.exportSession("s9", "json").content) as SessionExport;
    expect(data.artifacts).toEqual([
      { id: "art_0123456789abcdef01234567", sessionId: "s9", owner: "", callId: "c9", filename: "Hi.pdf", mimeType: "application/pdf", sizeBytes: 1491, sha256: null, path: null, hasData: false, createdAt: 1002, expiresAt: null },
    ]);
    const md = store.exportSession("s9", "md").content;
    expect(md).toContain("## Artifacts");
    expect(md).toContain("| art_0123456789abcdef01234567 | Hi.pdf | application/pdf | 1491 |");
  });
});

describe("stats", () => {
  it("counts sessions, messages, today's actions and the file size", () => {
    const { store } = tempStore();
    fullSession(store, "s1", Date.now() - 86_400_000 * 2);
    fullSession(store, "s2", Date.now());
    const s = store.stats();
    expect(s).toMatchObject({ sessions: 2, messages: 4, toolCalls: 4, actionsToday: 2, schemaVersion: 4 });
    expect(s.dbBytes).toBeGreaterThan(4096);
  });
});
