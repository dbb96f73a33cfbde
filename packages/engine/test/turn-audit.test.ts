// A turn's audit entries are written in the turn's own transaction (one commit, one fsync per
// turn), and still written when the turn's rows cannot be: the tool calls they record did run.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Store } from "@palisade/store";
import { DATABASE_FILE, openSqliteStore } from "../src/adapters/sqlite-store.js";
import { AuditWriter } from "../src/history/audit.js";
import { ZERO_USAGE } from "../src/history/convert.js";
import type { EngineStore, SessionRecord, TurnCommit } from "../src/ports.js";
import { sessionRecord } from "./helpers/records.js";

let dir = "";
const open: EngineStore[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const session = sessionRecord;

function turn(s: SessionRecord, audit: TurnCommit["audit"]): TurnCommit {
  return {
    session: s,
    status: "completed",
    user: { id: `u-${s.id}`, content: "read x.txt", createdAt: 2 },
    assistant: { id: `a-${s.id}`, content: "done", createdAt: 3, usage: ZERO_USAGE },
    toolCalls: [],
    events: [],
    ...(audit ? { audit } : {}),
  };
}

/** What another process reading the database sees: the audit rows of `sessionId` and the chain check. */
function readAudit(sessionId: string) {
  const store = Store.open(join(dir, DATABASE_FILE), { readonly: true });
  try {
    return {
      kinds: store.listAudit({ sessionId, limit: 100 }).map((r) => `${r.kind}:${r.callId}`),
      ok: store.verifyAudit().ok,
      messages: store.getHistory(sessionId, { limit: 10 }).messages.length,
    };
  } finally {
    store.close();
  }
}

async function setup(): Promise<{ store: EngineStore; audit: AuditWriter }> {
  dir = mkdtempSync(join(tmpdir(), "pal-turn-audit-"));
  const store = await openSqliteStore(dir);
  open.push(store);
  // A window far longer than the test: only the turn's commit can write these entries.
  return { store, audit: new AuditWriter(store, () => undefined, 60_000) };
}

describe("a turn's audit entries", () => {
  it("are committed with the turn's rows, in order, in a chain that verifies", async () => {
    const { store, audit } = await setup();
    const s = session("s1");
    await store.createSession(s);
    audit.step(s, "proposal", "c1", "agent", { toolName: "files__read_file" });
    audit.step(s, "verdict", "c1", "shield", { decision: "ALLOW" });
    audit.step(s, "execution", "c1", "engine", { ok: true });
    await store.commitTurn(turn(s, audit.takeForCommit()));
    expect(readAudit("s1")).toEqual({ kinds: ["proposal:c1", "verdict:c1", "execution:c1"], ok: true, messages: 2 });
    expect(audit.takeForCommit()).toEqual([]); // handed over once
  });

  it("are written on their own when the turn's rows cannot be", async () => {
    const { store, audit } = await setup();
    const s = session("s2");
    await store.createSession(s);
    audit.step(s, "proposal", "c9", "agent", { toolName: "shell__execute_command" });
    audit.step(s, "execution", "c9", "engine", { ok: true });
    // A turn whose user message id is already taken: its transaction fails and rolls back.
    await store.commitTurn(turn(s, []));
    await expect(store.commitTurn(turn(s, audit.takeForCommit()))).rejects.toThrow(/already exists/);
    expect(readAudit("s2")).toEqual({ kinds: ["proposal:c9", "execution:c9"], ok: true, messages: 2 });
  });
});
