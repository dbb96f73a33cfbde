import { describe, expect, it } from "vitest";
import type { HistoryStore } from "@palisade/store";
import { forEachBackend } from "./backends.js";
import { allow, block } from "./helpers.js";

async function corpus(store: HistoryStore): Promise<void> {
  await store.createSession({ id: "s1", title: "Kubernetes deploy", titleSource: "user", createdAt: 1000 });
  await store.createSession({ id: "s2", title: "Holiday plans", titleSource: "user", createdAt: 1000 });
  await store.commitTurn("s1", {
    messages: [
      { id: "m1", role: "user", content: "Please deploy the billing service to the staging cluster", createdAt: 1000 },
      { id: "m2", role: "assistant", content: "Deploying billing now. Deploy deploy deploy.", createdAt: 2000 },
      {
        id: "m3",
        role: "assistant",
        content: "The deployment finished; the café server in 東京 is healthy.",
        createdAt: 3000,
      },
    ],
    toolCalls: [
      {
        callId: "c1",
        messageId: "m2",
        toolName: "shell__run",
        argumentsJson: '{"command":"kubectl apply -f billing.yaml"}',
        verdict: allow,
        result: "deployment.apps/billing configured",
        createdAt: 2100,
      },
      {
        callId: "c2",
        messageId: "m2",
        toolName: "shell__run",
        argumentsJson: '{"command":"rm -rf /var/billing"}',
        verdict: block,
        result: "blocked by Shield",
        isError: true,
        createdAt: 2200,
      },
    ],
  });
  await store.commitTurn("s2", {
    messages: [
      { id: "n1", role: "user", content: "Find flights to Lisbon; nothing about billing", createdAt: 5000 },
      { id: "n2", role: "assistant", content: 'Flights to Lisbon found. Say "book" to continue.', createdAt: 6000 },
    ],
    toolCalls: [
      {
        callId: "d1",
        messageId: "n2",
        toolName: "http__fetch",
        argumentsJson: '{"url":"https://flights.example/lisbon"}',
        verdict: allow,
        result: "3 flights",
        createdAt: 5500,
      },
    ],
  });
}

