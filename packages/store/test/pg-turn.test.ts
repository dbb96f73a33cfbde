// A turn's commit on PostgreSQL is one statement (one round trip, one WAL flush) while the store
// knows the audit head; when another Engine appended to the chain meanwhile, the commit still
// chains from the real head; a refused or failed commit writes nothing.
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { PgStore } from "@palisade/store";
import type { TurnRows } from "@palisade/store";
import { allow } from "./helpers.js";
import { postgresUnavailable, startPostgres } from "./postgres-cluster.js";
import type { PgCluster } from "./postgres-cluster.js";

const turn = (p: string, i: number): TurnRows => ({
  messages: [
    { id: `${p}u${i}`, role: "user", content: `question ${i}` },
    { id: `${p}a${i}`, role: "assistant", content: `answer ${i}`, parentId: `${p}u${i}` },
  ],
  toolCalls: [
    {
      callId: "c",
      messageId: `${p}a${i}`,
      toolName: "shell__run",
      argumentsJson: "{}",
      verdict: allow,
      result: `ran ${i}`,
    },
  ],
  events: [{ type: "MESSAGE_ACCEPTED" }, { type: "RESPONSE_COMPLETE" }],
  audit: [{ kind: "execution", callId: "c", payload: { turn: i } }],
});

/** Every statement a connection sends from now on (the wire is the thing under test). */
function sentQueries() {
  return vi.spyOn(pg.Client.prototype, "query");
}

