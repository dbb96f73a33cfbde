// Child of bench/store-turn.mjs: the store calls of one-tool-call turns through the Engine's
// SQLite (or, given a URL, PostgreSQL) adapter of the tree at argv[2], as the Engine makes them
// (the claim that commits the user message, audit entries committed before
// the tool's effect, the memory read for the system prompt, the cached context, the turn's commit
// with 2 messages, 1 tool call, 6 events and 1 audit entry, a keyed audit chain, sync after the
// commit). Prints {mainUs, processUs, wallUs} per turn and the turns' p99 and longest wall time (ms): the CPU of this thread (where the Engine
// runs its store) and of the whole process (libuv's fsyncs included), from /proc.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";

const [root, turnsArg, sessionsArg, pgUrl] = process.argv.slice(2);
const TURNS = Number(turnsArg),
  SESSIONS = Number(sessionsArg);
const dir = mkdtempSync(join(tmpdir(), "palisade-bench-store-turn-"));
mkdirSync(join(dir, "data"));
// argv[5]: a postgres:// URL (password in PGPASSWORD): the Engine's PostgreSQL adapter instead.
const store = pgUrl
  ? await (
      await import(join(root, "packages/engine/dist/adapters/postgres-store.js"))
    ).openPostgresStore(
      { url: pgUrl, pool: 10, leaseMs: 15_000, engineId: "bench" },
      () => {},
      join(dir, "config", "audit.key"),
    )
  : await (
      await import(join(root, "packages/engine/dist/adapters/sqlite-store.js"))
    ).openSqliteStore(join(dir, "data"), () => {}, join(dir, "config", "audit.key"));
await store.startLeases?.("unix:/bench");
const threadMs = () => {
  const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
};
const zero = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
const sessions = [];
for (let s = 0; s < SESSIONS; s++) {
  const now = Date.now();
  const session = {
    id: `ses_${randomUUID()}`,
    title: "",
    mode: "normal",
    workspace: "/w",
    model: "m",
    modelChosen: false,
    createdAt: now,
    updatedAt: now,
    messageCount: 0,
    usage: { ...zero },
  };
  await store.createSession(session);
  sessions.push(session);
}
let seq = 0;
let calls = 0;
const pad = "x".repeat(200);
const event = (session, messageId, type, extra) => ({
  sessionId: session.id,
  messageId,
  eventType: type,
  timestamp: Date.now(),
  seq: ++seq,
  type,
  payloadJson: JSON.stringify({
    sessionId: session.id,
    messageId,
    eventType: `PIPELINE_EVENT_TYPE_${type}`,
    timestampUnixMs: String(Date.now()),
    seq: String(seq),
    ...extra,
  }),
});
const tool = "files__read_file";
const verdict = {
  decision: "ALLOW",
  tier: 0,
  confidence: 1,
  reason: "allowed by policy rule read-workspace",
  ruleIds: ["read-workspace"],
  evaluationUs: 51,
};

async function turn(session) {
  const assistantId = `msg_${randomUUID()}`;
  const userId = `msg_${randomUUID()}`;
  const callId = `call_${++calls}`;
  // Since the user message is committed when its turn starts, a turn claims its session first.
  await store.claimSession?.(session.id, { userMessageId: userId, content: "read x.txt", createdAt: Date.now() });
  await store.contextMessages(session.id);
  await store.memory(session.id);
  const ts = Date.now();
  await store.appendAudit(
    [
      {
        kind: "proposal",
        sessionId: session.id,
        callId,
        actor: "agent",
        payload: { argumentsJson: '{"path":"x.txt"}', messageId: assistantId, toolName: tool },
        ts,
      },
      { kind: "verdict", sessionId: session.id, callId, actor: "shield", payload: { ...verdict, toolName: tool }, ts },
    ],
    { sync: false },
  );
  await store.commitTurn({
    session,
    status: "completed",
    user: { id: userId, content: "read x.txt", createdAt: ts },
    assistant: {
      id: assistantId,
      content: "done",
      createdAt: Date.now(),
      usage: { ...zero, inputTokens: 644, outputTokens: 10 },
    },
    toolCalls: [
      {
        callId,
        toolName: tool,
        argumentsJson: '{"path":"x.txt"}',
        verdict,
        approval: "",
        result: '{"path":"x.txt","size_bytes":2,"content":"x"}',
        isError: false,
        durationMs: 3,
        artifacts: [],
        startedAt: ts,
      },
    ],
    events: [
      event(session, assistantId, "MESSAGE_ACCEPTED", { pad, pad2: pad }),
      event(session, assistantId, "ACTION_PROPOSED", {}),
      event(session, assistantId, "SHIELD_VERDICT", { pad }),
      event(session, assistantId, "ACTION_STARTED", {}),
      event(session, assistantId, "ACTION_COMPLETED", { pad }),
      event(session, assistantId, "RESPONSE_COMPLETE", { pad, pad2: pad, pad3: pad }),
    ],
    audit: [
      {
        kind: "execution",
        sessionId: session.id,
        callId,
        actor: "engine",
        payload: { artifacts: [], durationMs: 3, ok: true, resultSha256: "0".repeat(64), toolName: tool },
        ts,
      },
    ],
  });
  await store.finishTurn?.(session.id);
}

for (const s of sessions) for (let i = 0; i < 20; i++) await turn(s); // warm-up
const cpu0 = process.cpuUsage();
const main0 = threadMs();
const wall0 = performance.now();
const walls = [];
for (const s of sessions) {
  for (let i = 0; i < TURNS / SESSIONS; i++) {
    const t = performance.now();
    await turn(s);
    walls.push(performance.now() - t);
  }
}
const cpu = process.cpuUsage(cpu0);
const mainMs = threadMs() - main0;
const wallMs = performance.now() - wall0;
await store.close();
rmSync(dir, { recursive: true, force: true });
walls.sort((a, b) => a - b);
const p99Ms = walls[Math.floor(walls.length * 0.99)];
console.log(
  JSON.stringify({
    mainUs: (mainMs * 1000) / TURNS,
    processUs: (cpu.user + cpu.system) / TURNS,
    wallUs: (wallMs * 1000) / TURNS,
    p99Ms,
    maxMs: walls.at(-1),
  }),
);