forEachBackend((backend) => {
  describe("search", () => {
    it("finds message text and tool calls (name, arguments, result) with highlighted snippets", async () => {
      const store = await backend.open();
      await corpus(store);
      const r = await store.search("kubectl");
      expect(r.total).toBe(1);
      expect(r.hits[0]).toMatchObject({
        sessionId: "s1",
        sessionTitle: "Kubernetes deploy",
        messageId: "m2",
        callId: "c1",
        toolName: "shell__run",
        role: "tool",
        seq: 2,
      });
      expect(r.hits[0]?.snippet).toContain("[kubectl]");
      expect((await store.search("http__fetch")).hits.map((h) => h.callId)).toEqual(["d1"]);
      expect((await store.search("configured")).hits.map((h) => h.callId)).toEqual(["c1"]);
      const msg = (await store.search("staging cluster")).hits[0];
      expect(msg).toMatchObject({ messageId: "m1", callId: "", role: "user", createdAt: 1000 });
      expect(msg?.snippet).toBe("Please deploy the billing service to the [staging] [cluster]");
    });

    it("ranks by bm25: more occurrences in a short text first", async () => {
      const store = await backend.open();
      await corpus(store);
      const hits = (await store.search("deploy", { role: "assistant" })).hits;
      expect(hits.map((h) => h.messageId)).toEqual(["m2"]);
      const all = (await store.search("billing")).hits;
      expect(all.length).toBe(5);
      for (let i = 1; i < all.length; i++) expect(all[i - 1]!.rank).toBeLessThanOrEqual(all[i]!.rank);
    });

    it("applies filters: session, date range, role, tool name, decision", async () => {
      const store = await backend.open();
      await corpus(store);
      const ids = async (q: string, o: Parameters<HistoryStore["search"]>[1]): Promise<string[]> =>
        (await store.search(q, o)).hits.map((h) => h.callId || h.messageId).sort();
      expect(await ids("billing", { sessionId: "s2" })).toEqual(["n1"]);
      expect(await ids("billing", { sessionId: "s1" })).toEqual(["c1", "c2", "m1", "m2"]);
      expect(await ids("billing", { from: 2000, to: 2150 })).toEqual(["c1", "m2"]);
      expect(await ids("billing", { role: "user" })).toEqual(["m1", "n1"]);
      expect(await ids("billing", { role: "tool" })).toEqual(["c1", "c2"]);
      expect(await ids("billing", { toolName: "shell__run", decision: "block" })).toEqual(["c2"]);
      expect(await ids("billing", { decision: "allow" })).toEqual(["c1"]);
      expect(await ids("lisbon", { toolName: "http__fetch", sessionId: "s2" })).toEqual(["d1"]);
    });

    it("supports phrases, prefixes and unicode", async () => {
      const store = await backend.open();
      await corpus(store);
      expect((await store.search('"billing service"')).hits.map((h) => h.messageId)).toEqual(["m1"]);
      expect((await store.search('"service billing"')).hits).toEqual([]);
      expect((await store.search("deploym*")).hits.map((h) => h.callId || h.messageId).sort()).toEqual(["c1", "m3"]);
      expect((await store.search("cafe")).hits.map((h) => h.messageId)).toEqual(["m3"]);
      expect((await store.search("東京")).hits[0]?.snippet).toContain("[東京]");
    });

    it("paginates merged hits with limit and offset", async () => {
      const store = await backend.open();
      await corpus(store);
      const all = (await store.search("billing", { limit: 10 })).hits.map((h) => h.callId || h.messageId);
      const paged = (
        await Promise.all([0, 2, 4].map((offset) => store.search("billing", { limit: 2, offset })))
      ).flatMap((r) => r.hits.map((h) => h.callId || h.messageId));
      expect(paged).toEqual(all);
    });

    it("never lets user text break FTS5 syntax", async () => {
      const store = await backend.open();
      await corpus(store);
      const attempts = [
        '"',
        '""',
        '"unbalanced',
        'billing"',
        "*",
        "**billing",
        "billing*",
        "NEAR(billing",
        "NEAR(billing, 2)",
        "AND OR",
        "billing AND",
        "OR billing",
        "NOT",
        "billing NOT",
        "(billing",
        "billing)",
        "{billing}",
        "col:billing",
        "content:billing",
        "^billing",
        "billing +",
        "-billing",
        "'; DROP TABLE messages; --",
        "\u0000billing",
        "𝔟𝔦𝔩𝔩𝔦𝔫𝔤 🎉",
        "bílling",
        "\\",
        "%_",
        "a".repeat(5000),
      ];
      for (const q of attempts) {
        await expect(store.search(q), JSON.stringify(q)).resolves.toBeDefined();
        await expect(store.search(q, { sessionId: "s1", role: "tool" }), JSON.stringify(q)).resolves.toBeDefined();
      }
      // The text around the syntax still searches: quotes, operators and accents do not hide "billing".
      for (const q of ['billing"', "(billing", "{billing}", "^billing", "bílling", "col:billing"]) {
        expect((await store.search(q)).hits.length, q).toBe(q === "col:billing" ? 0 : 5); // "col:billing" is the phrase "col billing"
      }
    });

    it("treats operators as words and finds what they quote", async () => {
      const store = await backend.open();
      await corpus(store);
      expect((await store.search("billing AND")).hits).toEqual([]);
      expect((await store.search('"book"')).hits.map((h) => h.messageId)).toEqual(["n2"]);
      expect((await store.search('say "book')).hits.map((h) => h.messageId)).toEqual(["n2"]);
      expect((await store.search("-billing")).hits.length).toBe(5);
      expect((await store.search("")).hits).toEqual([]);
    });

    it("ranks the newest matches with the same bm25 when a term is too common for FTS5's exact ranking", async () => {
      const store = await backend.open();
      await store.createSession({ id: "big" });
      // One transaction (a turn's commit) for all of them.
      const rows = Array.from({ length: 3200 }, (_, i) => ({
        role: i % 2 ? ("assistant" as const) : ("user" as const),
        content:
          i === 3100
            ? "status status status"
            : i === 3150
              ? "status of the whole fleet of servers and more words here"
              : `status report number ${i} with filler words`,
        createdAt: i,
      }));
      await store.commitTurn("big", {
        messages: [...rows, { role: "user", content: "unique zephyr status", createdAt: 5000 }],
      });
      const r = await store.search("status", { limit: 3 });
      expect(r.totalIsLowerBound).toBe(true);
      expect(r.total).toBe(200);
      expect(r.hits[0]).toMatchObject({ seq: 3101, snippet: "[status] [status] [status]" });
      for (let i = 1; i < r.hits.length; i++) expect(r.hits[i - 1]!.rank).toBeLessThanOrEqual(r.hits[i]!.rank);
      // A rare term alongside keeps the exact path: one hit, exact total.
      expect(await store.search("zephyr status")).toMatchObject({
        total: 1,
        totalIsLowerBound: false,
        hits: [{ seq: 3201 }],
      });
      // Filters apply before the window: the 500 newest *user* messages.
      const users = await store.search("status", { role: "user", limit: 200 });
      expect(users.hits.every((h) => h.role === "user")).toBe(true);
      expect(
        (await store.search("status", { sessionId: "big", from: 3190, to: 3195 })).hits.map((h) => h.seq).sort(),
      ).toEqual([3191, 3192, 3193, 3194, 3195]);
    });

    it("keeps search in sync with updates and deletes", async () => {
      const store = await backend.open();
      await corpus(store);
      await store.updateMessage("m3", { content: "rewritten entirely" });
      expect((await store.search("healthy")).hits).toEqual([]);
      expect((await store.search("rewritten")).hits.map((h) => h.messageId)).toEqual(["m3"]);
      await store.updateToolCall("m2", "c1", { result: "zebra" });
      expect((await store.search("zebra")).hits.map((h) => h.callId)).toEqual(["c1"]);
      await store.deleteSession("s1");
      expect((await store.search("billing")).hits.map((h) => h.messageId)).toEqual(["n1"]);
    });
  });
});

forEachBackend((backend) => {
  describe("search across a tool call's columns", () => {
    it("a phrase does not match across the end of the arguments and the start of the result", async () => {
      const store = await backend.open();
      await store.createSession({ id: "s1" });
      await store.commitTurn("s1", {
        messages: [{ id: "m1", role: "assistant", content: "calling" }],
        toolCalls: [
          {
            callId: "c1",
            messageId: "m1",
            toolName: "http__fetch",
            argumentsJson: '{"q":"quarterly"}',
            result: "invoice sent",
          },
        ],
      });
      expect((await store.search('"quarterly invoice"')).hits).toEqual([]);
      expect((await store.search("quarterly invoice")).hits.map((h) => h.callId)).toEqual(["c1"]);
      expect((await store.search('"invoice sent"')).hits.map((h) => h.callId)).toEqual(["c1"]);
    });
  });
});