describe.skipIf(postgresUnavailable() !== undefined)("PostgreSQL turn commit", () => {
  let cluster: PgCluster;
  const stores: PgStore[] = [];
  beforeAll(async () => {
    cluster = await startPostgres();
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    while (stores.length > 0) await stores.pop()?.close();
  });
  afterAll(async () => {
    await cluster.stop();
  });
  const open = async (db: string): Promise<PgStore> => {
    const s = await PgStore.open({ url: cluster.url(db), password: cluster.admin.password, pool: 4 });
    stores.push(s);
    return s;
  };

  it("a turn's words go to a pending list of 64 kB, merged when full; a search finds them meanwhile", async () => {
    const db = await cluster.createDatabase();
    const store = await open(db);
    await store.createSession({ id: "s1" });
    await cluster.sql(db, "CREATE EXTENSION IF NOT EXISTS pgstattuple");
    const pending = async (): Promise<number[]> =>
      (
        await cluster.sql(
          db,
          "SELECT (pgstatginindex('messages_block_tsv')).pending_pages AS m, (pgstatginindex('tool_calls_block_tsv')).pending_pages AS t",
        )
      ).rows.flatMap((r: { m: number; t: number }) => [r.m, r.t]);
    const opts = await cluster.sql(
      db,
      "SELECT relname, reloptions FROM pg_class WHERE relname IN ('messages_block_tsv', 'tool_calls_block_tsv') ORDER BY relname",
    );
    expect(opts.rows).toEqual([
      { relname: "messages_block_tsv", reloptions: ["fastupdate=on", "gin_pending_list_limit=64"] },
      { relname: "tool_calls_block_tsv", reloptions: ["fastupdate=on", "gin_pending_list_limit=64"] },
    ]);
    let most = 0;
    for (let i = 0; i < 120; i++) {
      const words = Array.from({ length: 40 }, (_, k) => `w${String(i)}x${String(k)}`).join(" ");
      await store.commitTurn("s1", {
        messages: [{ id: `u${String(i)}`, role: "user", content: words }],
        toolCalls: [{ callId: "c", messageId: `u${String(i)}`, toolName: "t", argumentsJson: "{}", result: words }],
      });
      most = Math.max(most, ...(await pending()));
    }
    // 64 kB: 8 pages, and the one being filled
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(9);
    expect((await store.search("w119x7")).hits.map((h) => h.callId || h.messageId).sort()).toEqual(["c", "u119"]);
    expect((await store.search("w3x39")).total).toBe(2);
  });

  it("a turn is one statement on the pool (no BEGIN … COMMIT) once the store knows the audit head", async () => {
    const store = await open(await cluster.createDatabase());
    await store.createSession({ id: "s1" });
    await store.commitTurn("s1", turn("x", 0)); // learns the head
    const sent = sentQueries();
    const done = await store.commitTurn("s1", turn("x", 1));
    expect(sent.mock.calls).toHaveLength(1);
    expect(JSON.stringify(sent.mock.calls[0]?.[0])).toMatch(/palisade_turn_lock/);
    vi.restoreAllMocks();
    expect(done.messages.map((m) => [m.id, m.seq])).toEqual([
      ["xu1", 3],
      ["xa1", 4],
    ]);
    expect(done.events.map((e) => e.seq)).toEqual([3, 4]);
    expect(done.audit.map((a) => a.seq)).toEqual([2]);
    const history = await store.getHistory("s1");
    expect(history.messages.map((m) => [m.id, m.seq, m.toolCalls.map((c) => c.result)])).toEqual([
      ["xu0", 1, []],
      ["xa0", 2, ["ran 0"]],
      ["xu1", 3, []],
      ["xa1", 4, ["ran 1"]],
    ]);
    expect((await store.getSession("s1"))?.messageCount).toBe(4);
    expect((await store.listEvents("s1")).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect((await store.verifyAudit()).ok).toBe(true);
    // a turn without audit rows needs no head at all
    const fresh = await open(await cluster.createDatabase());
    await fresh.createSession({ id: "s2" });
    const sent2 = sentQueries();
    await fresh.commitTurn("s2", { ...turn("y", 0), audit: [] });
    expect(sent2.mock.calls).toHaveLength(1);
  });

  it("two Engines extending one audit chain: a commit whose head moved meanwhile chains from the real head", async () => {
    const db = await cluster.createDatabase();
    const a = await open(db);
    const b = await open(db);
    await a.createSession({ id: "sa" });
    await b.createSession({ id: "sb" });
    await a.commitTurn("sa", turn("a", 0));
    await b.appendAudits([{ kind: "proposal", sessionId: "sb", callId: "p", payload: { by: "b" } }]);
    const moved = await a.commitTurn("sa", turn("a", 1));
    const chain = await a.listAudit();
    expect(chain.map((r) => [r.seq, r.sessionId])).toEqual([
      [1, "sa"],
      [2, "sb"],
      [3, "sa"],
    ]);
    expect(moved.audit[0]).toMatchObject({ seq: 3, prevHash: chain[1]?.hash });
    // and at once, many turns from both
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        i % 2 ? a.commitTurn("sa", turn("a", 10 + i)) : b.commitTurn("sb", turn("b", i)),
      ),
    );
    const all = await a.listAudit();
    expect(all.map((r) => r.seq)).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
    expect(await a.verifyAudit()).toMatchObject({ ok: true });
    expect((await a.getHistory("sa")).messages.map((m) => m.seq)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
  });

  it("a refused or failed commit writes nothing: missing session, a duplicate message, a session another Engine took over", async () => {
    const db = await cluster.createDatabase();
    const a = await open(db);
    const b = await open(db);
    await a.createSession({ id: "s1" });
    await a.commitTurn("s1", turn("x", 0));
    const state = async (): Promise<unknown> => [
      (await a.getSession("s1"))?.messageCount,
      (await a.getHistory("s1")).messages.map((m) => [m.id, m.seq, m.toolCalls.length]),
      (await a.listEvents("s1")).map((e) => e.seq),
      (await a.listAudit()).map((r) => r.seq),
      await a.auditHead(),
    ];
    await expect(a.commitTurn("nope", turn("y", 0))).rejects.toMatchObject({ code: "NOT_FOUND" });
    // the same message id again: the statement fails after it moved the session's counters and the head
    const before = await state();
    await expect(a.commitTurn("s1", { ...turn("x", 0), autoTitle: { title: "never" } })).rejects.toMatchObject({
      code: "CONFLICT",
    });
    expect(await state()).toEqual(before);
    expect((await a.getSession("s1"))?.title).toBe("");
    await b.registerEngine("engine-b", "unix:/b.sock");
    const claim = { userMessageId: "bu1", content: "asked on B", createdAt: 1 };
    expect((await b.claimSession("s1", "engine-b", 60_000, claim)).ok).toBe(true);
    const claimed = await state();
    await expect(a.commitTurn("s1", turn("x", 1), { engineId: "engine-a" })).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(/taken over by Engine engine-b/) as string,
    });
    expect(await state()).toEqual(claimed);
    expect(await a.verifyAudit()).toMatchObject({ ok: true });
    // and the next turn still goes through in one statement
    const sent = sentQueries();
    await a.commitTurn("s1", turn("x", 2));
    expect(sent.mock.calls).toHaveLength(1);
    expect((await a.listAudit()).map((r) => r.seq)).toEqual([1, 2]);
  });
});
