// The statements a turn runs stay prepared: a statement SQLite re-prepares at every run also has
// its row function compiled again by better-sqlite3 (with `Function`), several times the cost of
// the run itself (see "Plans that stay prepared" in src/db.ts).
import { afterEach, describe, expect, it, vi } from "vitest";
import { allow, tempStore } from "./helpers.js";
import type { Store } from "@palisade/store";

afterEach(() => {
  vi.restoreAllMocks();
});

function turn(store: Store, sessionId: string, i: number): void {
  store.listMemory(sessionId);
  store.appendAudits([{ kind: "proposal", sessionId, callId: `c${i}`, payload: { toolName: "files__read_file" } }]);
  store.commitTurn(sessionId, {
    messages: [
      { id: `${sessionId}-u${i}`, role: "user", content: "read x" },
      { id: `${sessionId}-a${i}`, role: "assistant", content: "done", parentId: `${sessionId}-u${i}` },
    ],
    toolCalls: [{ callId: `c${i}`, messageId: `${sessionId}-a${i}`, toolName: "files__read_file", argumentsJson: "{}", verdict: allow, result: "x" }],
    events: [{ type: "MESSAGE_ACCEPTED" }, { type: "RESPONSE_COMPLETE" }],
    audit: [{ kind: "execution", callId: `c${i}`, payload: { ok: true } }],
  });
}

describe("prepared plans", () => {
  it("a turn's statements are not prepared again when they run for another session", () => {
    const { store } = tempStore({ synchronous: "normal" });
    for (const id of ["s1", "s2"]) store.createSession({ id });
    turn(store, "s1", 0);
    turn(store, "s2", 0);
    const compiled = vi.spyOn(globalThis, "Function");
    for (let i = 1; i <= 4; i++) turn(store, i % 2 ? "s1" : "s2", i);
    expect(compiled).not.toHaveBeenCalled();
    expect(store.getHistory("s1").messages.map((m) => m.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(store.listEvents("s2").map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
  });
});
