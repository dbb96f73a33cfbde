import { describe, expect, it } from "vitest";
import type { HistoryStore } from "@palisade/store";
import { forEachBackend } from "./backends.js";
import { allow } from "./helpers.js";

async function seedSessions(store: HistoryStore): Promise<void> {
  await store.createSession({ id: "a", title: "Alpha report", titleSource: "user", createdAt: 100 });
  await store.createSession({ id: "b", title: "beta notes", titleSource: "user", createdAt: 200 });
  await store.createSession({ id: "c", title: "Gamma 100%_done", titleSource: "user", createdAt: 300 });
  await store.appendMessage({ sessionId: "a", role: "user", content: "x", createdAt: 1000 });
}

forEachBackend((backend) => {
  describe("listSessions", () => {
    it("sorts, pages and counts", async () => {
      const store = await backend.open();
      await seedSessions(store);
      const ids = async (o: Parameters<HistoryStore["listSessions"]>[0]): Promise<string[]> =>
        (await store.listSessions(o)).sessions.map((s) => s.id);
      expect(await ids({})).toEqual(["a", "c", "b"]);
      expect(await ids({ sort: "updated_asc" })).toEqual(["b", "c", "a"]);
      expect(await ids({ sort: "created_desc" })).toEqual(["c", "b", "a"]);
      expect(await ids({ sort: "created_asc" })).toEqual(["a", "b", "c"]);
      expect(await ids({ sort: "title" })).toEqual(["a", "b", "c"]);
      expect(await store.listSessions({ sort: "created_asc", limit: 2, offset: 1 })).toMatchObject({
        total: 3,
        sessions: [{ id: "b" }, { id: "c" }],
      });
      expect(await store.listSessions({ offset: 10 })).toEqual({ total: 3, sessions: [] });
      expect((await store.listSessions({ sort: "created_asc" })).sessions[0]).toMatchObject({
        messageCount: 1,
        updatedAt: 1000,
      });
    });

    it("filters titles case-insensitively and treats % and _ literally", async () => {
      const store = await backend.open();
      await seedSessions(store);
      expect(await store.listSessions({ titleFilter: "ALPHA" })).toMatchObject({ total: 1, sessions: [{ id: "a" }] });
      expect(await store.listSessions({ titleFilter: "%_" })).toMatchObject({ total: 1, sessions: [{ id: "c" }] });
      expect((await store.listSessions({ titleFilter: "eta" })).total).toBe(1);
      expect((await store.listSessions({ titleFilter: "o" })).total).toBe(3);
      await expect(store.listSessions({ limit: -1 })).rejects.toThrow(/limit/);
      await expect(store.listSessions({ sort: "random" as never })).rejects.toThrow(/unknown sort/);
    });
  });

  describe("getHistory", () => {
    it("walks 1000 messages newest page first, without gaps or duplicates", async () => {
      const store = await backend.open();
      await store.createSession({ id: "s" });
      // One transaction for all of them (a turn's commit), as a real history grows turn by turn.
      const n = Array.from({ length: 1000 }, (_, k) => k + 1);
      await store.commitTurn("s", {
        messages: n.map((i) => ({
          id: `m${i}`,
          role: i % 2 ? ("user" as const) : ("assistant" as const),
          content: `message ${i}`,
          createdAt: i,
        })),
        toolCalls: n
          .filter((i) => i % 10 === 0)
          .map((i) => ({ callId: `c${i}`, messageId: `m${i}`, toolName: "t", argumentsJson: "{}", verdict: allow })),
      });
      const seen: number[] = [];
      let cursor: string | undefined;
      let pages = 0;
      for (;;) {
        const page = await store.getHistory("s", { limit: 37, cursor });
        pages++;
        const seqs = page.messages.map((m) => m.seq);
        expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
        seen.unshift(...seqs);
        for (const m of page.messages)
          expect(m.toolCalls.map((c) => c.callId)).toEqual(m.seq % 10 === 0 ? [`c${m.seq}`] : []);
        if (page.nextCursor === "") break;
        cursor = page.nextCursor;
      }
      expect(pages).toBe(Math.ceil(1000 / 37));
      expect(seen).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
      expect((await store.getHistory("s", { limit: 1 })).messages[0]?.content).toBe("message 1000");
    });

    it("is stable while new messages arrive between pages", async () => {
      const store = await backend.open();
      await store.createSession({ id: "s" });
      for (let i = 1; i <= 10; i++) await store.appendMessage({ sessionId: "s", role: "user", content: `m${i}` });
      const first = await store.getHistory("s", { limit: 4 });
      await store.appendMessage({ sessionId: "s", role: "user", content: "late" });
      const second = await store.getHistory("s", { limit: 4, cursor: first.nextCursor });
      expect(first.messages.map((m) => m.seq)).toEqual([7, 8, 9, 10]);
      expect(second.messages.map((m) => m.seq)).toEqual([3, 4, 5, 6]);
    });

    it("rejects cursors it did not issue", async () => {
      const store = await backend.open();
      await store.createSession({ id: "s" });
      for (const bad of ["garbage", "e30", Buffer.from('{"v":1,"before":-3}').toString("base64url")]) {
        await expect(store.getHistory("s", { cursor: bad })).rejects.toThrow(
          expect.objectContaining({ code: "BAD_CURSOR" }),
        );
      }
      expect(await store.getHistory("unknown")).toEqual({ messages: [], nextCursor: "" });
    });
  });
});
