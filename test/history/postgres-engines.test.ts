// Two Engines (real processes) on one PostgreSQL database (a private cluster): a history made
// with SQLite is moved in with `palisade store copy`; a chat on each Engine; kill -9 of one in the
// middle of a turn; the other refuses its session (naming it) while the lease lasts and serves it
// after, with the turn in flight recorded as interrupted; `palisade audit verify` passes; nothing
// of an off-the-record session is in the database; the Agent never sees the database password.
import { spawn, spawnSync } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code, RpcError, createClient } from "@palisade/protocol";
import type { Client } from "@palisade/protocol";
import { ClientService, PipelineEventType as T } from "@palisade/protocol/pipeline";
import { SessionMode } from "@palisade/protocol/types";
import type { PipelineEvent } from "@palisade/protocol/pipeline";
import { readToken } from "@palisade/config";
import { isAlive, messageText, startScriptedServer } from "@palisade/testing";
import type { ScriptedServer } from "@palisade/testing";
import { postgresUnavailable, startPostgres } from "../../packages/store/test/postgres-cluster.js";
import type { PgCluster } from "../../packages/store/test/postgres-cluster.js";
import { built, root } from "../engine/helpers.js";

const main = join(root, "packages/engine/dist/main.js");
const cli = join(root, "bin/palisade");
const skip =
  postgresUnavailable() ??
  built() ??
  (existsSync(main) ? undefined : "run make build first (packages/engine/dist/main.js)");
const LEASE_S = 2;
const OTR_MARK = "zebra-otr-7f3a";

let dir = "";
let model: ScriptedServer;
let cluster: PgCluster;
let database = "";
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), "pal-pg-e2e-"));
  cluster = await startPostgres();
  database = await cluster.createDatabase();
  model = await startScriptedServer({
    rules: [
      // A turn that never ends: the model sends one chunk, then nothing.
      {
        match: { role: "user", content: "please hang" },
        reply: { content: "thinking about it for a very long time", stallAfterChunks: 3 },
      },
      { match: { role: "user" }, reply: (r) => ({ content: `ack ${messageText(r.messages.at(-1))}` }) },
    ],
  });
  mkdirSync(join(dir, "cfg"));
  const base = [
    "model:",
    `  base_url: ${model.baseURL}`,
    "  api_key: sk-test-not-secret",
    "  name: scripted-model",
    "capabilities:",
    ...["files", "shell", "http", "documents", "mail"].map((id) => `  - { id: ${id}, enabled: false }`),
    `workspace: ${dir}`,
    "history: { auto_title: false }",
    "sandbox: { required: false }",
  ];
  // One config directory: the Engines share its audit.key, as a deployment shares one key file.
  // they hold model.api_key: readable by this user only
  writeFileSync(join(dir, "cfg", "sqlite.yaml"), base.join("\n"), { mode: 0o600 });
  for (const id of ["a", "b"]) {
    writeFileSync(
      join(dir, "cfg", `${id}.yaml`),
      [
        ...base,
        "store:",
        `  url: ${cluster.url(database)}`,
        `  lease_s: ${String(LEASE_S)}`,
        `  engine_id: engine-${id}`,
      ].join("\n"),
      { mode: 0o600 },
    );
  }
});

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  await model?.close();
  await cluster?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Engine {
  child: ChildProcess;
  client: Client<typeof ClientService>;
  stderr: string[];
}

/** `password: "env"` gives the Engine PGPASSWORD; "stored": none, the data directory's credential store has it. */
async function startEngineProcess(
  config: string,
  dataDir: string,
  password: "env" | "stored" = "env",
): Promise<Engine> {
  const env: NodeJS.ProcessEnv = { ...process.env, PGPASSWORD: cluster.admin.password };
  if (password === "stored") delete env.PGPASSWORD;
  const child = spawn(
    process.execPath,
    [main, "--config", join(dir, "cfg", config), "--data-dir", join(dir, dataDir)],
    {
      stdio: ["ignore", "pipe", "pipe"],
      env,
    },
  );
  children.push(child);
  const stderr: string[] = [];
  child.stderr?.on("data", (d: Buffer) => stderr.push(d.toString()));
  const line = await new Promise<string>((resolve, reject) => {
    if (!child.stdout) return reject(new Error("no stdout"));
    createInterface({ input: child.stdout }).once("line", resolve);
    child.once("exit", (code, signal) =>
      reject(
        new Error(
          `the Engine ${signal ? `was killed by ${signal}` : `exited with code ${String(code)}`} before it was ready:\n${stderr.join("")}`,
        ),
      ),
    );
  });
  const { address } = JSON.parse(line) as { address: string };
  const bearerToken = await readToken(join(dir, dataDir));
  return { child, client: createClient(ClientService, address, bearerToken ? { bearerToken } : {}), stderr };
}

