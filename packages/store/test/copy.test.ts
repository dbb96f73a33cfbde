// `palisade store copy`: a SQLite history copied into an empty PostgreSQL database reads,
// exports and verifies exactly like the original.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PgStore, copyToPostgres } from "@palisade/store";
import type { AuditKey, Store } from "@palisade/store";
import { allow, escalate, tempStore } from "./helpers.js";
import { postgresUnavailable, startPostgres } from "./postgres-cluster.js";
import type { PgCluster } from "./postgres-cluster.js";

function history(store: Store, key: AuditKey): void {
  store.appendAudit({ kind: "proposal", sessionId: "before-key", payload: { n: 0 } }); // plain SHA-256, before the key
  store.setAuditKey(key);
  for (const [id, at] of [
    ["s1", 1000],
    ["s2", 2000],
    ["s3", 3000],
  ] as const) {
    store.createSession({
      id,
      title: `Session ${id}`,
      titleSource: "user",
      createdAt: at,
      model: "m",
      workspace: "/w",
    });
    store.commitTurn(id, {
      messages: [
        { id: `${id}-u`, role: "user", content: `deploy the café service ${id}`, createdAt: at },
        {
          id: `${id}-a`,
          role: "assistant",
          content: "done",
          createdAt: at + 10,
          usage: { inputTokens: 3, outputTokens: 4, cacheReadTokens: 1, cacheWriteTokens: 0 },
        },
      ],
      subAgentRuns: [
        {
          id: `${id}-r`,
          parentMessageId: `${id}-a`,
          name: "helper",
          task: "look",
          state: "completed",
          result: "ok",
          startedAt: at + 1,
          endedAt: at + 2,
        },
      ],
      subAgentMessages: [
        { id: `${id}-sa`, subAgentRunId: `${id}-r`, role: "assistant", content: "looking", createdAt: at + 1 },
      ],
      toolCalls: [
        {
          callId: "c1",
          messageId: `${id}-a`,
          toolName: "shell__run",
          argumentsJson: '{"command":"kubectl apply"}',
          verdict: escalate,
          approval: { decision: "allow_once", by: "tui", at: at + 3 },
          result: "applied",
          durationMs: 5,
          createdAt: at + 2,
          completedAt: at + 7,
        },
        {
          callId: "c2",
          messageId: `${id}-sa`,
          subAgentRunId: `${id}-r`,
          subAgentName: "helper",
          toolName: "files__read",
          argumentsJson: "{}",
          verdict: allow,
          result: "text",
          createdAt: at + 1,
        },
      ],
      artifacts: [
        { id: `${id}-blob`, filename: "n.txt", sizeBytes: 2, data: new Uint8Array([104, 105]), createdAt: at + 4 },
      ],
      memory: [{ content: "likes metric", createdAt: at + 5 }],
      events: [
        { type: "MESSAGE_ACCEPTED", messageId: `${id}-u`, payload: { seq: "1" } },
        { type: "RESPONSE_COMPLETE", messageId: `${id}-a` },
      ],
      audit: [
        { kind: "proposal", callId: "c1", payload: { tool: "shell__run" } },
        { kind: "execution", callId: "c1", payload: { ok: true } },
      ],
    });
  }
  store.renameSession("s2", "Renamed"); // counters and titles are copied as they are, not recomputed
}

