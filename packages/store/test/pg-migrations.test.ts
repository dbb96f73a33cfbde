// Versioned migrations of the PostgreSQL store: an older database is upgraded on open (each
// step reported), Engines opening at once take turns, and a newer schema is refused.
import pg from "pg";
import { parse } from "pg-connection-string";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PG_SCHEMA_VERSION, PgStore } from "@palisade/store";
import type { MigrationStep } from "@palisade/store";
import { block } from "./helpers.js";
import { postgresUnavailable, startPostgres } from "./postgres-cluster.js";
import type { PgCluster } from "./postgres-cluster.js";

describe.skipIf(postgresUnavailable() !== undefined)("PostgreSQL migrations", () => {
  let cluster: PgCluster;
  beforeAll(async () => {
    cluster = await startPostgres();
  });
  afterAll(async () => {
    await cluster.stop();
  });
  const open = (db: string, onMigration?: (s: MigrationStep) => void) =>
    PgStore.open({ url: cluster.url(db), password: cluster.admin.password, ...(onMigration ? { onMigration } : {}) });

  it("upgrades a version 1 database with rows to the current version, reporting each step", async () => {
    const db = await cluster.createDatabase();
    const first = await open(db);
    await first.createSession({ id: "s1" });
    await first.appendMessage({ sessionId: "s1", role: "user", content: "kept across the upgrade" });
    const a = await first.appendMessage({ sessionId: "s1", role: "assistant", content: "" });
    await first.recordToolCall({ callId: "c1", messageId: a.id, toolName: "web__fetch", argumentsJson: "{}" });
    await first.close();
    // Back to version 1 as it was released: GIN indexes over tsv alone with a pending list, no
    // result labels, no call positions, no turn lock function.
    await cluster.sql(db, "DROP FUNCTION palisade_turn_lock");
    await cluster.sql(db, "DROP INDEX messages_block_tsv; DROP INDEX tool_calls_block_tsv");
    await cluster.sql(db, "CREATE INDEX messages_tsv ON messages USING GIN (tsv)");
    await cluster.sql(db, "CREATE INDEX tool_calls_tsv ON tool_calls USING GIN (tsv)");
    await cluster.sql(db, "ALTER TABLE tool_calls DROP COLUMN result_trust");
    await cluster.sql(db, "ALTER TABLE tool_calls DROP COLUMN text_offset");
    await cluster.sql(db, "DROP TABLE search_lexemes");
    await cluster.sql(db, "DELETE FROM palisade_schema WHERE version > 1");
    const steps: MigrationStep[] = [];
    const store = await open(db, (s) => steps.push(s));
    try {
      expect(await store.schemaVersion()).toBe(PG_SCHEMA_VERSION);
      expect(steps.map((s) => `${s.phase} ${String(s.from)}->${String(s.to)}`)).toEqual([
        "start 1->2",
        "done 1->2",
        "start 2->3",
        "done 2->3",
        "start 3->4",
        "done 3->4",
        "start 4->5",
        "done 4->5",
        "start 5->6",
        "done 5->6",
        "start 6->7",
        "done 6->7",
        "start 7->8",
        "done 7->8",
      ]);
      // a call stored before labels were kept has none; a new one keeps its label
      const calls = (await store.getHistory("s1")).messages.flatMap((m) => m.toolCalls);
      expect(calls.map((c) => [c.callId, c.resultTrust, c.textOffset])).toEqual([["c1", "", 0]]);
      await store.updateToolCall(a.id, "c1", { resultTrust: "untrusted" });
      const after = (await store.getHistory("s1")).messages.flatMap((m) => m.toolCalls);
      expect(after.map((c) => c.resultTrust)).toEqual(["untrusted"]);
      // The GIN indexes of version 6 replace those of version 1, with a pending list of 64 kB (version 8).
      const opts = await cluster.sql(
        db,
        "SELECT relname, reloptions FROM pg_class WHERE relname IN ('messages_tsv', 'tool_calls_tsv', 'messages_block_tsv', 'tool_calls_block_tsv') ORDER BY relname",
      );
      expect(opts.rows).toEqual([
        { relname: "messages_block_tsv", reloptions: ["fastupdate=on", "gin_pending_list_limit=64"] },
        { relname: "tool_calls_block_tsv", reloptions: ["fastupdate=on", "gin_pending_list_limit=64"] },
      ]);
      expect((await store.search("upgrade")).hits.map((h) => h.sessionId)).toEqual(["s1"]);
    } finally {
      await store.close();
    }
  });

  it("upgrades a version 4 database with turns: the next turn commits in one statement, continuing its seqs and the audit chain", async () => {
    const db = await cluster.createDatabase();
    const first = await open(db);
    await first.createSession({ id: "s1" });
    const rows = (i: number) => ({
      messages: [
        { id: `u${i}`, role: "user" as const, content: `question ${i}` },
        { id: `a${i}`, role: "assistant" as const, content: `answer ${i}` },
      ],
      toolCalls: [{ callId: "c", messageId: `a${i}`, toolName: "shell__run", argumentsJson: "{}", result: "ok" }],
      events: [{ type: "RESPONSE_COMPLETE" }],
      audit: [{ kind: "execution", callId: "c", payload: { i } }],
    });
    await first.commitTurn("s1", rows(0));
    await first.commitTurn("s1", rows(1));
    await first.close();
    // version 4 as released: no palisade_turn_lock(), GIN indexes over tsv alone
    await cluster.sql(db, "DROP FUNCTION palisade_turn_lock");
    await cluster.sql(db, "DROP INDEX messages_block_tsv; DROP INDEX tool_calls_block_tsv");
    await cluster.sql(db, "CREATE INDEX messages_tsv ON messages USING GIN (tsv) WITH (fastupdate = off)");
    await cluster.sql(db, "CREATE INDEX tool_calls_tsv ON tool_calls USING GIN (tsv) WITH (fastupdate = off)");
    await cluster.sql(db, "DROP TABLE search_lexemes");
    await cluster.sql(db, "DELETE FROM palisade_schema WHERE version > 4");
    const steps: MigrationStep[] = [];
    const store = await open(db, (s) => steps.push(s));
    try {
      expect(steps.map((s) => `${s.phase} ${String(s.from)}->${String(s.to)}`).slice(0, 2)).toEqual([
        "start 4->5",
        "done 4->5",
      ]);
      await store.commitTurn("s1", rows(2)); // learns the audit head
      const sent = vi.spyOn(pg.Client.prototype, "query");
      const done = await store.commitTurn("s1", rows(3));
      expect(sent.mock.calls).toHaveLength(1);
      sent.mockRestore();
      expect(done.messages.map((m) => m.seq)).toEqual([7, 8]);
      expect(done.events.map((e) => e.seq)).toEqual([4]);
      expect(done.audit.map((a) => a.seq)).toEqual([4]);
      expect((await store.getHistory("s1")).messages.map((m) => m.id)).toEqual([
        "u0",
        "a0",
        "u1",
        "a1",
        "u2",
        "a2",
        "u3",
        "a3",
      ]);
      expect((await store.getSession("s1"))?.messageCount).toBe(8);
      expect(await store.verifyAudit()).toMatchObject({ ok: true });
    } finally {
      await store.close();
    }
  });

  it("upgrades a version 5 database to the search index by block: old rows are found through it, filters too", async () => {
    const db = await cluster.createDatabase();
    const first = await open(db);
    await first.createSession({ id: "s1" });
    await first.commitTurn("s1", {
      messages: [
        { id: "u1", role: "user", content: "where is the quarterly invoice" },
        { id: "a1", role: "assistant", content: "the quarterly invoice is sent" },
      ],
      toolCalls: [
        {
          callId: "c1",
          messageId: "a1",
          toolName: "shell__run",
          argumentsJson: "{}",
          verdict: block,
          result: "invoice",
        },
      ],
    });
    await first.close();
    // version 5 as released: GIN indexes over tsv alone, no btree_gin
    await cluster.sql(db, "DROP INDEX messages_block_tsv; DROP INDEX tool_calls_block_tsv; DROP EXTENSION btree_gin");
    await cluster.sql(db, "CREATE INDEX messages_tsv ON messages USING GIN (tsv) WITH (fastupdate = off)");
    await cluster.sql(db, "CREATE INDEX tool_calls_tsv ON tool_calls USING GIN (tsv) WITH (fastupdate = off)");
    await cluster.sql(db, "DROP TABLE search_lexemes");
    await cluster.sql(db, "DELETE FROM palisade_schema WHERE version > 5");
    const steps: MigrationStep[] = [];
    const store = await open(db, (s) => steps.push(s));
    try {
      expect(steps.map((s) => `${s.phase} ${String(s.from)}->${String(s.to)}`)).toEqual([
        "start 5->6",
        "done 5->6",
        "start 6->7",
        "done 6->7",
        "start 7->8",
        "done 7->8",
      ]);
      const sent = vi.spyOn(pg.Client.prototype, "query");
      const all = await store.search("quarterly invoice");
      const users = await store.search("invoice", { role: "user" });
      const blocked = await store.search("invoice", { toolName: "shell__run", decision: "block" });
      const searches = sent.mock.calls.flatMap(([text, params]) =>
        typeof text === "string" && text.includes(" @@ ") ? [{ text, params: params as unknown[] }] : [],
      );
      sent.mockRestore();
      expect(all.hits.map((h) => h.messageId + h.callId).sort()).toEqual(["a1", "u1"]);
      expect(users.hits.map((h) => h.messageId)).toEqual(["u1"]);
      expect(blocked.hits.map((h) => h.callId)).toEqual(["c1"]);
      // Each of them asks the new indexes (on a table this small only when the scans of a whole table or
      // of its pk index are off).
      expect(searches.length).toBeGreaterThanOrEqual(4);
      const client = new pg.Client({ ...parse(cluster.url(db)), password: cluster.admin.password } as pg.ClientConfig);
      await client.connect();
      try {
        await client.query("SET enable_seqscan = off; SET enable_indexscan = off");
        for (const q of searches) {
          const plan = (await client.query<{ "QUERY PLAN": string }>(`EXPLAIN ${q.text}`, q.params)).rows
            .map((r) => r["QUERY PLAN"])
            .join("\n");
          expect(plan, q.text).toMatch(/(messages|tool_calls)_block_tsv/);
        }
      } finally {
        await client.end();
      }
    } finally {
      await store.close();
    }
  });

  it("a role that may not create btree_gin is told what to do, and opens once an administrator created it", async () => {
    const db = await cluster.createDatabase();
    const password = "lowly-password";
    await cluster.sql(db, `CREATE ROLE lowly_${db} LOGIN PASSWORD '${password}'`);
    await cluster.sql(db, `GRANT CREATE, USAGE ON SCHEMA public TO lowly_${db}`);
    const asLowly = () => PgStore.open({ url: cluster.url(db, `lowly_${db}`), password });
    await expect(asLowly()).rejects.toThrow(
      expect.objectContaining({
        code: "MIGRATION_FAILED",
        message: expect.stringMatching(
          /schema version 6 failed: permission denied to create extension "btree_gin".*have its administrator run 'CREATE EXTENSION btree_gin' in this database, then start again/,
        ) as string,
      }),
    );
    await cluster.sql(db, "CREATE EXTENSION btree_gin");
    const store = await asLowly();
    try {
      expect(await store.schemaVersion()).toBe(PG_SCHEMA_VERSION);
    } finally {
      await store.close();
    }
  });

  it("several Engines opening a new database at once: one migrates, all open", async () => {
    const db = await cluster.createDatabase();
    const stores = await Promise.all([open(db), open(db), open(db)]);
    try {
      for (const s of stores) expect(await s.schemaVersion()).toBe(PG_SCHEMA_VERSION);
      expect((await cluster.sql(db, "SELECT COUNT(*)::int AS n FROM palisade_schema")).rows[0]?.n).toBe(
        PG_SCHEMA_VERSION,
      );
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it("refuses a schema newer than this Palisade, saying what to do", async () => {
    const db = await cluster.createDatabase();
    await (await open(db)).close();
    await cluster.sql(db, "INSERT INTO palisade_schema (version, applied_at) VALUES (99, 0)");
    await expect(open(db)).rejects.toThrow(
      expect.objectContaining({
        code: "SCHEMA_TOO_NEW",
        message: expect.stringMatching(/version 99 is newer .*upgrade Palisade on every Engine/) as string,
      }),
    );
  });

  it("a wrong password or an unreachable server is a clear error naming the target, never the password", async () => {
    const err = (await PgStore.open({ url: cluster.url("postgres"), password: "not-the-password" }).then(
      () => new Error("opened"),
      (e: unknown) => e,
    )) as Error;
    expect(err).toMatchObject({
      code: "UNAVAILABLE",
      message: expect.stringMatching(
        /^cannot open the PostgreSQL store at PostgreSQL palisade_admin@socket .*: password authentication failed/,
      ) as string,
    });
    expect(err.message).not.toContain("not-the-password");
    await expect(PgStore.open({ url: "postgres://palisade:secret@db.example/x" })).rejects.toThrow(
      /carries a password/,
    );
  });
});
