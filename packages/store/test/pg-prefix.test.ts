// A prefix search on PostgreSQL asks the search index for the words the prefix stands for, read
// once from the lexeme table, never for the prefix itself (the index would expand it again for
// every block of rows it is asked about). So every write of a row's text adds its words there.
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { PgStore, copyToPostgres } from "@palisade/store";
import type { SearchResult } from "@palisade/store";
import { allow, tempStore } from "./helpers.js";
import { postgresUnavailable, startPostgres } from "./postgres-cluster.js";
import type { PgCluster } from "./postgres-cluster.js";

/** The tsquery each query of a search asked the index with (the text after `tsv @@` is its second parameter). */
async function indexQueries(run: () => Promise<SearchResult>): Promise<{ result: SearchResult; asked: string[] }> {
  const sent = vi.spyOn(pg.Client.prototype, "query");
  try {
    const result = await run();
    const asked = sent.mock.calls.flatMap(([text, params]) =>
      typeof text === "string" && text.includes("x.tsv @@ $2::tsquery") ? [String((params as unknown[])[1])] : [],
    );
    return { result, asked };
  } finally {
    sent.mockRestore();
  }
}

const ids = (r: SearchResult): string[] => r.hits.map((h) => h.callId || h.messageId).sort();

describe.skipIf(postgresUnavailable() !== undefined)("PostgreSQL prefix search", () => {
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

  it("asks the index for the words of every write path, never for the prefix", async () => {
    const store = await open(await cluster.createDatabase());
    await store.createSession({ id: "s1" });
    await store.commitTurn("s1", {
      messages: [
        { id: "u1", role: "user", content: "deploy it" },
        { id: "a1", role: "assistant", content: "ok" },
      ],
      toolCalls: [{ callId: "c1", messageId: "a1", toolName: "shell__run", argumentsJson: '{"x":"deployed"}' }],
    });
    const m = await store.appendMessage({ sessionId: "s1", role: "assistant", content: "nothing yet" });
    await store.updateMessage(m.id, { content: "the deployment ran" });
    await store.recordToolCall({ callId: "c2", messageId: m.id, toolName: "files__read", argumentsJson: "{}" });
    await store.updateToolCall(m.id, "c2", { result: "deployer.log" });
    // a turn in flight when its Engine died: the Engine taking over records its message
    await store.registerEngine("engine-a", "unix:/a.sock");
    await store.registerEngine("engine-b", "unix:/b.sock");
    const turn = { userMessageId: "i1", content: "deploys interrupted", createdAt: 5 };
    expect((await store.claimSession("s1", "engine-a", 1, turn)).ok).toBe(true);
    await new Promise((r) => setTimeout(r, 20));
    const again = { userMessageId: "i2", content: "asked again", createdAt: 6 };
    expect((await store.claimSession("s1", "engine-b", 60_000, again)).ok).toBe(true);

    const { result, asked } = await indexQueries(() => store.search("deplo*"));
    expect(ids(result)).toEqual(["c1", "c2", "i1", "u1", m.id].sort());
    expect(result.total).toBe(5);
    expect(asked.length).toBeGreaterThan(0);
    for (const q of asked) expect(q).toBe("('deploy' | 'deployed' | 'deployer' | 'deployment' | 'deploys')");
    // a phrase ending in a prefix: its last word expanded too, the phrase still checked on each row
    const phrase = await indexQueries(() => store.search("the-deploym*"));
    expect(ids(phrase.result)).toEqual([m.id]);
    for (const q of phrase.asked) expect(q).toBe("('the' & 'deployment')");
  });

  it("a prefix no stored word starts with finds nothing without asking the index", async () => {
    const store = await open(await cluster.createDatabase());
    await store.createSession({ id: "s1" });
    await store.appendMessage({ sessionId: "s1", role: "user", content: "deploy it" });
    const { result, asked } = await indexQueries(() => store.search("deploy zebr*"));
    expect(result).toEqual({ hits: [], total: 0, totalIsLowerBound: false });
    expect(asked).toEqual([]);
  });

  it("a prefix of more words than it expands is left to the index, with the same results", async () => {
    const store = await open(await cluster.createDatabase());
    await store.createSession({ id: "s1" });
    const words = Array.from({ length: 300 }, (_, i) => `zed${String(i).padStart(3, "0")}`);
    for (let i = 0; i < words.length; i += 100)
      await store.appendMessage({ sessionId: "s1", role: "user", content: words.slice(i, i + 100).join(" ") });
    await store.appendMessage({ sessionId: "s1", role: "user", content: "zero" });
    const { result, asked } = await indexQueries(() => store.search("ze*"));
    expect(result.total).toBe(4);
    for (const q of asked) expect(q).toBe("'ze':*");
    const narrow = await indexQueries(() => store.search("zed29*"));
    expect(narrow.result.total).toBe(1);
    for (const q of narrow.asked) expect(q).toContain("'zed299'");
  });

  it("a history copied from SQLite is found by prefix through the words of the copy", async () => {
    const { store: sqlite } = tempStore();
    sqlite.createSession({ id: "s1" });
    sqlite.commitTurn("s1", {
      messages: [{ id: "a1", role: "assistant", content: "kubernetes is up" }],
      toolCalls: [
        {
          callId: "c1",
          messageId: "a1",
          toolName: "shell__run",
          argumentsJson: "{}",
          verdict: allow,
          result: "kubectl",
        },
      ],
    });
    const store = await open(await cluster.createDatabase());
    expect((await copyToPostgres(sqlite, store)).ok).toBe(true);
    const { result, asked } = await indexQueries(() => store.search("kube*"));
    expect(ids(result)).toEqual(["a1", "c1"]);
    for (const q of asked) expect(q).toBe("('kubectl' | 'kubernetes')");
  });

  it("upgrading a version 6 database lists the words of its rows", async () => {
    const db = await cluster.createDatabase();
    const first = await open(db);
    await first.createSession({ id: "s1" });
    await first.appendMessage({ sessionId: "s1", role: "user", content: "an invoice and invoices" });
    await first.close();
    stores.length = 0;
    await cluster.sql(db, "DROP TABLE search_lexemes; DELETE FROM palisade_schema WHERE version > 6");
    const store = await open(db);
    const { result, asked } = await indexQueries(() => store.search("invoic*"));
    expect(result.total).toBe(1);
    for (const q of asked) expect(q).toBe("('invoice' | 'invoices')");
  });
});
