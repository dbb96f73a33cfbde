// Two Engines over one PostgreSQL database (a private cluster): each live session is served by
// one Engine at a time, a client of the other gets an answer naming it, any Engine lists and
// searches every session, and a lease that runs out mid-turn hands the session over with the
// turn recorded as interrupted.
import { mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { STORE_PASSWORD, UserCredentialStore } from "@palisade/capabilities";
import { Code, RpcError } from "@palisade/protocol";
import { PgStore } from "@palisade/store";
import { postgresUnavailable, startPostgres } from "../../store/test/postgres-cluster.js";
import type { PgCluster } from "../../store/test/postgres-cluster.js";
import { openPostgresStore } from "../src/adapters/postgres-store.js";
import { ZERO_USAGE } from "../src/history/convert.js";
import type { EngineStore } from "../src/ports.js";
import type { StoreConfig } from "@palisade/config";
import { collect, startHarness } from "./helpers/setup.js";
import type { Harness } from "./helpers/setup.js";
import { sessionRecord } from "./helpers/records.js";

let cluster: PgCluster;
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()?.();
});

async function storeConfig(engineId: string, database: string, leaseMs: number): Promise<StoreConfig> {
  return { url: cluster.url(database), pool: 4, leaseMs, engineId };
}

async function open(engineId: string, database: string, leaseMs = 1500): Promise<EngineStore> {
  const store = await openPostgresStore(await storeConfig(engineId, database, leaseMs), () => undefined, undefined, {
    env: { PGPASSWORD: cluster.admin.password },
  });
  cleanup.push(() => store.close());
  return store;
}

const session = sessionRecord;