describe.skipIf(postgresUnavailable() !== undefined)("copyToPostgres", () => {
  let cluster: PgCluster;
  beforeAll(async () => {
    cluster = await startPostgres();
  });
  afterAll(async () => {
    await cluster.stop();
  });

  it("copies every row, keeps ids, seqs, counters and the keyed audit chain, and verifies both sides", async () => {
    const { store } = tempStore();
    const key: AuditKey = { key: randomBytes(32), fromSeq: 2 };
    history(store, key);
    const pg = await PgStore.open({
      url: cluster.url(await cluster.createDatabase()),
      password: cluster.admin.password,
    });
    try {
      const progress: number[] = [];
      const report = await copyToPostgres(store, pg, { auditKey: key, onProgress: (done) => progress.push(done) });
      expect(report).toMatchObject({ ok: true, sessions: 3, mismatched: [] });
      expect(report.to).toEqual(report.from);
      expect(report.from).toMatchObject({
        sessions: 3,
        messages: 9,
        tool_calls: 6,
        events: 6,
        memory: 3,
        sub_agent_runs: 3,
        artifacts: 3,
        audit: 7,
      });
      expect(report.auditTo).toMatchObject({ ok: true, rows: 7, head: report.auditFrom.head, keyed: true });
      expect(progress).toEqual([1, 2, 3]);
      for (const id of ["s1", "s2", "s3"]) {
        expect((await pg.exportSession(id, "json", { includeEvents: true, now: 1 })).content).toBe(
          store.exportSession(id, "json", { includeEvents: true, now: 1 }).content,
        );
      }
      expect(await pg.listSessions({ sort: "title" })).toEqual(store.listSessions({ sort: "title" }));
      expect((await pg.search("cafe kubectl*")).hits.map((h) => h.callId || h.messageId)).toEqual([]);
      expect((await pg.search("café")).hits.map((h) => h.messageId).sort()).toEqual(["s1-u", "s2-u", "s3-u"]);
      // The copy is keyed as the source: an Engine with the same key adopts it; a key that is not the deployment's is refused.
      expect(await pg.auditKeyOf(key.key)).toEqual(key);
      await expect(pg.adoptAuditKey(randomBytes(32), "/x/audit.key")).rejects.toThrow(/keyed with another key/);
      // Continuing the chain on PostgreSQL keeps it verifiable.
      await pg.adoptAuditKey(key.key, "/x/audit.key");
      await pg.appendAudit({ kind: "verdict", payload: { after: "copy" } });
      expect(await pg.verifyAudit()).toMatchObject({ ok: true, rows: 8 });
      // A second copy into the same database is refused: it is not empty.
      await expect(copyToPostgres(store, pg, { auditKey: key })).rejects.toThrow(
        /is not empty \(sessions 3, messages 9/,
      );
    } finally {
      await pg.close();
    }
  });

  it("leaves the copy ready to serve: statistics, every page all-visible, and a checkpoint after its last write", async () => {
    const { store } = tempStore();
    history(store, { key: randomBytes(32), fromSeq: 2 });
    const db = await cluster.createDatabase();
    const pg = await PgStore.open({ url: cluster.url(db), password: cluster.admin.password });
    try {
      const report = await copyToPostgres(store, pg);
      expect(report.ready).toEqual({ analyzed: true, checkpoint: true });
      const tables = await cluster.sql(
        db,
        "SELECT relname, last_vacuum IS NOT NULL AS vacuumed, last_analyze IS NOT NULL AS analyzed FROM pg_stat_user_tables WHERE relname IN ('messages', 'tool_calls') ORDER BY relname",
      );
      expect(tables.rows).toEqual([
        { relname: "messages", vacuumed: true, analyzed: true },
        { relname: "tool_calls", vacuumed: true, analyzed: true },
      ]);
      const pages = await cluster.sql(db, "SELECT relpages, relallvisible FROM pg_class WHERE relname = 'messages'");
      expect(pages.rows[0]?.relallvisible).toBe(pages.rows[0]?.relpages);
      // Nothing written after the checkpoint but its own record (and the server's idle bookkeeping).
      const wal = await cluster.sql(
        db,
        "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), redo_lsn)::int AS since FROM pg_control_checkpoint()",
      );
      expect(wal.rows[0]?.since).toBeLessThan(4096);
    } finally {
      await pg.close();
    }
  });

  it("says why a role that may not checkpoint got no checkpoint, and still copies", async () => {
    const { store } = tempStore();
    const key: AuditKey = { key: randomBytes(32), fromSeq: 2 };
    history(store, key);
    await cluster.sql("postgres", "CREATE ROLE copier LOGIN PASSWORD 'copier-pw'");
    await cluster.sql("postgres", "CREATE DATABASE copied OWNER copier");
    const pg = await PgStore.open({ url: cluster.url("copied", "copier"), password: "copier-pw" });
    try {
      const report = await copyToPostgres(store, pg, { auditKey: key });
      expect(report.ok).toBe(true);
      expect(report.ready).toMatchObject({ analyzed: true, checkpoint: false });
      expect(report.ready.checkpointSkipped).toMatch(/CHECKPOINT/);
    } finally {
      await pg.close();
    }
  });

  it("reports a chain that does not verify with the key given", async () => {
    const { store } = tempStore();
    const key: AuditKey = { key: randomBytes(32), fromSeq: 2 };
    history(store, key);
    const pg = await PgStore.open({
      url: cluster.url(await cluster.createDatabase()),
      password: cluster.admin.password,
    });
    try {
      const report = await copyToPostgres(store, pg, { auditKey: { key: randomBytes(32), fromSeq: 2 } });
      expect(report.ok).toBe(false);
      expect(report.auditTo.ok).toBe(false);
      expect(report.mismatched).toEqual([]);
    } finally {
      await pg.close();
    }
  });
});
