// A tool call's stored verdict and approval are the same row whoever made the call: the main
// Agent's turn (the store's commitTurn) and a sub-agent's run (the run store's save) write one
// database, and the history, exports and audit views read both the same way. SQLite and
// PostgreSQL (a private cluster, when its binaries are installed).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PgStore, Store } from "@palisade/store";
import type { Approval, SubAgentRunRecord, ToolCallRecord, MessageRecord as StoredMessage } from "@palisade/store";
import { postgresUnavailable, startPostgres } from "../../store/test/postgres-cluster.js";
import type { PgCluster } from "../../store/test/postgres-cluster.js";
import { DATABASE_FILE, openSqliteStore } from "../src/adapters/sqlite-store.js";
import { openPostgresStore } from "../src/adapters/postgres-store.js";
import { SqliteRunStore } from "../src/subagents/store.js";
import type {
  EngineStore,
  RecordedApproval,
  StoredRun,
  SubAgentRunStore,
  ToolCallRecordRow,
  VerdictRecord,
} from "../src/ports.js";
import { completedTurn, sessionRecord } from "./helpers/records.js";

const session = sessionRecord("s1");

const verdict: VerdictRecord = {
  decision: "escalate",
  tier: 0,
  confidence: 1,
  reason: "writes",
  ruleIds: ["ask-writes"],
  evaluationUs: 5,
};

/** What the call pipeline leaves in a record's `approval` (calls/run.ts), one call each. */
const APPROVALS: RecordedApproval[] = [
  "allow_once",
  "allow_session",
  "deny",
  "session",
  "timeout",
  "cancelled",
  "unattended",
];

const calls = (prefix: string): ToolCallRecordRow[] =>
  APPROVALS.map((approval, i) => ({
    callId: `${prefix}-${approval}`,
    toolName: "files__write_file",
    argumentsJson: '{"path":"a.txt"}',
    verdict,
    approval,
    result: "ok",
    isError: false,
    durationMs: 10,
    artifacts: [],
    startedAt: 100 + i,
  }));

/** A database of one backend: the Engine's store and run store over it, and a reader of its rows. */
interface Backend {
  open(): Promise<{ store: EngineStore; runs: SubAgentRunStore }>;
  read(): Promise<Reader>;
}

interface Reader {
  getToolCall(messageId: string, callId: string): ToolCallRecord | Promise<ToolCallRecord>;
  listSubAgentRuns(sessionId: string): SubAgentRunRecord[] | Promise<SubAgentRunRecord[]>;
  getSubAgentTranscript(runId: string): StoredMessage[] | Promise<StoredMessage[]>;
  close(): unknown;
}

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()?.();
});

const sqlite: Backend = (() => {
  let dir = "";
  return {
    async open() {
      dir = mkdtempSync(join(tmpdir(), "pal-store-rows-"));
      cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
      const store = await openSqliteStore(dir);
      const runs = new SqliteRunStore(join(dir, DATABASE_FILE));
      cleanup.push(
        () => store.close(),
        () => runs.close(),
      );
      return { store, runs };
    },
    // as another process reads the file
    read: async () => Store.open(join(dir, DATABASE_FILE), { readonly: true }),
  };
})();

let cluster: PgCluster | undefined;
const postgres: Backend = (() => {
  let db = "";
  const password = (): string => cluster?.admin.password ?? "";
  return {
    async open() {
      if (!cluster) throw new Error("no PostgreSQL cluster");
      db = await cluster.createDatabase();
      const store = await openPostgresStore(
        { url: cluster.url(db), pool: 2, leaseMs: 60_000, engineId: "store-rows" },
        () => undefined,
        undefined,
        { env: { PGPASSWORD: password() } },
      );
      cleanup.push(() => store.close());
      const runs = store.subAgentRuns?.();
      if (!runs) throw new Error("the PostgreSQL store keeps no sub-agent runs");
      return { store, runs };
    },
    async read() {
      if (!cluster) throw new Error("no PostgreSQL cluster");
      return PgStore.open({ url: cluster.url(db), password: password() });
    },
  };
})();

async function writeBoth(backend: Backend): Promise<void> {
  const { store, runs } = await backend.open();
  await store.createSession(session);
  await store.commitTurn(completedTurn(session, { user: "write a.txt", assistant: "done" }, calls("main"), 2));
  const run: StoredRun = {
    id: "run-1",
    sessionId: "s1",
    parentMessageId: "a1",
    parentUserMessageId: "u1",
    name: "ada",
    task: "write a.txt",
    state: "completed",
    result: "done",
    error: "",
    llmCalls: 1,
    toolCalls: APPROVALS.length,
    startedAt: 50,
    endedAt: 200,
    transcript: [
      { role: "user", content: "write a.txt", createdAt: 50 },
      { role: "assistant", content: "done", createdAt: 199 },
    ],
    calls: calls("sub"),
  };
  await runs.save(run);
}

/** The stored rows of the main agent's call and the sub-agent's call `callId`. */
async function storedCalls(backend: Backend, callId: string): Promise<{ main: ToolCallRecord; sub: ToolCallRecord }> {
  const reader = await backend.read();
  try {
    const [run] = await reader.listSubAgentRuns("s1");
    const owner = (await reader.getSubAgentTranscript(run?.id ?? "")).at(-1)?.id ?? "";
    return {
      main: await reader.getToolCall("a1", `main-${callId}`),
      sub: await reader.getToolCall(owner, `sub-${callId}`),
    };
  } finally {
    await reader.close();
  }
}

const expectedApproval: Record<string, Approval> = {
  allow_once: { decision: "allow_once", by: "user", at: 110 },
  allow_session: { decision: "allow_session", by: "user", at: 111 },
  deny: { decision: "deny", by: "user", at: 112 },
  session: { decision: "allow_session", by: "session", at: 113 },
  timeout: { decision: "timeout", by: "timeout", at: 114 },
  cancelled: { decision: "deny", by: "cancelled", at: 115 },
  unattended: { decision: "deny", by: "unattended", at: 116 },
};

describe.each([
  ["SQLite", sqlite, false],
  ["PostgreSQL", postgres, postgresUnavailable() !== undefined],
] as const)("stored tool-call rows (%s)", (name, backend, skip) => {
  if (name === "PostgreSQL" && !skip) {
    beforeAll(async () => {
      cluster = await startPostgres();
    }, 60_000);
    afterAll(async () => {
      await cluster?.stop();
    });
  }

  it.skipIf(skip)("record who settled an approval: the user, the session grant, the deadline", async () => {
    await writeBoth(backend);
    const main: Record<string, Approval | null> = {};
    const sub: Record<string, Approval | null> = {};
    for (const a of APPROVALS) {
      const rows = await storedCalls(backend, a);
      main[a] = rows.main.approval;
      sub[a] = rows.sub.approval;
    }
    expect(main).toEqual(expectedApproval);
    // a sub-agent's calls: the same rows (it was "session" and "user" for the grant and the deadline)
    expect(sub).toEqual(expectedApproval);
  });

  it.skipIf(skip)("store the Shield's verdict the same for the main agent and a sub-agent", async () => {
    await writeBoth(backend);
    const { main, sub } = await storedCalls(backend, "timeout");
    expect(main.verdict).toEqual(verdict);
    expect(sub.verdict).toEqual(verdict);
  });
});
