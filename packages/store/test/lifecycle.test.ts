import { describe, expect, it } from "vitest";
import type { HistoryStore, SessionExport } from "@palisade/store";
import { forEachBackend } from "./backends.js";
import type { Backend } from "./backends.js";
import { allow, escalate } from "./helpers.js";

async function fullSession(store: HistoryStore, id: string, at: number): Promise<void> {
  await store.createSession({
    id,
    title: `Session ${id}`,
    titleSource: "user",
    createdAt: at,
    model: "gpt-test",
    workspace: "/w",
  });
  await store.commitTurn(id, {
    messages: [
      { id: `${id}-u`, role: "user", content: "fetch the report and summarize", createdAt: at },
      {
        id: `${id}-a`,
        role: "assistant",
        content: "Here is the summary.",
        createdAt: at + 10,
        usage: { inputTokens: 30, outputTokens: 12, cacheReadTokens: 0, cacheWriteTokens: 0 },
      },
    ],
    subAgentRuns: [
      {
        id: `${id}-r`,
        parentMessageId: `${id}-a`,
        name: "summarizer",
        task: "summarize report",
        state: "completed",
        result: "3 bullet points",
        llmCalls: 1,
        toolCalls: 1,
        startedAt: at + 1,
        endedAt: at + 9,
      },
    ],
    subAgentMessages: [
      { id: `${id}-sa`, subAgentRunId: `${id}-r`, role: "assistant", content: "reading report", createdAt: at + 2 },
    ],
    toolCalls: [
      {
        callId: "c1",
        messageId: `${id}-a`,
        toolName: "http__post",
        argumentsJson: '{"url":"https://x"}',
        verdict: escalate,
        approval: { decision: "allow_once", by: "tui", at: at + 5 },
        result: "posted",
        durationMs: 20,
        createdAt: at + 3,
        artifacts: [{ artifactId: `${id}-art`, filename: "report.pdf", mimeType: "application/pdf", sizeBytes: 2048 }],
      },
      {
        callId: "c2",
        messageId: `${id}-sa`,
        subAgentRunId: `${id}-r`,
        subAgentName: "summarizer",
        toolName: "documents__read",
        argumentsJson: "{}",
        verdict: allow,
        result: "text",
        createdAt: at + 4,
      },
    ],
    artifacts: [
      {
        id: `${id}-art`,
        filename: "report.pdf",
        mimeType: "application/pdf",
        sizeBytes: 2048,
        path: `/data/artifacts/${id}-art`,
        callId: "c1",
        createdAt: at + 5,
      },
      {
        id: `${id}-blob`,
        filename: "note.txt",
        mimeType: "text/plain",
        sizeBytes: 2,
        data: new Uint8Array([111, 107]),
        createdAt: at + 6,
      },
    ],
    memory: [{ content: "report is quarterly", createdAt: at + 8 }],
    events: [
      { type: "MESSAGE_ACCEPTED", messageId: `${id}-u`, createdAt: at },
      { type: "RESPONSE_COMPLETE", messageId: `${id}-a`, createdAt: at + 10 },
    ],
    audit: [{ kind: "execution", callId: "c1", payload: { tool: "http__post" }, ts: at + 4 }],
  });
}

const TABLES = ["sessions", "messages", "tool_calls", "events", "memory", "artifacts", "sub_agent_runs"] as const;

async function counts(backend: Backend): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of [...TABLES, "audit"]) out[t] = await backend.rows(t);
  return out;
}