async function turn(
  e: Engine,
  content: string,
  sessionId = "",
  mode?: SessionMode,
): Promise<{ sessionId: string; events: PipelineEvent[] }> {
  const events: PipelineEvent[] = [];
  for await (const ev of e.client.sendMessage({ content, sessionId, ...(mode ? { mode } : {}) }, { timeoutMs: 20_000 }))
    events.push(ev);
  return { sessionId: events[0]?.sessionId ?? sessionId, events };
}

/** Every descendant of a process. */
function descendants(pid: number): number[] {
  const kids = childPids(pid);
  return [...kids, ...kids.flatMap(descendants)];
}

/** The files a process sees (its mount namespace, through /proc/PID/root) that contain `needle`. */
function visibleFilesContaining(pid: number, needle: string): string[] {
  const root = `/proc/${String(pid)}/root`;
  const found: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(join(root, d), { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory() && p !== "/proc" && p !== "/dev") walk(p);
      else if (e.isFile() && readFileSync(join(root, p)).includes(needle)) found.push(p);
    }
  };
  walk("/");
  return found;
}

function childPids(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function palisade(args: string[], input?: string): { status: number | null; stdout: string; stderr: string } {
  const env: NodeJS.ProcessEnv = { ...process.env, PGPASSWORD: cluster.admin.password };
  if (input !== undefined) delete env.PGPASSWORD;
  const r = spawnSync(cli, args, { encoding: "utf8", env, timeout: 60_000, ...(input !== undefined ? { input } : {}) });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

async function stopped(e: Engine): Promise<void> {
  await e.client.shutdown({ deadlineMs: 2000 }).catch(() => undefined);
  e.client.close();
  await new Promise<void>((r) =>
    e.child.exitCode !== null || e.child.signalCode !== null ? r() : e.child.once("exit", () => r()),
  );
}

describe.skipIf(skip)("two Engines on one PostgreSQL database", () => {
  it("copy in, a chat on each, kill -9 of one mid-turn: the other serves its sessions after the lease; history complete, audit verifies, nothing of OTR stored", async () => {
    // A history made on SQLite, moved into the (empty) PostgreSQL database.
    const old = await startEngineProcess("sqlite.yaml", "data-sqlite");
    const before = await turn(old, "from the sqlite days");
    await stopped(old);
    const copy = palisade([
      "--config",
      join(dir, "cfg", "a.yaml"),
      "store",
      "copy",
      "--from",
      `sqlite:${join(dir, "data-sqlite", "palisade.db")}`,
      "--to",
      cluster.url(database),
    ]);
    expect(copy.stderr + copy.stdout).toMatch(/^OK: .* copied to PostgreSQL .*sessions 1, messages 2/m);
    expect(copy.stdout).toMatch(/audit chain: \d+ entries verified on both sides.*\(keyed/);
    expect(copy.stdout).toMatch(
      /^ready to serve: VACUUM ANALYZE \(planner statistics, visibility map\) and CHECKPOINT \(the copy is on disk\) done$/m,
    );
    expect(copy.status).toBe(0);

    const a = await startEngineProcess("a.yaml", "data-a");
    // Engine B has no PGPASSWORD: the password is in its data directory's credential store.
    const stored = palisade(["--data-dir", join(dir, "data-b"), "store", "password", "set"], cluster.admin.password);
    expect(stored.stdout + stored.stderr).toMatch(/stored the PostgreSQL password in .*credentials\.json/);
    expect(readFileSync(join(dir, "cfg", "b.yaml"), "utf8")).not.toContain(cluster.admin.password);
    const b = await startEngineProcess("b.yaml", "data-b", "stored");
    expect((await b.client.getStatus({})).store).toMatch(
      new RegExp(`^PostgreSQL palisade_admin@socket .* \\(engine engine-b, lease ${String(LEASE_S)} s\\)$`),
    );
    // The Agents' environment never holds the database password.
    for (const e of [a, b]) {
      for (const pid of childPids(e.child.pid ?? 0))
        expect(readFileSync(`/proc/${String(pid)}/environ`, "utf8")).not.toContain(cluster.admin.password);
    }
    // A chat on each; each Engine lists every session, the copied one included.
    const sa = await turn(a, "hello from A");
    const sb = await turn(b, "hello from B");
    // B's Agent, in its own mount namespace, sees no file holding the password (the credential store included).
    const ownNs = readlinkSync("/proc/self/ns/mnt");
    const agents = descendants(b.child.pid ?? 0).filter((pid) => {
      try {
        return readlinkSync(`/proc/${String(pid)}/ns/mnt`) !== ownNs;
      } catch {
        return false;
      }
    });
    expect(agents.length).toBeGreaterThan(0);
    for (const pid of agents) {
      expect(readFileSync(`/proc/${String(pid)}/environ`, "utf8")).not.toContain(cluster.admin.password);
      expect(existsSync(`/proc/${String(pid)}/root${join(dir, "data-b", "credentials.json")}`)).toBe(false);
      expect(visibleFilesContaining(pid, cluster.admin.password)).toEqual([]);
    }
    expect(sa.events.at(-1)?.eventType).toBe(T.RESPONSE_COMPLETE);
    expect(sb.events.at(-1)?.eventType).toBe(T.RESPONSE_COMPLETE);
    for (const e of [a, b]) {
      expect((await e.client.listSessions({})).sessions.map((s) => s.id).sort()).toEqual(
        [before.sessionId, sa.sessionId, sb.sessionId].sort(),
      );
    }
    // Off the record on B: answered, never written.
    const otr = await turn(b, `keep this between us ${OTR_MARK}`, "", SessionMode.OTR);
    expect(otr.events.at(-1)?.eventType).toBe(T.RESPONSE_COMPLETE);

    // A turn in flight on A, then kill -9 of A (and its Agent).
    const hanging = a.client.sendMessage({ content: "please hang", sessionId: sa.sessionId }, { timeoutMs: 60_000 });
    const it1 = hanging[Symbol.asyncIterator]();
    for (let r = await it1.next(); !r.done && r.value.eventType !== T.LLM_TOKEN; r = await it1.next()) {
      /* until the model streams */
    }
    const agentPids = childPids(a.child.pid ?? 0);
    a.child.kill("SIGKILL");
    for (const pid of agentPids.filter(isAlive)) process.kill(pid, "SIGKILL");
    const killedAt = Date.now();
    await it1.next().catch(() => undefined);
    a.client.close();

    // While A's lease lasts, B answers with who serves the session.
    const refused = await turn(b, "continue on B", sa.sessionId).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(RpcError);
    expect((refused as RpcError).code).toBe(Code.FAILED_PRECONDITION);
    expect((refused as RpcError).message).toMatch(
      new RegExp(`session ${sa.sessionId} is served by Engine engine-a at unix:.*: continue it there`),
    );
    // After the lease, B takes the session over.
    await new Promise((r) => setTimeout(r, Math.max(0, killedAt + LEASE_S * 1000 + 500 - Date.now())));
    const continued = await turn(b, "continue on B", sa.sessionId);
    expect(continued.events.at(-1)?.eventType).toBe(T.RESPONSE_COMPLETE);
    const history = await b.client.getHistory({ sessionId: sa.sessionId, limit: 100 });
    expect(history.messages.map((m) => [m.role, m.content])).toEqual([
      ["user", "hello from A"],
      ["assistant", "ack hello from A"],
      ["user", "please hang"],
      ["user", "continue on B"],
      ["assistant", "ack continue on B"],
    ]);
    const rows = await cluster.sql(
      database,
      "SELECT type, payload FROM events WHERE session_id = $1 AND type = 'TURN_INTERRUPTED'",
      [sa.sessionId],
    );
    expect(rows.rows).toHaveLength(1);
    expect(JSON.parse(String(rows.rows[0]?.payload))).toMatchObject({ engineId: "engine-a", takenOverBy: "engine-b" });
    // B's own session and the copied one are complete too.
    expect((await b.client.getHistory({ sessionId: sb.sessionId })).messages.map((m) => m.content)).toEqual([
      "hello from B",
      "ack hello from B",
    ]);
    expect((await b.client.getHistory({ sessionId: before.sessionId })).messages.map((m) => m.content)).toEqual([
      "from the sqlite days",
      "ack from the sqlite days",
    ]);
    await stopped(b);

    // The audit chain of the whole deployment verifies with its key.
    const verify = palisade([
      "--config",
      join(dir, "cfg", "b.yaml"),
      "--data-dir",
      join(dir, "data-b"),
      "audit",
      "verify",
    ]);
    expect(verify.stdout).toMatch(/^OK: \d+ audit entr(y|ies) verified; chain head #\d+ .*PostgreSQL .*key /m);
    expect(verify.status).toBe(0);
    // Nothing of the off-the-record session anywhere in the database: every row of every table, as text.
    const tables = await cluster.sql(database, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'");
    for (const { tablename } of tables.rows as Array<{ tablename: string }>) {
      const hit = await cluster.sql(database, `SELECT COUNT(*)::int AS n FROM ${tablename} t WHERE t::text LIKE $1`, [
        `%${OTR_MARK}%`,
      ]);
      expect(hit.rows[0]?.n, tablename).toBe(0);
    }
    expect(
      (await cluster.sql(database, "SELECT COUNT(*)::int AS n FROM sessions WHERE id = $1", [otr.sessionId])).rows[0]
        ?.n,
    ).toBe(0);
  }, 120_000);
});
