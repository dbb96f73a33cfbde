// The search filters mean the same in every EngineStore: the in-memory one the tests use, SQLite
// and PostgreSQL (a private cluster, when its binaries are installed). One history, the same
// questions, the same hits.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { postgresUnavailable, startPostgres } from "../../store/test/postgres-cluster.js";
import type { PgCluster } from "../../store/test/postgres-cluster.js";
import { openSqliteStore } from "../src/adapters/sqlite-store.js";
import { openPostgresStore } from "../src/adapters/postgres-store.js";
import { MemoryStore } from "../src/testing.js";
import type { Decision, EngineStore, SearchQuery, ToolCallRecordRow } from "../src/ports.js";
import { completedTurn, sessionRecord } from "./helpers/records.js";

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()?.();
});

let cluster: PgCluster | undefined;
const backends: Record<string, () => Promise<EngineStore>> = {
  memory: async () => new MemoryStore(),
  SQLite: async () => {
    const dir = mkdtempSync(join(tmpdir(), "pal-store-search-"));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const store = await openSqliteStore(dir);
    cleanup.push(() => store.close());
    return store;
  },
  PostgreSQL: async () => {
    if (!cluster) throw new Error("no PostgreSQL cluster");
    const store = await openPostgresStore(
      { url: cluster.url(await cluster.createDatabase()), pool: 2, leaseMs: 60_000, engineId: "store-search" },
      () => undefined,
      undefined,
      { env: { PGPASSWORD: cluster.admin.password } },
    );
    cleanup.push(() => store.close());
    return store;
  },
};

const call = (callId: string, toolName: string, decision: Decision, startedAt: number): ToolCallRecordRow => ({
  callId,
  toolName,
  argumentsJson: JSON.stringify({ path: "report.txt" }),
  verdict: { decision, tier: 0, confidence: 1, reason: "rule", ruleIds: [], evaluationUs: 1 },
  approval: decision === "escalate" ? "allow_once" : "",
  result: "report written",
  isError: false,
  durationMs: 1,
  artifacts: [],
  startedAt,
});

/** One turn: the user asks about the report, the assistant reads it (allowed) and writes it (asked). */
async function history(store: EngineStore): Promise<void> {
  const session = sessionRecord("s1");
  await store.createSession(session);
  const calls = [call("c1", "files__read_file", "allow", 11), call("c2", "files__write_file", "escalate", 12)];
  await store.commitTurn(
    completedTurn(session, { user: "update the report please", assistant: "the report is updated" }, calls, 10),
  );
}

const ask = (q: Partial<SearchQuery>): SearchQuery => ({ query: "report", limit: 20, offset: 0, ...q });

async function found(store: EngineStore, q: Partial<SearchQuery>): Promise<string[]> {
  const { hits, total } = await store.search(ask(q));
  expect(total).toBe(hits.length);
  return hits.map((h) => `${h.role}:${h.callId || h.messageId}`).sort();
}

describe.each([
  ["memory", false],
  ["SQLite", false],
  ["PostgreSQL", postgresUnavailable() !== undefined],
] as const)("search filters (%s store)", (name, skip) => {
  if (name === "PostgreSQL" && !skip) {
    beforeAll(async () => {
      cluster = await startPostgres();
    }, 60_000);
    afterAll(async () => {
      await cluster?.stop();
    });
  }
  const open = backends[name]!;

  it.skipIf(skip)("a Shield decision keeps only the tool calls with that verdict", async () => {
    const store = await open();
    await history(store);
    expect(await found(store, { decision: "escalate" })).toEqual(["tool:c2"]);
    expect(await found(store, { decision: "allow" })).toEqual(["tool:c1"]);
    expect(await found(store, { decision: "block" })).toEqual([]);
  });

  it.skipIf(skip)("a tool name, a role and a time window filter as well; no filter finds all", async () => {
    const store = await open();
    await history(store);
    expect(await found(store, {})).toEqual(["assistant:a1", "tool:c1", "tool:c2", "user:u1"]);
    expect(await found(store, { toolName: "files__write_file" })).toEqual(["tool:c2"]);
    expect(await found(store, { role: "tool" })).toEqual(["tool:c1", "tool:c2"]);
    expect(await found(store, { role: "user" })).toEqual(["user:u1"]);
    expect(await found(store, { fromMs: 12, toMs: 20 })).toEqual(["tool:c2"]);
    expect(await found(store, { sessionId: "other" })).toEqual([]);
  });
});