forEachBackend((backend) => {
  describe("deleteSession", () => {
    it("cascades to every row of the session, returns artifact files, keeps the audit trail", async () => {
      const store = await backend.open();
      await fullSession(store, "s1", 1000);
      await fullSession(store, "s2", 2000);
      expect(await counts(backend)).toMatchObject({
        sessions: 2,
        messages: 6,
        tool_calls: 4,
        events: 4,
        memory: 2,
        artifacts: 4,
        sub_agent_runs: 2,
        audit: 2,
      });
      expect(await store.deleteSession("s1")).toEqual({ deleted: true, artifactPaths: ["/data/artifacts/s1-art"] });
      const after = await counts(backend);
      expect(after).toMatchObject({
        sessions: 1,
        messages: 3,
        tool_calls: 2,
        events: 2,
        memory: 1,
        artifacts: 2,
        sub_agent_runs: 1,
        audit: 2,
      });
      expect((await store.search("report")).hits.every((h) => h.sessionId === "s2")).toBe(true);
      expect(await store.deleteSession("s1")).toEqual({ deleted: false, artifactPaths: [] });
      expect((await store.verifyAudit()).ok).toBe(true);
    });
  });

  describe("applyRetention", () => {
    it("deletes sessions older than maxAgeDays and expired artifacts", async () => {
      const store = await backend.open();
      const day = 86_400_000;
      const now = 100 * day;
      await fullSession(store, "old", now - 40 * day);
      await fullSession(store, "new", now - 2 * day);
      await store.recordArtifact({
        id: "exp",
        sessionId: "new",
        filename: "tmp.bin",
        sizeBytes: 1,
        path: "/data/exp",
        expiresAt: now - 1,
      });
      const r = await store.applyRetention({ maxAgeDays: 30, now });
      expect(r.deletedSessions).toEqual(["old"]);
      expect(r.expiredArtifacts).toEqual(["exp"]);
      expect(r.artifactPaths.sort()).toEqual(["/data/artifacts/old-art", "/data/exp"]);
      expect((await store.listSessions()).sessions.map((s) => s.id)).toEqual(["new"]);
      expect((await store.listArtifacts("new")).map((a) => a.id)).toEqual(["new-art", "new-blob"]);
    });

    it("deletes least recently updated sessions until the database fits maxBytes", async () => {
      const store = await backend.open();
      const big = "lorem ipsum dolor sit amet ".repeat(400);
      for (let i = 0; i < 40; i++) {
        await store.createSession({ id: `s${String(i).padStart(2, "0")}`, createdAt: i });
        await store.appendMessage({
          sessionId: `s${String(i).padStart(2, "0")}`,
          role: "user",
          content: `${big} ${i}`,
          createdAt: 1000 + i,
        });
      }
      const before = (await store.stats()).dbBytes;
      const used = (await store.applyRetention({ maxBytes: Number.MAX_SAFE_INTEGER })).bytesBefore;
      const r = await store.applyRetention({ maxBytes: Math.floor(used / 2) });
      expect(r.bytesAfter).toBeLessThanOrEqual(Math.floor(used / 2));
      expect(r.deletedSessions.length).toBeGreaterThan(5);
      expect(r.deletedSessions.length).toBeLessThan(40);
      // Oldest go first: every survivor was updated after every deleted session.
      const survivors = (await store.listSessions({ limit: 100 })).sessions.map((s) => s.id);
      expect([...r.deletedSessions].sort().pop()! < [...survivors].sort()[0]!).toBe(true);
      expect((await store.stats()).dbBytes).toBeLessThan(before);
    });
  });

  describe("exportSession", () => {
    it("exports JSON with full fidelity", async () => {
      const store = await backend.open();
      await fullSession(store, "s1", 1000);
      const out = await store.exportSession("s1", "json", { includeEvents: true, now: 5 });
      expect(out).toMatchObject({ filename: "palisade-session-s1.json", mimeType: "application/json" });
      const data = JSON.parse(out.content) as SessionExport;
      expect(data.session).toMatchObject({
        id: "s1",
        title: "Session s1",
        messageCount: 2,
        usage: { inputTokens: 30 },
      });
      expect(data.messages.map((m) => m.id)).toEqual(["s1-u", "s1-a"]);
      expect(data.messages[1]?.toolCalls[0]).toMatchObject({
        callId: "c1",
        verdict: escalate,
        approval: { decision: "allow_once", by: "tui", at: 1005 },
        result: "posted",
        durationMs: 20,
        artifacts: [{ artifactId: "s1-art", filename: "report.pdf" }],
      });
      expect(data.subAgentRuns).toMatchObject([
        {
          id: "s1-r",
          name: "summarizer",
          state: "completed",
          result: "3 bullet points",
          transcript: [{ id: "s1-sa", toolCalls: [{ callId: "c2", subAgentName: "summarizer" }] }],
        },
      ]);
      expect(data.artifacts.map((a) => [a.id, a.path, a.hasData])).toEqual([
        ["s1-art", "/data/artifacts/s1-art", false],
        ["s1-blob", null, true],
      ]);
      expect(data.memory.map((m) => m.content)).toEqual(["report is quarterly"]);
      expect(data.events?.map((e) => e.type)).toEqual(["MESSAGE_ACCEPTED", "RESPONSE_COMPLETE"]);
      expect((await store.exportSession("s1", "json")).content).not.toContain('"events"');
    });

    it("exports Markdown a person can read", async () => {
      const store = await backend.open();
      await fullSession(store, "s1", 1000);
      const md = await store.exportSession("s1", "md");
      expect(md.mimeType).toBe("text/markdown");
      for (const text of [
        "# Session s1",
        "### user · #1",
        "fetch the report and summarize",
        "#### Tool call `http__post` (c1)",
        '{"url":"https://x"}',
        "Shield: **escalate** (tier 1, confidence 0.6) — network write [rules: net-post]",
        "Approval: **allowed once** by tui",
        "Artifact: report.pdf (application/pdf, 2048 bytes",
        "## Sub-agent runs",
        "### summarizer (s1-r) — completed",
        "Task: summarize report",
        "documents__read",
        "## Artifacts",
        "| s1-art | report.pdf |",
        "## Memory",
        "report is quarterly",
      ])
        expect(md.content).toContain(text);
      expect(md.content).toContain("Model: gpt-test");
      await expect(store.exportSession("nope", "md")).rejects.toThrow(expect.objectContaining({ code: "NOT_FOUND" }));
    });

    it("a session stored without a model (older Engines recorded none) exports as model: unknown", async () => {
      const store = await backend.open();
      await store.createSession({ id: "old", title: "Old", createdAt: 1 });
      expect((await store.exportSession("old", "md")).content).toContain("Model: unknown");
    });
  });

  describe("exportSession artifacts", () => {
    it("lists the artifacts the session's tool calls produced even when a capability host keeps their bytes", async () => {
      const store = await backend.open();
      await store.createSession({ id: "s9", createdAt: 1000 });
      await store.commitTurn("s9", {
        messages: [{ id: "s9-a", role: "assistant", content: "Your PDF is ready.", createdAt: 1001 }],
        toolCalls: [
          {
            callId: "c9",
            messageId: "s9-a",
            toolName: "documents__create_pdf",
            argumentsJson: "{}",
            verdict: allow,
            result: "ok",
            createdAt: 1002,
            artifacts: [
              {
                artifactId: "art_0123456789abcdef01234567",
                filename: "Hi.pdf",
                mimeType: "application/pdf",
                sizeBytes: 1491,
              },
            ],
          },
        ],
      });
      const data = JSON.parse((await store.exportSession("s9", "json")).content) as SessionExport;
      expect(data.artifacts).toEqual([
        {
          id: "art_0123456789abcdef01234567",
          sessionId: "s9",
          owner: "",
          callId: "c9",
          filename: "Hi.pdf",
          mimeType: "application/pdf",
          sizeBytes: 1491,
          sha256: null,
          path: null,
          hasData: false,
          createdAt: 1002,
          expiresAt: null,
        },
      ]);
      const md = (await store.exportSession("s9", "md")).content;
      expect(md).toContain("## Artifacts");
      expect(md).toContain("| art_0123456789abcdef01234567 | Hi.pdf | application/pdf | 1491 |");
    });
  });

  describe("stats", () => {
    it("counts sessions, messages, today's actions and the file size", async () => {
      const store = await backend.open();
      await fullSession(store, "s1", Date.now() - 86_400_000 * 2);
      await fullSession(store, "s2", Date.now());
      const s = await store.stats();
      expect(s).toMatchObject({
        sessions: 2,
        messages: 4,
        toolCalls: 4,
        actionsToday: 2,
        schemaVersion: backend.schemaVersion,
      });
      // SQLite: the file (at least a page); PostgreSQL: the bytes of the history's rows (its files keep freed space for reuse).
      expect(s.dbBytes).toBeGreaterThan(backend.name === "sqlite" ? 4096 : 0);
      await fullSession(store, "s3", Date.now());
      expect((await store.stats()).dbBytes).toBeGreaterThan(s.dbBytes);
    });
  });
});
