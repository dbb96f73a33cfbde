import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { StoreError } from "@palisade/store";
import { forEachBackend } from "./backends.js";
import { allow, escalate, tempStore } from "./helpers.js";

forEachBackend((backend) => {
  describe("sessions", () => {
    it("creates a session with defaults and returns it by id", async () => {
      const store = await backend.open();
      const s = await store.createSession({ id: "s1", workspace: "/w", model: "m1", createdAt: 1000 });
      expect(s).toMatchObject({
        id: "s1",
        title: "",
        titleSource: "none",
        mode: "normal",
        workspace: "/w",
        model: "m1",
        createdAt: 1000,
        updatedAt: 1000,
        messageCount: 0,
      });
      expect(await store.getSession("s1")).toEqual(s);
      expect(await store.getSession("nope")).toBeNull();
      expect((await store.createSession()).id).toMatch(/^[0-9a-f-]{36}$/);
    });

    it("refuses duplicate ids and off-the-record mode", async () => {
      const store = await backend.open();
      await store.createSession({ id: "s1" });
      await expect(store.createSession({ id: "s1" })).rejects.toThrow(expect.objectContaining({ code: "CONFLICT" }));
      await expect(store.createSession({ mode: "otr" as never })).rejects.toThrow(/off-the-record/);
    });

    it("rename makes a user title that automatic titles never overwrite", async () => {
      const store = await backend.open();
      await store.createSession({ id: "s1" });
      expect(await store.setAutoTitle("s1", "first words", "first_message")).toBe(true);
      expect(await store.getSession("s1")).toMatchObject({ title: "first words", titleSource: "first_message" });
      expect(await store.setAutoTitle("s1", "Model title")).toBe(true);
      expect(await store.setAutoTitle("s1", "fallback again", "first_message")).toBe(false);
      expect(await store.getSession("s1")).toMatchObject({ title: "Model title", titleSource: "auto" });
      expect(await store.renameSession("s1", "Mine")).toMatchObject({ title: "Mine", titleSource: "user" });
      expect(await store.setAutoTitle("s1", "Model again")).toBe(false);
      expect((await store.getSession("s1"))?.title).toBe("Mine");
      await expect(store.renameSession("missing", "x")).rejects.toThrow(expect.objectContaining({ code: "NOT_FOUND" }));
      await expect(store.setAutoTitle("missing", "x")).rejects.toThrow(expect.objectContaining({ code: "NOT_FOUND" }));
    });
  });

  describe("messages and tool calls", () => {
    it("assigns dense seqs, counts messages and sums token usage", async () => {
      const store = await backend.open();
      await store.createSession({ id: "s1", createdAt: 1 });
      const u = await store.appendMessage({ sessionId: "s1", role: "user", content: "hi", createdAt: 10 });
      const a = await store.appendMessage({
        sessionId: "s1",
        role: "assistant",
        content: "hello",
        createdAt: 20,
        parentId: u.id,
        usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 2, cacheWriteTokens: 1 },
      });
      expect([u.seq, a.seq]).toEqual([1, 2]);
      expect(a.parentId).toBe(u.id);
      const s = await store.getSession("s1");
      expect(s).toMatchObject({
        messageCount: 2,
        updatedAt: 20,
        usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 2, cacheWriteTokens: 1 },
      });
      await store.updateMessage(a.id, {
        content: "hello there",
        usage: { inputTokens: 12, outputTokens: 7, cacheReadTokens: 0, cacheWriteTokens: 0 },
      });
      expect((await store.getMessage(a.id))?.content).toBe("hello there");
      expect((await store.getSession("s1"))?.usage).toEqual({
        inputTokens: 12,
        outputTokens: 7,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
      });
    });

    it("rejects messages for unknown sessions and bad roles", async () => {
      const store = await backend.open();
      await expect(store.appendMessage({ sessionId: "nope", role: "user", content: "x" })).rejects.toThrow(
        expect.objectContaining({ code: "NOT_FOUND" }),
      );
      await store.createSession({ id: "s1" });
      await expect(store.appendMessage({ sessionId: "s1", role: "robot" as never, content: "x" })).rejects.toThrow(
        expect.objectContaining({ code: "INVALID_ARGUMENT" }),
      );
    });

    it("reads a session grant written by an earlier version (by: session-grant) as the Engine spells it", async () => {
      const store = await backend.open();
      await store.createSession({ id: "s1" });
      const m = await store.appendMessage({ sessionId: "s1", role: "assistant", content: "" });
      const grant = { decision: "allow_session", by: "session", at: 7 } as const;
      await store.recordToolCall({
        callId: "c1",
        messageId: m.id,
        toolName: "t",
        argumentsJson: "{}",
        approval: grant,
      });
      expect((await store.getToolCall(m.id, "c1")).approval).toEqual(grant);
      await backend.sql("UPDATE tool_calls SET approval_by = 'session-grant'");
      expect((await store.getToolCall(m.id, "c1")).approval).toEqual(grant);
    });

    it("records a tool call's verdict, approval and result", async () => {
      const store = await backend.open();
      await store.createSession({ id: "s1" });
      const m = await store.appendMessage({ sessionId: "s1", role: "assistant", content: "" });
      await store.recordToolCall({
        callId: "c1",
        messageId: m.id,
        toolName: "http__post",
        argumentsJson: '{"url":"x"}',
        createdAt: 5,
      });
      await store.updateToolCall(m.id, "c1", { verdict: escalate });
      await store.updateToolCall(m.id, "c1", { approval: { decision: "allow_once", by: "client-1", at: 7 } });
      const done = await store.updateToolCall(m.id, "c1", {
        result: '{"ok":true}',
        isError: false,
        durationMs: 33,
        completedAt: 40,
        artifacts: [{ artifactId: "a1", filename: "r.json", mimeType: "application/json", sizeBytes: 9 }],
        resultTrust: "untrusted",
      });
      expect(done).toEqual({
        callId: "c1",
        messageId: m.id,
        sessionId: "s1",
        toolName: "http__post",
        argumentsJson: '{"url":"x"}',
        verdict: escalate,
        approval: { decision: "allow_once", by: "client-1", at: 7 },
        result: '{"ok":true}',
        isError: false,
        durationMs: 33,
        artifacts: [{ artifactId: "a1", filename: "r.json", mimeType: "application/json", sizeBytes: 9 }],
        subAgentName: "",
        subAgentRunId: null,
        createdAt: 5,
        completedAt: 40,
        resultTrust: "untrusted",
        textOffset: 0,
      });
      await expect(
        store.recordToolCall({ callId: "c1", messageId: m.id, toolName: "x", argumentsJson: "{}" }),
      ).rejects.toThrow(expect.objectContaining({ code: "CONFLICT" }));
      await expect(store.updateToolCall(m.id, "c9", { result: "x" })).rejects.toThrow(
        expect.objectContaining({ code: "NOT_FOUND" }),
      );
      // The same call id in another message (scripted models reuse ids) is a different call.
      const m2 = await store.appendMessage({ sessionId: "s1", role: "assistant", content: "" });
      expect(
        (await store.recordToolCall({ callId: "c1", messageId: m2.id, toolName: "x", argumentsJson: "{}" })).messageId,
      ).toBe(m2.id);
    });
  });

  describe("events, memory, artifacts, sub-agent runs", () => {
    it("numbers events per session and refuses to update them", async () => {
      const store = await backend.open();
      await store.createSession({ id: "s1" });
      await store.createSession({ id: "s2" });
      expect((await store.appendEvent({ sessionId: "s1", type: "MESSAGE_ACCEPTED", payload: { a: 1 } })).seq).toBe(1);
      expect((await store.appendEvent({ sessionId: "s1", type: "LLM_TOKEN", payload: '{"text":"x"}' })).seq).toBe(2);
      expect((await store.appendEvent({ sessionId: "s2", type: "MESSAGE_ACCEPTED" })).seq).toBe(1);
      expect((await store.listEvents("s1")).map((e) => [e.seq, e.type, e.payload])).toEqual([
        [1, "MESSAGE_ACCEPTED", '{"a":1}'],
        [2, "LLM_TOKEN", '{"text":"x"}'],
      ]);
      expect((await store.listEvents("s1", 1)).map((e) => e.seq)).toEqual([2]);
      expect((await store.lastEvent("s1"))?.type).toBe("LLM_TOKEN");
      expect(await store.lastEvent("none")).toBeNull();
      await expect(backend.sql("UPDATE events SET type = 'X'")).rejects.toThrow(/append-only/);
    });

    it("stores memory flushes and artifact metadata with bytes on disk or in the row", async () => {
      const store = await backend.open();
      await store.createSession({ id: "s1" });
      await store.appendMemory({
        sessionId: "s1",
        content: "user prefers metric",
        summary: "sum",
        compactedMessages: 12,
      });
      expect(await store.listMemory("s1")).toMatchObject([
        { content: "user prefers metric", summary: "sum", compactedMessages: 12 },
      ]);
      const onDisk = await store.recordArtifact({
        id: "a1",
        sessionId: "s1",
        owner: "ada",
        filename: "x.png",
        mimeType: "image/png",
        sizeBytes: 3,
        path: "/tmp/x",
        expiresAt: 99,
      });
      expect(onDisk).toMatchObject({ id: "a1", path: "/tmp/x", hasData: false, expiresAt: 99 });
      await store.recordArtifact({
        id: "a2",
        sessionId: "s1",
        filename: "y.txt",
        sizeBytes: 2,
        data: new Uint8Array([104, 105]),
      });
      expect((await store.getArtifactData("a2"))?.toString()).toBe("hi");
      expect((await store.listArtifacts("s1")).map((a) => a.id)).toEqual(["a1", "a2"]);
      await expect(store.recordArtifact({ filename: "z", sizeBytes: 0 })).rejects.toThrow(/exactly one of path/);
    });

    it("records sub-agent runs with their own transcript, kept out of the session history", async () => {
      const store = await backend.open();
      await store.createSession({ id: "s1" });
      const parent = await store.appendMessage({ sessionId: "s1", role: "assistant", content: "delegating" });
      const run = await store.recordSubAgentRun({
        id: "r1",
        sessionId: "s1",
        parentMessageId: parent.id,
        name: "researcher",
        task: "find docs",
        startedAt: 100,
      });
      expect(run.state).toBe("running");
      const sm = await store.appendMessage({
        sessionId: "s1",
        subAgentRunId: "r1",
        role: "assistant",
        content: "searching",
      });
      expect(sm.seq).toBe(1);
      await store.recordToolCall({
        callId: "c1",
        messageId: sm.id,
        toolName: "files__read",
        argumentsJson: "{}",
        subAgentRunId: "r1",
        subAgentName: "researcher",
        verdict: allow,
      });
      const done = await store.updateSubAgentRun("r1", {
        state: "completed",
        result: "found 3",
        llmCalls: 2,
        toolCalls: 1,
        endedAt: 200,
      });
      expect(done).toMatchObject({
        state: "completed",
        result: "found 3",
        llmCalls: 2,
        toolCalls: 1,
        endedAt: 200,
        parentMessageId: parent.id,
      });
      expect((await store.listSubAgentRuns("s1")).map((r) => r.id)).toEqual(["r1"]);
      const transcript = await store.getSubAgentTranscript("r1");
      expect(transcript).toHaveLength(1);
      expect(transcript[0]?.toolCalls[0]).toMatchObject({
        callId: "c1",
        subAgentName: "researcher",
        subAgentRunId: "r1",
      });
      expect((await store.getHistory("s1")).messages.map((m) => m.id)).toEqual([parent.id]);
      expect((await store.getSession("s1"))?.messageCount).toBe(1);
    });
  });

  describe("commitTurn", () => {
    it("writes a whole turn at once, with tool calls attached to the returned messages", async () => {
      const store = await backend.open();
      await store.createSession({ id: "s1" });
      const turn = await store.commitTurn("s1", {
        messages: [
          { id: "u1", role: "user", content: "list files" },
          { id: "a1", role: "assistant", content: "", parentId: "u1" },
          { id: "t1", role: "tool", content: "a.txt", toolCallId: "c1", parentId: "u1" },
          {
            id: "a2",
            role: "assistant",
            content: "There is a.txt",
            parentId: "u1",
            usage: { inputTokens: 5, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0 },
          },
        ],
        toolCalls: [
          {
            callId: "c1",
            messageId: "a1",
            toolName: "files__list",
            argumentsJson: "{}",
            verdict: allow,
            result: "a.txt",
            durationMs: 2,
            resultTrust: "workspace",
          },
        ],
        events: [
          { type: "MESSAGE_ACCEPTED", messageId: "u1" },
          { type: "RESPONSE_COMPLETE", messageId: "a2" },
        ],
        audit: [{ kind: "execution", callId: "c1", payload: { tool: "files__list" } }],
        memory: [{ content: "fact" }],
        autoTitle: { title: "list files", source: "first_message" },
      });
      expect(turn.messages.map((m) => m.seq)).toEqual([1, 2, 3, 4]);
      expect(turn.messages[1]?.toolCalls.map((c) => c.callId)).toEqual(["c1"]);
      // the result's provenance label is stored with the call and read back with the history
      expect(turn.messages[1]?.toolCalls[0]?.resultTrust).toBe("workspace");
      const stored = (await store.getHistory("s1")).messages.flatMap((m) => m.toolCalls);
      expect(stored.map((c) => [c.callId, c.resultTrust])).toEqual([["c1", "workspace"]]);
      expect((await store.exportSession("s1", "md")).content).toContain("- Provenance: result labelled **workspace**");
      expect(JSON.parse((await store.exportSession("s1", "json")).content)).toMatchObject({
        messages: [{}, { toolCalls: [{ callId: "c1", resultTrust: "workspace" }] }, {}, {}],
      });
      expect(turn.events.map((e) => e.seq)).toEqual([1, 2]);
      expect(turn.audit[0]?.sessionId).toBe("s1");
      expect(await store.getSession("s1")).toMatchObject({
        messageCount: 4,
        title: "list files",
        usage: { inputTokens: 5, outputTokens: 3 },
      });
    });

    it("returns the records a read of the committed rows gives, and keeps the session's counters as appendMessage does", async () => {
      const store = await backend.open();
      await store.createSession({ id: "s1", createdAt: 1 });
      await store.createSession({ id: "s2", createdAt: 1 });
      const usage = (n: number) => ({
        inputTokens: n,
        outputTokens: 2 * n,
        cacheReadTokens: 3 * n,
        cacheWriteTokens: 4 * n,
      });
      const rows = (sessionId: string, base: number) => ({
        messages: [
          { id: `${sessionId}-u${base}`, role: "user" as const, content: "read x", createdAt: base },
          {
            id: `${sessionId}-a${base}`,
            role: "assistant" as const,
            content: "done",
            createdAt: base + 5,
            parentId: `${sessionId}-u${base}`,
            usage: usage(base),
          },
        ],
        subAgentRuns: [{ id: `${sessionId}-r${base}`, name: "helper", task: "look" }],
        subAgentMessages: [
          {
            id: `${sessionId}-s${base}`,
            role: "assistant" as const,
            content: "sub",
            subAgentRunId: `${sessionId}-r${base}`,
            createdAt: base + 99,
            usage: usage(1),
          },
          {
            id: `${sessionId}-t${base}`,
            role: "tool" as const,
            content: "sub tool",
            subAgentRunId: `${sessionId}-r${base}`,
            createdAt: base + 98,
          },
        ],
        toolCalls: [
          {
            callId: "c1",
            messageId: `${sessionId}-a${base}`,
            toolName: "files__read_file",
            argumentsJson: '{"path":"x"}',
            verdict: { ...allow, ruleIds: ["r1", "r2"] },
            approval: { decision: "allow_once" as const, by: "user", at: base + 1 },
            result: "x",
            isError: false,
            durationMs: 3,
            artifacts: [{ artifactId: "art1", filename: "x.txt", mimeType: "text/plain", sizeBytes: 2 }],
            createdAt: base + 1,
            completedAt: base + 4,
          },
          {
            callId: "c2",
            messageId: `${sessionId}-a${base}`,
            toolName: "shell__run",
            argumentsJson: "{}",
            isError: true,
          },
          {
            callId: "c3",
            messageId: `${sessionId}-s${base}`,
            toolName: "files__list",
            argumentsJson: "{}",
            subAgentRunId: `${sessionId}-r${base}`,
            subAgentName: "helper",
          },
        ],
        events: [
          { type: "MESSAGE_ACCEPTED", messageId: `${sessionId}-u${base}`, payload: { a: 1 } },
          { type: "RESPONSE_COMPLETE", payload: "{}" },
        ],
      });
      const first = await store.commitTurn("s1", rows("s1", 100));
      await store.commitTurn("s2", rows("s2", 100));
      const second = await store.commitTurn("s1", rows("s1", 200));
      for (const turn of [first, second]) {
        const read = async (m: { id: string; subAgentRunId: string | null }) =>
          (m.subAgentRunId
            ? await store.getSubAgentTranscript(m.subAgentRunId)
            : (await store.getHistory("s1")).messages
          ).find((x) => x.id === m.id);
        for (const m of turn.messages) expect(m).toEqual(await read(m));
        expect(turn.messages[1]?.toolCalls).toEqual(
          await Promise.all(["c1", "c2"].map((c) => store.getToolCall(turn.messages[1]?.id ?? "", c))),
        );
        expect(turn.messages[2]?.toolCalls).toEqual([await store.getToolCall(turn.messages[2]?.id ?? "", "c3")]);
      }
      expect(second.messages.map((m) => m.seq)).toEqual([3, 4, 1, 2]);
      expect((await store.listEvents("s1")).map((e) => [e.seq, e.type])).toEqual([
        [1, "MESSAGE_ACCEPTED"],
        [2, "RESPONSE_COMPLETE"],
        [3, "MESSAGE_ACCEPTED"],
        [4, "RESPONSE_COMPLETE"],
      ]);
      expect((await store.listEvents("s1")).slice(2)).toEqual(second.events);
      const h = (await store.getHistory("s1")).messages;
      expect(h.map((m) => m.id)).toEqual(["s1-u100", "s1-a100", "s1-u200", "s1-a200"]);
      expect(h[1]?.toolCalls).toEqual(first.messages[1]?.toolCalls);
      // Two main-history messages per turn; usage of every message, the sub-agent's included.
      expect(await store.getSession("s1")).toMatchObject({
        messageCount: 4,
        updatedAt: 205,
        usage: usage(100 + 1 + 200 + 1),
      });
      expect(await store.getSession("s2")).toMatchObject({ messageCount: 2, updatedAt: 105, usage: usage(101) });
    });

    it("refuses a tool call of another session's message", async () => {
      const store = await backend.open();
      await store.createSession({ id: "s1" });
      await store.createSession({ id: "s2" });
      const m = await store.appendMessage({ sessionId: "s2", role: "assistant", content: "x" });
      await expect(
        store.commitTurn("s1", { toolCalls: [{ callId: "c1", messageId: m.id, toolName: "x", argumentsJson: "{}" }] }),
      ).rejects.toThrow(/tool call c1 of session s2/);
      await expect(store.getToolCall(m.id, "c1")).rejects.toThrow(expect.objectContaining({ code: "NOT_FOUND" }));
    });

    it("writes nothing when any row of the turn fails", async () => {
      const store = await backend.open();
      await store.createSession({ id: "s1" });
      await expect(
        store.commitTurn("s1", {
          messages: [{ id: "u1", role: "user", content: "hello" }],
          events: [{ type: "MESSAGE_ACCEPTED" }],
          toolCalls: [{ callId: "c1", messageId: "not-in-turn", toolName: "x", argumentsJson: "{}" }],
        }),
      ).rejects.toThrow(StoreError);
      expect((await store.getHistory("s1")).messages).toEqual([]);
      expect(await store.listEvents("s1")).toEqual([]);
      expect((await store.getSession("s1"))?.messageCount).toBe(0);
      await expect(
        store.commitTurn("s1", { messages: [{ sessionId: "other", role: "user", content: "x" }] }),
      ).rejects.toThrow(/got a row of session other/);
      await expect(store.commitTurn("missing", {})).rejects.toThrow(expect.objectContaining({ code: "NOT_FOUND" }));
    });
  });
});

