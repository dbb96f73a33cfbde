import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { CapabilityHost } from "@palisade/capabilities";
import { owner, startHost, tempDir, tool, writeManifest } from "./helpers.js";

// Real child processes (command mode). The fixture imports the SDK's compiled dist: `make build` first.
const fixture = fileURLToPath(new URL("./fixtures/server.mjs", import.meta.url));
const hosts: CapabilityHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.stop()));
});

async function run(mode: string, extra: Record<string, unknown> = {}, hostOptions: Record<string, unknown> = {}) {
  const dir = tempDir();
  const manifest = writeManifest(dir, { id: "proc", tools: [tool("echo"), tool("env")] });
  const env = { MODE: mode, MARKER: join(dir, "marker"), ...(extra.env as Record<string, string> | undefined) };
  // Generous startup timeout: node + the SDK can take seconds to start on a loaded machine.
  const started = await startHost(
    [{ id: "proc", manifest, command: [process.execPath, fixture], protocol: "palisade", ...extra, env }],
    { startupTimeoutMs: 15_000, ...hostOptions },
  );
  hosts.push(started.host);
  return { ...started, logFile: join(started.dataDir, "logs", "capabilities", "proc.log"), marker: env.MARKER };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("command mode", () => {
  it("protocol palisade: a unix socket in a 0700 runtime dir, a scrubbed environment without PORT or secret; stop removes the dir", async () => {
    process.env.PALISADE_TEST_SECRET = "should-not-leak";
    try {
      const { host, logFile } = await run("ok", {
        env: { MODE: "ok", PORT: "1", PALISADE_CAPABILITY_SOCKET: "/tmp/elsewhere.sock" },
      });
      const status = host.status()[0];
      expect(status).toMatchObject({ state: "ready", launchMode: "command", toolCount: 2, warnings: [] });
      expect(status?.channel).toContain("unix socket in the Engine's 0700 runtime directory, per-launch secret");
      const socket = (status?.address ?? "").replace(/^unix:/, "");
      expect(socket).toMatch(/palisade-caps-\d+-[^/]+\/proc\/cap\.sock$/);
      const runDir = join(socket, "..", "..");
      expect(statSync(runDir).mode & 0o777).toBe(0o700);
      expect(statSync(join(socket, "..")).mode & 0o777).toBe(0o700);
      expect(statSync(socket).mode & 0o777).toBe(0o600);
      expect((await host.invoke("proc__echo", { text: "hi" }, owner)).result).toEqual({ echo: "hi" });
      const env = (await host.invoke("proc__env", {}, owner)).result as { names: string[]; pid: number };
      expect(env.names).toContain("PALISADE_CAPABILITY_SOCKET");
      expect(env.names).not.toContain("PORT");
      expect(env.names).toContain("MODE");
      expect(env.names).not.toContain("PALISADE_TEST_SECRET");
      // The secret came on stdin: nothing in the environment holds it.
      const environ = readFileSync(`/proc/${env.pid}/environ`, "utf8").split("\0");
      expect(environ).toContain(`PALISADE_CAPABILITY_SOCKET=${socket}`);
      expect(
        environ.filter((e) => e.length >= 40 && !e.startsWith("PATH=") && !e.startsWith("PALISADE_CAPABILITY_SOCKET=")),
      ).toEqual([]);
      // The log is written through a stream: give it a moment on a busy machine.
      await waitUntil(() => readFileSync(logFile, "utf8").includes("fixture starting mode=ok"));
      await host.stop();
      expect(alive(env.pid)).toBe(false);
      expect(existsSync(runDir)).toBe(false);
    } finally {
      delete process.env.PALISADE_TEST_SECRET;
    }
  });

  it("the runtime dir goes under runtimeBase; dirs a killed Engine left (dead pid) are removed, live ones kept", async () => {
    const base = tempDir("palisade-runbase-");
    const stale = join(base, `palisade-caps-${2 ** 22 + 12345}-AbCdEf`);
    const live = join(base, `palisade-caps-${process.ppid}-GhIjKl`);
    mkdirSync(join(stale, "files"), { recursive: true });
    mkdirSync(live);
    const { host } = await run("ok", {}, { runtimeBase: base });
    expect(host.status()[0]?.address).toMatch(
      new RegExp(`^unix:${base}/palisade-caps-${process.pid}-[^/]+/proc/cap\\.sock$`),
    );
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(live)).toBe(true);
  });

  it("protocol selu (the default): PORT on loopback under the guard, flagged unauthenticated in status and log", async () => {
    const logs: string[] = [];
    const { host } = await run("ok", { protocol: undefined }, { log: (l: string) => logs.push(l) });
    const status = host.status()[0];
    expect(status).toMatchObject({ state: "ready", launchMode: "command" });
    expect(status?.address).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(status?.channel).toBe("loopback TCP (Selu PORT convention), unauthenticated");
    expect(status?.warnings[0]).toContain("any local process (any user) can call its tools directly");
    expect(logs.join("\n")).toContain(
      "WARNING: capability proc is a Selu-convention server on loopback TCP without authentication",
    );
    const env = (await host.invoke("proc__env", {}, owner)).result as { names: string[]; pid: number; ppid: number };
    expect(env.names).toContain("PORT");
    expect(env.names).not.toContain("PALISADE_CAPABILITY_SOCKET");
    // Its parent is the guard holding the Engine's pipe, not the Engine.
    expect(env.ppid).not.toBe(process.pid);
    expect(readFileSync(`/proc/${env.ppid}/cmdline`, "utf8")).toContain("launch/guard.js");
    await host.stop();
    expect(alive(env.pid)).toBe(false);
    expect(alive(env.ppid)).toBe(false);
  });

  it("credential values are redacted from the capability's log", async () => {
    const dir = tempDir();
    const manifest = writeManifest(dir, {
      id: "proc",
      tools: [tool("log_config")],
      credentials: [{ name: "SECRET_TOKEN", scope: "system" }],
    });
    const { host, dataDir } = await startHost(
      [
        {
          id: "proc",
          manifest,
          command: [process.execPath, fixture],
          env: { MODE: "ok" },
          credentials: { SECRET_TOKEN: "tok-abcdef-123" },
        },
      ],
      { startupTimeoutMs: 15_000 },
    );
    hosts.push(host);
    expect((await host.invoke("proc__log_config", {}, owner)).ok).toBe(true);
    const logFile = join(dataDir, "logs", "capabilities", "proc.log");
    await waitUntil(() => readFileSync(logFile, "utf8").includes("config: "));
    const log = readFileSync(logFile, "utf8");
    expect(log).toContain('config: {"SECRET_TOKEN":"[redacted]"}');
    expect(log).not.toContain("tok-abcdef-123");
  });

  it("protocol selu: a port another process took first is never called; the capability fails with the holder's pid", async () => {
    const { host, marker } = await run("squat", { protocol: undefined }, { startupTimeoutMs: 5000 });
    const status = host.status()[0];
    const holder = Number(/is held by process (\d+)/.exec(status?.message ?? "")?.[1]);
    try {
      expect(status?.state).toBe("failed");
      expect(status?.message).toContain("not by the capability the Engine launched; refusing to send it anything");
      expect(holder).toBeGreaterThan(0);
      expect(readFileSync(`/proc/${holder}/cmdline`, "utf8")).toContain("createServer");
      // Nothing ever connected to the squatter.
      expect(existsSync(marker)).toBe(false);
    } finally {
      if (holder > 0) process.kill(holder, "SIGKILL");
    }
  });

  it("a never-ready process is reported not_ready with its message", async () => {
    // Node may take a while to start on a busy machine: the re-check keeps the message current.
    const { host } = await run("never-ready", {}, { startupTimeoutMs: 1000, recheckIntervalMs: 100 });
    expect(host.status()[0]).toMatchObject({ state: "not_ready" });
    await waitUntil(() => host.status()[0]?.message.includes("warming up") === true);
    expect(host.status()[0]?.message).toContain("capability proc is not ready: warming up the index");
    expect((await host.invoke("proc__echo", {}, owner)).content).toContain("is not ready: warming up the index");
  });

  it("a crashing process is restarted within its budget, then failed with its last log lines", async () => {
    const { host } = await run("crash", { maxRestarts: 2 });
    expect(host.status()[0]?.state).toBe("failed");
    const s = host.status()[0];
    expect(s?.restarts).toBe(2);
    expect(s?.message).toContain("process exit code 3 after 2 restarts");
    expect(s?.message).toContain("fatal: could not open database /nonexistent/db");
    expect(s?.logTail).toContain("fatal: could not open database /nonexistent/db");
  });

  it("a process that crashes once comes back", async () => {
    const { host } = await run("crash-once");
    // start() resolves only once the restart has settled.
    expect(host.status()[0]?.state).toBe("ready");
    expect(host.status()[0]?.restarts).toBe(1);
    expect((await host.invoke("proc__echo", { text: "again" }, owner)).ok).toBe(true);
  });

  it("a process that dies after being ready is restarted and ready again", async () => {
    const { host } = await run("die-later", { env: { DIE_AFTER_MS: "1500" } });
    expect(host.status()[0]?.state).toBe("ready");
    await waitUntil(() => host.status()[0]?.restarts === 1 && host.status()[0]?.state === "ready");
    expect((await host.invoke("proc__echo", { text: "x" }, owner)).ok).toBe(true);
  });

  it("a hanging server (accepts, never answers) times out of the health gate", async () => {
    const { host } = await run("hang", {}, { startupTimeoutMs: 1200, healthCallTimeoutMs: 300 });
    expect(host.status()[0]).toMatchObject({ state: "not_ready" });
    expect(host.status()[0]?.message).toMatch(/Healthcheck failed: (DEADLINE_EXCEEDED|UNAVAILABLE)/);
  });

  it.each(["palisade", "selu"] as const)(
    "a command that does not exist fails with the reason (protocol %s)",
    async (protocol) => {
      const dir = tempDir();
      const manifest = writeManifest(dir, { id: "proc", tools: [tool("echo")] });
      const { host } = await startHost([
        { id: "proc", manifest, command: [join(dir, "no-such-binary")], protocol, maxRestarts: 0 },
      ]);
      hosts.push(host);
      await waitUntil(() => host.status()[0]?.state === "failed");
      expect(host.status()[0]?.message).toContain("could not start: spawn");
      expect(existsSync(dir)).toBe(true);
    },
  );
});

// The deadline bounds a wait for what never comes; a loaded machine is slow, not wrong.
async function waitUntil(cond: () => boolean, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 25));
  }
}
