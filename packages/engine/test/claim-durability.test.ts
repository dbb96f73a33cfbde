// A turn's user message is committed when the turn starts (a kill -9 keeps it) and its fsync runs
// while the Agent is asked; every later point that must survive a power cut waits for that fsync
// and reports its failure. The disk's timing is the one seam here: Store.sync (the WAL fdatasync)
// is held or failed for one call, the database and its commits are real.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Store } from "@palisade/store";
import { TURNS_IN_FLIGHT_DIR, openSqliteStore } from "../src/adapters/sqlite-store.js";
import { ZERO_USAGE } from "../src/history/convert.js";
import type { EngineStore } from "../src/index.js";
import { sessionRecord } from "./helpers/records.js";

let dir = "";
const open: EngineStore[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const s of open.splice(0)) await s.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The next Store.sync call waits until `settle` is called (with an error: it fails). */
function holdNextSync(): { settle: (err?: Error) => void; called: () => boolean } {
  let settle: (err?: Error) => void = () => undefined;
  let called = false;
  vi.spyOn(Store.prototype, "sync").mockImplementationOnce(() => {
    called = true;
    return new Promise<void>((resolve, reject) => {
      settle = (err) => (err ? reject(err) : resolve());
    });
  });
  return { settle: (err) => settle(err), called: () => called };
}

const within = <T>(p: Promise<T>, ms: number): Promise<T | "still waiting"> =>
  Promise.race([p, new Promise<"still waiting">((r) => setTimeout(() => r("still waiting"), ms))]);

async function started(): Promise<EngineStore> {
  dir = mkdtempSync(join(tmpdir(), "pal-claim-"));
  const store = await openSqliteStore(dir);
  open.push(store);
  await store.createSession(sessionRecord("s1"));
  return store;
}

const user = { userMessageId: "u1", content: "what is in notes.txt?", createdAt: 10 };
const turn = {
  session: { ...sessionRecord("s1"), updatedAt: 12 },
  status: "completed" as const,
  user: { id: "u1", content: user.content, createdAt: 10 },
  assistant: { id: "a1", content: "a list", createdAt: 12, usage: ZERO_USAGE },
  toolCalls: [],
  events: [],
};

describe("the user's message at the start of a turn", () => {
  it("is committed before the Agent is asked, without waiting for its fsync", async () => {
    const store = await started();
    const disk = holdNextSync();
    expect(await within(store.claimSession!("s1", user), 2000)).toEqual({ ok: true });
    expect(disk.called()).toBe(true);
    // committed: another connection to the file reads it (what a kill -9 leaves)
    const reader = await openSqliteStore(dir);
    open.push(reader);
    expect((await reader.history("s1", { limit: 10 })).messages.map((m) => m.content)).toEqual([user.content]);
    disk.settle();
  });

  it("the turn's commit and a durable audit write wait for that fsync", async () => {
    const store = await started();
    const disk = holdNextSync();
    await store.claimSession!("s1", user);
    const audit = store.appendAudit([
      { kind: "proposal", sessionId: "s1", callId: "c1", actor: "agent", payload: {}, ts: 11 },
    ]);
    const commit = store.commitTurn(turn);
    expect(await within(audit, 300)).toBe("still waiting");
    expect(await within(commit, 300)).toBe("still waiting");
    disk.settle();
    await expect(commit).resolves.toBeUndefined();
    await expect(audit).resolves.toBeUndefined();
  }, 5000);

  it("a failed fsync of it fails the turn's commit, though a later fsync succeeds", async () => {
    const store = await started();
    const disk = holdNextSync();
    await store.claimSession!("s1", user);
    disk.settle(new Error("EIO: i/o error, fdatasync"));
    await expect(store.commitTurn(turn)).rejects.toThrow(/EIO/);
  }, 5000);

  it("the note of its turn in flight stays until the turn's commit is durable", async () => {
    const store = await started();
    await store.claimSession!("s1", user);
    const note = join(dir, TURNS_IN_FLIGHT_DIR, "u1");
    expect(existsSync(note)).toBe(true);
    const disk = holdNextSync(); // the commit's own fsync
    const commit = store.commitTurn(turn);
    expect(await within(commit, 300)).toBe("still waiting");
    // a power cut now loses the answer: the note makes the next start mark the turn interrupted
    expect(existsSync(note)).toBe(true);
    disk.settle();
    await commit;
    for (let i = 0; i < 100 && existsSync(note); i++) await new Promise((r) => setTimeout(r, 20));
    expect(existsSync(note)).toBe(false);
  }, 5000);
});