describe("transactions", () => {
  it("a nested failure caught by the outer function undoes only the nested writes", () => {
    const { store } = tempStore();
    store.createSession({ id: "s1" });
    store.transaction(() => {
      store.appendMessage({ sessionId: "s1", role: "user", content: "kept" });
      expect(() =>
        store.transaction(() => {
          store.appendMessage({ sessionId: "s1", role: "user", content: "undone" });
          throw new Error("inner failure");
        }),
      ).toThrow("inner failure");
      store.appendMessage({ sessionId: "s1", role: "assistant", content: "also kept" });
    });
    expect(store.getHistory("s1").messages.map((m) => [m.seq, m.content])).toEqual([
      [1, "kept"],
      [2, "also kept"],
    ]);
    expect(store.getSession("s1")?.messageCount).toBe(2);
  });

  it("an outer failure undoes everything, nested parts included, and the store stays usable", () => {
    const { store } = tempStore();
    store.createSession({ id: "s1" });
    expect(() =>
      store.transaction(() => {
        store.transaction(() => store.appendMessage({ sessionId: "s1", role: "user", content: "inner" }));
        throw new Error("outer failure");
      }),
    ).toThrow("outer failure");
    expect(store.getHistory("s1").messages).toEqual([]);
    expect(() => store.transaction(() => Promise.resolve(1))).toThrow(/cannot return a promise/);
    store.appendMessage({ sessionId: "s1", role: "user", content: "after" });
    expect(store.getHistory("s1").messages.map((m) => m.content)).toEqual(["after"]);
  });
});

describe("no implicit writes", () => {
  it("reading, searching, exporting and verifying never commit anything", () => {
    const { store, path } = tempStore();
    store.createSession({ id: "s1" });
    const m = store.appendMessage({ sessionId: "s1", role: "user", content: "read only please" });
    store.recordToolCall({ callId: "c1", messageId: m.id, toolName: "files__read", argumentsJson: "{}" });
    store.appendAudit({ kind: "proposal", payload: {} });
    const watcher = new BetterSqlite3(path, { readonly: true });
    const version = (): number => watcher.pragma("data_version", { simple: true }) as number;
    const before = version();
    store.getSession("s1");
    store.listSessions({ titleFilter: "x" });
    store.getHistory("s1", { limit: 1 });
    store.search("read");
    store.exportSession("s1", "json", { includeEvents: true });
    store.exportSession("s1", "md");
    store.verifyAudit();
    store.stats();
    store.listEvents("s1");
    expect(version()).toBe(before);
    store.appendEvent({ sessionId: "s1", type: "X" });
    expect(version()).not.toBe(before);
    watcher.close();
  });
});