describe.skipIf(postgresUnavailable() !== undefined)("several Engines on one PostgreSQL database", () => {
  beforeAll(async () => {
    cluster = await startPostgres();
  });
  afterAll(async () => {
    await cluster.stop();
  });

  it("the adapter reads its password from PGPASSWORD and removes it from the environment", async () => {
    const db = await cluster.createDatabase();
    const env: NodeJS.ProcessEnv = { PGPASSWORD: cluster.admin.password };
    const store = await openPostgresStore(await storeConfig("e", db, 1000), () => undefined, undefined, { env });
    cleanup.push(() => store.close());
    expect(env.PGPASSWORD).toBeUndefined();
    expect(store.describe?.()).toMatch(/^PostgreSQL palisade_admin@socket .*\/t\d+_\d+ \(engine e, lease 1 s\)$/);
    await expect(
      openPostgresStore(await storeConfig("e", db, 1000), () => undefined, undefined, { env: { PGPASSWORD: "wrong" } }),
    ).rejects.toThrow(/password authentication failed/);
  });

  it("without PGPASSWORD the adapter takes the password from the data directory's credential store; PGPASSWORD comes first", async () => {
    const db = await cluster.createDatabase();
    const dataDir = mkdtempSync(join(tmpdir(), "pal-pg-cred-"));
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
    const cfg = await storeConfig("e", db, 1000);
    // Nothing anywhere: refused by the server, naming no password.
    await expect(openPostgresStore(cfg, () => undefined, undefined, { env: {}, dataDir })).rejects.toThrow(/password/);
    await new UserCredentialStore(join(dataDir, "credentials.json")).set(
      STORE_PASSWORD.user,
      STORE_PASSWORD.capability,
      STORE_PASSWORD.name,
      cluster.admin.password,
    );
    const store = await openPostgresStore(cfg, () => undefined, undefined, { env: {}, dataDir });
    cleanup.push(() => store.close());
    expect(store.describe?.()).toMatch(/^PostgreSQL palisade_admin@socket /);
    await expect(
      openPostgresStore(cfg, () => undefined, undefined, { env: { PGPASSWORD: "wrong" }, dataDir }),
    ).rejects.toThrow(/password authentication failed/);
  });

  it("a session claimed by Engine A is refused to Engine B, naming A, until A's lease runs out; a dead A's turn is recorded as interrupted", async () => {
    const db = await cluster.createDatabase();
    const a = await open("engine-a", db, 800);
    const b = await open("engine-b", db, 800);
    await a.startLeases?.("unix:/run/a.sock");
    await b.startLeases?.("unix:/run/b.sock");
    await a.createSession(session("s1"));
    await a.commitTurn({
      session: session("s1"),
      status: "completed",
      user: { id: "u0", content: "first question", createdAt: 10 },
      assistant: { id: "a0", content: "first answer", createdAt: 11, usage: ZERO_USAGE },
      toolCalls: [],
      events: [],
    });
    expect(
      await a.claimSession?.("s1", { userMessageId: "u1", content: "second question, never answered", createdAt: 20 }),
    ).toEqual({ ok: true });
    // A renews its lease while the turn runs: B is refused for longer than one lease.
    for (let i = 0; i < 3; i++) {
      const refused = await b.claimSession?.("s1", { userMessageId: "u2", content: "from b", createdAt: 30 });
      expect(refused).toMatchObject({
        ok: false,
        owner: expect.stringMatching(/^Engine engine-a at unix:\/run\/a\.sock \(its lease runs out in \d+ s/) as string,
      });
      expect(await b.sessionOwner?.("s1")).toMatch(/^Engine engine-a/);
      await sleep(400);
    }
    // Any Engine lists, searches and shows every session meanwhile.
    expect((await b.listSessions({ limit: 10, offset: 0, sort: "updated_desc" })).sessions.map((s) => s.id)).toEqual([
      "s1",
    ]);
    expect((await b.search({ query: "first", limit: 10, offset: 0 })).hits.map((h) => h.messageId).sort()).toEqual([
      "a0",
      "u0",
    ]);
    // An Engine that dies mid-turn renews nothing and releases nothing: here "engine-dead" claims
    // session s2 straight in the database, then its connections go away.
    await a.createSession(session("s2"));
    const dead = await PgStore.open({ url: cluster.url(db), password: cluster.admin.password });
    await dead.registerEngine("engine-dead", "unix:/run/dead.sock");
    expect(
      await dead.claimSession("s2", "engine-dead", 800, {
        userMessageId: "u9",
        content: "asked just before the crash",
        createdAt: 40,
      }),
    ).toEqual({ ok: true });
    await dead.close();
    expect(await b.claimSession?.("s2", { userMessageId: "u10", content: "from b", createdAt: 50 })).toMatchObject({
      ok: false,
      owner: expect.stringMatching(/^Engine engine-dead at unix:\/run\/dead\.sock/) as string,
    });
    await sleep(900);
    expect(await b.claimSession?.("s2", { userMessageId: "u10", content: "from b", createdAt: 50 })).toEqual({
      ok: true,
    });
    const history = await b.contextMessages("s2");
    expect(history.map((m) => [m.id, m.role, m.content])).toEqual([["u9", "user", "asked just before the crash"]]);
    const pg = await PgStore.open({ url: cluster.url(db), password: cluster.admin.password });
    try {
      const events = await pg.listEvents("s2");
      expect(events.map((e) => e.type)).toEqual(["TURN_INTERRUPTED"]);
      expect(JSON.parse(events[0]?.payload ?? "{}")).toMatchObject({
        userMessageId: "u9",
        engineId: "engine-dead",
        takenOverBy: "engine-b",
      });
      // u9, and u10 committed with B's claim (left out of the Agent's context until its turn commits)
      expect((await pg.getHistory("s2")).messages.map((m) => m.id)).toEqual(["u9", "u10"]);
      expect((await pg.getSession("s2"))?.messageCount).toBe(2);
    } finally {
      await pg.close();
    }
    // An Engine that was only cut off (not dead) and commits after the takeover is refused: the
    // taker recorded its turn as interrupted, and its late answer must not land beside that.
    const c = await open("engine-c", db, 800); // its leases are never renewed (no startLeases)
    await a.createSession(session("s3"));
    expect(await c.claimSession?.("s3", { userMessageId: "u20", content: "asked on C", createdAt: 70 })).toEqual({
      ok: true,
    });
    await sleep(900);
    expect(await b.claimSession?.("s3", { userMessageId: "u21", content: "asked on B", createdAt: 80 })).toEqual({
      ok: true,
    });
    await expect(
      c.commitTurn({
        session: session("s3"),
        status: "completed",
        user: { id: "u20", content: "asked on C", createdAt: 70 },
        assistant: { id: "a20", content: "late answer from C", createdAt: 90, usage: ZERO_USAGE },
        toolCalls: [],
        events: [],
      }),
    ).rejects.toThrow(
      /session s3 was taken over by Engine engine-b while this turn ran .*: the turn's answer is not saved/,
    );
    const pg3 = await PgStore.open({ url: cluster.url(db), password: cluster.admin.password });
    try {
      expect((await pg3.getHistory("s3")).messages.map((m) => m.id)).toEqual(["u20", "u21"]);
      expect((await pg3.listEvents("s3")).map((e) => e.type)).toEqual(["TURN_INTERRUPTED"]);
    } finally {
      await pg3.close();
    }
    // Event numbering continues past the TURN_INTERRUPTED row (which carries no live seq).
    await b.commitTurn({
      session: session("s2"),
      status: "completed",
      user: { id: "u10", content: "from b", createdAt: 50 },
      toolCalls: [],
      events: [
        {
          sessionId: "s2",
          messageId: "a10",
          seq: 41,
          type: "RESPONSE_COMPLETE",
          timestamp: 51,
          payloadJson: JSON.stringify({ seq: "41" }),
        },
      ],
    });
    expect(await b.lastEventSeq("s2")).toBe(41);
    const pgE = await PgStore.open({ url: cluster.url(db), password: cluster.admin.password });
    await pgE.appendEvent({ sessionId: "s2", type: "TURN_INTERRUPTED", payload: { reason: "test" } });
    await pgE.close();
    expect(await b.lastEventSeq("s2")).toBe(42);
    // A's turn ends normally: the lease is left to run out, then B may continue s1 too.
    await a.finishTurn?.("s1");
    expect(await b.claimSession?.("s1", { userMessageId: "u3", content: "from b", createdAt: 60 })).toMatchObject({
      ok: false,
    });
    await sleep(900);
    expect(await b.claimSession?.("s1", { userMessageId: "u3", content: "from b", createdAt: 60 })).toEqual({
      ok: true,
    });
    // u1 was committed with A's claim (before its model was asked), so it stays in the history.
    expect((await b.contextMessages("s1")).map((m) => m.id)).toEqual(["u0", "a0", "u1"]);
  });

  it("keeps finished sub-agent runs in the database: the run, its transcript and tool calls, out of the session's history", async () => {
    const db = await cluster.createDatabase();
    const store = await open("engine-a", db);
    await store.createSession(session("s1"));
    await store.commitTurn({
      session: session("s1"),
      status: "completed",
      user: { id: "u0", content: "delegate it", createdAt: 10 },
      assistant: { id: "a0", content: "done", createdAt: 20, usage: ZERO_USAGE },
      toolCalls: [],
      events: [],
    });
    const runs = store.subAgentRuns?.();
    expect(runs).toBeDefined();
    await runs?.save({
      id: "run1",
      sessionId: "s1",
      parentMessageId: "a0",
      parentUserMessageId: "u0",
      name: "researcher",
      task: "find the docs",
      state: "completed",
      result: "found 2",
      error: "",
      llmCalls: 2,
      toolCalls: 1,
      startedAt: 11,
      endedAt: 19,
      transcript: [
        { role: "user", content: "find the docs", createdAt: 11 },
        { role: "assistant", content: "found 2", createdAt: 18 },
      ],
      calls: [
        {
          callId: "c1",
          toolName: "files__read_file",
          argumentsJson: '{"path":"docs.md"}',
          verdict: { decision: "allow", tier: 0, confidence: 1, reason: "policy", ruleIds: [], evaluationUs: 5 },
          approval: "",
          result: "# Docs",
          isError: false,
          durationMs: 2,
          artifacts: [],
          startedAt: 12,
        },
      ],
    });
    expect(await runs?.list("s1")).toMatchObject([
      {
        name: "researcher",
        task: "find the docs",
        state: "completed",
        result: "found 2",
        llmCalls: 2,
        toolCalls: 1,
        endedAt: 19,
      },
    ]);
    const pg = await PgStore.open({ url: cluster.url(db), password: cluster.admin.password });
    try {
      expect((await pg.listSubAgentRuns("s1"))[0]).toMatchObject({ id: "run1", parentMessageId: "a0" });
      const transcript = await pg.getSubAgentTranscript("run1");
      expect(transcript.map((m) => m.content)).toEqual(["find the docs", "found 2"]);
      expect(transcript[1]?.toolCalls).toMatchObject([
        { callId: "c1", subAgentName: "researcher", subAgentRunId: "run1", verdict: { decision: "allow" } },
      ]);
      expect((await pg.search("docs.md")).hits.map((h) => h.callId)).toEqual(["c1"]);
    } finally {
      await pg.close();
    }
    expect((await store.contextMessages("s1")).map((m) => m.id)).toEqual(["u0", "a0"]);
    expect((await store.getSession("s1"))?.messageCount).toBe(2);
    // A run of a session deleted meanwhile is dropped, not an error.
    await store.deleteSession("s1");
    await expect(
      runs?.save({
        id: "run2",
        sessionId: "s1",
        parentMessageId: "a0",
        parentUserMessageId: "u0",
        name: "x",
        task: "y",
        state: "failed",
        result: "",
        error: "gone",
        llmCalls: 0,
        toolCalls: 0,
        startedAt: 1,
        endedAt: 2,
        transcript: [],
        calls: [],
      }),
    ).resolves.toBeUndefined();
  });

  it("a client of Engine B continuing or approving in a session Engine A serves gets an answer naming A", async () => {
    const db = await cluster.createDatabase();
    const engines: Harness[] = [];
    for (const id of ["engine-a", "engine-b"]) {
      const h = await startHarness({ store: await open(id, db, 5000) });
      cleanup.push(() => h.close());
      engines.push(h);
    }
    const [a, b] = engines as [Harness, Harness];
    // A's Agent holds the turn open: A serves the session.
    const first = a.client.sendMessage({ content: "hello from A's client" });
    const events: Array<{ sessionId: string }> = [];
    const it1 = first[Symbol.asyncIterator]();
    const accepted = (await it1.next()).value as { sessionId: string };
    events.push(accepted);
    const sid = accepted.sessionId;
    const process = await a.agent.next("process");
    const refused = await collect(b.client.sendMessage({ sessionId: sid, content: "hello from B's client" })).catch(
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(RpcError);
    expect((refused as RpcError).code).toBe(Code.FAILED_PRECONDITION);
    expect((refused as RpcError).message).toMatch(
      new RegExp(`session ${sid} is served by Engine engine-a at unix:.*: continue it there`),
    );
    const approval = await b.client.resolveApproval({ sessionId: sid, approvalId: "ap_1", decision: 1 });
    expect(approval).toMatchObject({
      accepted: false,
      message: expect.stringMatching(/is served by Engine engine-a .*: its approvals are answered there/) as string,
    });
    // B lists and shows the session while A serves it.
    expect((await b.client.listSessions({})).sessions.map((s) => s.id)).toContain(sid);
    await a.agent.complete(sid, process.messageId, "done on A");
    for (let r = await it1.next(); !r.done; r = await it1.next()) events.push(r.value);
    const hist = await b.client.getHistory({ sessionId: sid });
    expect(hist.messages.map((m) => m.content)).toEqual(["hello from A's client", "done on A"]);
  });
});
