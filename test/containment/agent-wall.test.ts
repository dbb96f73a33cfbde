// From code running with the Agent's (and a sub-agent's) exact command line, environment and
// namespaces (the Engine's own launchers), the user's unix-socket services, other processes and
// node:sqlite are out of reach. Each test judges by the effect outside: the marker file, the
// bus's answer, the bystander alive, the database's rows.
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { built, collect, final, startE2E } from "../engine/helpers.js";
import type { E2E } from "../engine/helpers.js";
import { runLikeAgent } from "./agent-harness.js";
import { dbusMissing, postgresMissing, startPostgres, startSessionBus } from "./agent-services.js";
import type { Postgres, SessionBus } from "./agent-services.js";

/** The Agent and a sub-agent: each launched as the Engine launches it. */
const WHO = ["agent", "subagent"] as const;
let runtimeDir = "";
beforeAll(() => {
  runtimeDir = mkdtempSync(join(tmpdir(), "pal-agent-wall-"));
});
afterAll(() => rmSync(runtimeDir, { recursive: true, force: true }));

describe.skipIf(postgresMissing())("a private PostgreSQL cluster of the user (unix socket, trust auth)", () => {
  let pg: Postgres;
  beforeAll(() => {
    pg = startPostgres();
  }, 90_000);
  afterAll(() => pg?.stop());

  it.each(WHO)("%s: is not reachable: COPY … TO PROGRAM never runs, the marker never appears", async (who) => {
    const marker = join(pg.markerDir, "ran");
    const run = await runLikeAgent(
      "pg-copy",
      { socket: pg.socket, user: "postgres", query: `COPY (SELECT 1) TO PROGRAM 'touch ${marker}'` },
      { runtimeDir, who },
    );
    expect(run.result, run.stderr).toBeDefined();
    expect(existsSync(marker)).toBe(false);
    expect(run.result?.outcome).toBe("connect-failed");
    expect(run.result?.code).toBe("ENOENT");
  });
});

describe.skipIf(dbusMissing())("a D-Bus session bus of the user", () => {
  let bus: SessionBus;
  beforeAll(() => {
    bus = startSessionBus();
  });
  afterAll(() => bus?.stop());

  it.each(WHO)("%s: is not reachable: AUTH EXTERNAL is never accepted", async (who) => {
    const run = await runLikeAgent("dbus-auth", { socket: bus.socket }, { runtimeDir, who });
    expect(run.result, run.stderr).toBeDefined();
    expect(run.result?.outcome).not.toBe("accepted");
    expect(run.result).toEqual({ outcome: "connect-failed", code: "ENOENT" });
  });
});

describe("other processes", () => {
  let bystander: ChildProcess;
  beforeAll(() => {
    bystander = spawn("sleep", ["300"], { stdio: "ignore" });
  });
  afterAll(() => bystander.kill("SIGKILL"));

  it.each(WHO)(
    "%s: a bystander of the user survives process.kill from it, the Engine is not signalable, and it sees only its own pids",
    async (who) => {
      const pidMax = Number(readFileSync("/proc/sys/kernel/pid_max", "utf8").trim());
      const run = await runLikeAgent(
        "signals",
        { bystander: bystander.pid, engine: process.pid, pidMax: Math.min(pidMax, 1 << 22) },
        { runtimeDir, timeoutMs: 60_000, who },
      );
      const result = run.result as
        { self: number; visible: number[]; proc: number[] | string; engine: string; bystander: string } | undefined;
      expect(result, run.stderr).toBeDefined();
      // Still there, by signal 0 from outside.
      expect(() => process.kill(bystander.pid ?? -1, 0)).not.toThrow();
      expect(bystander.exitCode).toBeNull();
      expect(bystander.signalCode).toBeNull();
      expect(result?.bystander).toBe("ESRCH");
      expect(result?.engine).toBe("ESRCH");
      // Its own pid namespace: the sandbox's init (1), itself and its own threads (numbered right
      // after it: kill() accepts a thread id). Outside, the machine runs hundreds of pids.
      const self = result?.self ?? -1;
      expect(result?.visible[0]).toBe(1);
      expect(result?.visible.slice(1).every((p) => p >= self && p < self + 64)).toBe(true);
      expect(result?.visible).toContain(self);
    },
    90_000,
  );
});

describe.skipIf(built())("node:sqlite", () => {
  let h: E2E;
  let home = "";
  const rows = (db: string): string[] => {
    const conn = new DatabaseSync(db, { readOnly: true });
    const out = conn
      .prepare("SELECT id, content FROM messages ORDER BY id")
      .all()
      .map((r) => `${String(r.id)}:${String(r.content)}`);
    conn.close();
    return out;
  };
  beforeAll(async () => {
    h = await startE2E();
    h.model.enqueue({ content: "the answer of another session" });
    const evs = await collect(h.client.sendMessage({ content: "a message of another session" }));
    expect(final(evs).responseComplete?.content).toBe("the answer of another session");
    home = mkdtempSync(join(tmpdir(), "pal-agent-home-"));
    mkdirSync(join(home, ".ssh"));
    const cookies = new DatabaseSync(join(home, "Cookies"));
    cookies.exec("CREATE TABLE cookies (value TEXT); INSERT INTO cookies VALUES ('session-cookie-9c1e77d2')");
    cookies.close();
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it.each(WHO)(
    "%s: cannot read or edit another session's messages in palisade.db, create ~/.ssh/authorized_keys, or read an SQLite file in the home",
    async (who) => {
      const db = join(h.dataDir, "palisade.db");
      const before = rows(db);
      expect(before.some((r) => r.includes("a message of another session"))).toBe(true);
      const run = await runLikeAgent("sqlite", { db, home, cookies: join(home, "Cookies") }, { runtimeDir, who });
      expect(run.result, run.stderr).toBeDefined();
      expect(rows(db)).toEqual(before);
      expect(readdirSync(join(home, ".ssh"))).toEqual([]);
      expect(run.stdout).not.toContain("session-cookie-9c1e77d2");
      expect(run.stdout).not.toContain("a message of another session");
      // The module itself is gone under the Agent's flags.
      expect(run.result).toEqual({ module: "ERR_UNKNOWN_BUILTIN_MODULE" });
      const listed = await h.client.listSessions({});
      expect(listed.sessions.map((x) => x.title).join("\n")).not.toContain("INJECTED");
    },
  );
});
