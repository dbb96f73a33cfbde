import { describe, expect, it } from "vitest";
import type { Store } from "@palisade/store";
import { allow, tempStore } from "./helpers.js";

function seedSessions(store: Store): void {
  store.createSession({ id: "a", title: "Alpha report", titleSource: "user", createdAt: 100 });
  store.createSession({ id: "b", title: "beta notes", titleSource: "user", createdAt: 200 });
  store.createSession({ id: "c", title: "Gamma 100%_done", titleSource: "user", createdAt: 300 });
  store.appendMessage({ sessionId: "a", role: "user", content: "x", createdAt: 1000 });
}

describe("listSessions", () => {
  it("sorts, pages and counts", () => {
    const { store } = tempStore();
    seedSessions(store);
    const ids = (o: Parameters<Store["listSessions"]>[0]): string[] => store.listSessions(o).sessions.map((s) => s.id);
    expect(ids({})).toEqual(["a", "c", "b"]);
    expect(ids({ sort: "updated_asc" })).toEqual(["b", "c", "a"]);
    expect(ids({ sort: "created_desc" })).toEqual(["c", "b", "a"]);
    expect(ids({ sort: "created_asc" })).toEqual(["a", "b", "c"]);
    expect(ids({ sort: "title" })).toEqual(["a", "b", "c"]);
    expect(store.listSessions({ sort: "created_asc", limit: 2, offset: 1 })).toMatchObject({ total: 3, sessions: [{ id: "b" }, { id: "c" }] });
    expect(store.listSessions({ offset: 10 })).toEqual({ total: 3, sessions: [] });
    expect(store.listSessions({ sort: "created_asc" }).sessions[0]).toMatchObject({ messageCount: 1, updatedAt: 1000 });
  });

  it("filters titles case-insensitively and treats % and _ literally", () => {
    const { store } = tempStore();
    seedSessions(store);
    expect(store.listSessions({ titleFilter: "ALPHA" })).toMatchObject({ total: 1, sessions: [{ id: "a" }] });
    expect(store.listSessions({ titleFilter: "%_" })).toMatchObject({ total: 1, sessions: [{ id: "c" }] });
    expect(store.listSessions({ titleFilter: "eta" }).total).toBe(1);
    expect(store.listSessions({ titleFilter: "o" }).total).toBe(3);
    expect(() => store.listSessions({ limit: -1 })).toThrow(/limit/);
    expect(() => store.listSessions({ sort: "random" as never })).toThrow(/unknown sort/);
  });
});

describe("getHistory", () => {
  it("walks 1000 messages newest page first, without gaps or duplicates", () => {
    const { store } = tempStore();
    store.createSession({ id: "s" });
    store.transaction(() => {
      for (let i = 1; i <= 1000; i++) {
        const m = store.appendMessage({ sessionId: "s", role: i % 2 ? "user" : "assistant", content: `message ${i}`, createdAt: i });
        if (i % 10 === 0) store.recordToolCall({ callId: `c${i}`, messageId: m.id, toolName: "t", argumentsJson: "{}", verdict: allow });
      }
    });
    const seen: number[] = [];
    let cursor: string | undefined;
    let pages = 0;
    for (;;) {
      const page = store.getHistory("s", { limit: 37, cursor });
      pages++;
      const seqs = page.messages.map((m) => m.seq);
      expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
      seen.unshift(...seqs);
      for (const m of page.messages) expect(m.toolCalls.map((c) => c.callId)).toEqual(m.seq % 10 === 0 ? [`c${m.seq}`] : []);
      if (page.nextCursor === "") break;
      cursor = page.nextCursor;
    }
    expect(pages).toBe(Math.ceil(1000 / 37));
    expect(seen).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    expect(store.getHistory("s", { limit: 1 }).messages[0]?.content).toBe("message 1000");
  });

  it("is stable while new messages arrive between pages", () => {
    const { store } = tempStore();
    store.createSession({ id: "s" });
    for (let i = 1; i <= 10; i++) store.appendMessage({ sessionId: "s", role: "user", content: `m${i}` });
    const first = store.getHistory("s", { limit: 4 });
    store.appendMessage({ sessionId: "s", role: "user", content: "late" });
    const second = store.getHistory("s", { limit: 4, cursor: first.nextCursor });
    expect(first.messages.map((m) => m.seq)).toEqual([7, 8, 9, 10]);
    expect(second.messages.map((m) => m.seq)).toEqual([3, 4, 5, 6]);
  });

  it("rejects cursors it did not issue", () => {
    const { store } = tempStore();
    store.createSession({ id: "s" });
    for (const bad of ["garbage", "e30", Buffer.from('{"v":1,"before":-3}').toString("base64url")]) {
      expect(() => store.getHistory("s", { cursor: bad })).toThrow(expect.objectContaining({ code: "BAD_CURSOR" }));
    }
    expect(store.getHistory("unknown")).toEqual({ messages: [], nextCursor: "" });
  });
});
