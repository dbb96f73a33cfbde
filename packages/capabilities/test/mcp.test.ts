import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UserCredentialStore } from "@palisade/capabilities";
import { which } from "@palisade/sandbox";
import type { CapabilityHost, StdioSpawn } from "@palisade/capabilities";
import { owner, startHost, tempDir } from "./helpers.js";
import {
  alive,
  everythingConfig,
  filesystemConfig,
  recorded,
  recordedPids,
  recordingWrapper,
  serverScript,
  until,
} from "./mcp-helpers.js";

// Against the reference servers from npm, run unmodified over stdio.
describe("MCP stdio servers as capabilities", () => {
  let host: CapabilityHost;
  let dataDir: string;
  let record: string;
  let spawned: StdioSpawn | undefined;
  const work = tempDir("palisade-mcp-fs-");
  const TOKEN = "tok-4b1f0c9e7d";
  const statuses: string[] = [];

  beforeAll(async () => {
    mkdirSync(join(work, "notes"));
    writeFileSync(join(work, "notes", "todo.txt"), "buy milk\n");
    dataDir = tempDir("palisade-mcp-data-");
    record = join(dataDir, "everything.stdin");
    await new UserCredentialStore(join(dataDir, "credentials.json")).set("local", "everything", "test_token", TOKEN);
    ({ host } = await startHost(
      [
        everythingConfig("everything", {}, { PALISADE_TEST_TOKEN: "${secret:test_token}" }),
        filesystemConfig(work, "fs", true),
      ],
      {
        dataDir,
        startupTimeoutMs: 20_000,
        mcpWrap: recordingWrapper("everything", record, (s) => (spawned = s)),
        onStatus: (s) => statuses.push(`${s.id} ${s.state} ${s.message}`),
      },
    ));
  });
  afterAll(async () => {
    await host?.stop();
  });

  it("lists every tool as <id>__<tool>; annotations set the Shield default only for a trusted server", () => {
    const status = host.status();
    expect(status.map((s) => [s.id, s.state])).toEqual([
      ["everything", "ready"],
      ["fs", "ready"],
    ]);
    const byName = new Map(host.catalog().map((t) => [t.fullName, t]));
    // everything is not marked trusted: its readOnlyHint is recorded, not believed.
    expect(byName.get("everything__echo")?.policy).toBe("ask");
    expect(byName.get("everything__echo")?.annotations).toEqual({
      readOnly: true,
      destructive: false,
      idempotent: true,
      openWorld: false,
    });
    expect(byName.get("fs__list_directory")?.policy).toBe("allow");
    expect(byName.get("fs__write_file")?.policy).toBe("ask");
    expect(byName.get("fs__write_file")?.annotations?.destructive).toBe(true);
    expect(byName.get("everything__toggle-simulated-logging")?.policy).toBe("ask");
    expect(status[0]?.toolCount).toBeGreaterThanOrEqual(10);
    expect(host.mcpServer("everything")?.name).toBe("mcp-servers/everything");
    // The reference server does not know server/discover: 2025-11-25, shown per server.
    expect(status[0]?.protocol).toBe("MCP 2025-11-25 (initialize handshake)");
    expect(host.mcpServer("everything")).toMatchObject({ era: "legacy", protocolVersion: "2025-11-25" });
  });

  it("calls a tool and gives its text to the model", async () => {
    const r = await host.invoke("fs__list_directory", { path: work }, owner);
    expect(r.ok).toBe(true);
    expect(r.content).toBe("[DIR] notes");
    const read = await host.invoke("fs__read_text_file", { path: join(work, "notes", "todo.txt") }, owner);
    expect(read.content).toBe("buy milk\n");
  });

  it("checks arguments against the input schema before the server sees the call", async () => {
    const before = recorded(record).filter((m) => m.method === "tools/call").length;
    const r = await host.invoke("everything__get-sum", { a: "one" }, owner);
    expect(r.ok).toBe(false);
    expect(r.error?.code).toBe("invalid_arguments");
    expect(r.content).toContain('everything__get-sum: arguments.a: must be a number, got "one"');
    expect(r.content).toContain("everything__get-sum: arguments.b: is required");
    expect(recorded(record).filter((m) => m.method === "tools/call").length).toBe(before);
  });

  it("stores an image result as an artifact of the session and references it", async () => {
    const r = await host.invoke("everything__get-tiny-image", {}, owner);
    expect(r.ok).toBe(true);
    expect(r.artifacts).toHaveLength(1);
    const ref = r.artifacts[0]!;
    expect(ref.mimeType).toBe("image/png");
    const stored = await host.artifacts.read(ref.artifactId, owner);
    expect(Buffer.from(stored!.data.subarray(0, 8)).toString("hex")).toBe("89504e470d0a1a0a");
    expect(stored!.meta.source).toBe("mcp:everything");
    // Referenced, not inlined: no base64 of the picture reaches the model.
    expect(r.content).toContain(ref.artifactId);
    expect(r.content.length).toBeLessThan(1000);
    // Another session cannot read it.
    expect(await host.artifacts.read(ref.artifactId, { ...owner, sessionId: "other" })).toBeUndefined();
  });

  it("turns embedded and linked resources into artifacts", async () => {
    const embedded = await host.invoke(
      "everything__get-resource-reference",
      { resourceType: "Text", resourceId: 2 },
      owner,
    );
    expect(embedded.ok).toBe(true);
    expect(embedded.artifacts.length).toBeGreaterThanOrEqual(1);
    const links = await host.invoke("everything__get-resource-links", { count: 2 }, owner);
    expect(links.ok).toBe(true);
    expect(links.artifacts).toHaveLength(2);
    const stored = await host.artifacts.read(links.artifacts[0]!.artifactId, owner);
    expect(stored!.data.byteLength).toBeGreaterThan(0);
  });

  it("gives an isError result to the model as a tool error", async () => {
    const r = await host.invoke("fs__read_text_file", { path: "/etc/hostname" }, owner);
    expect(r.ok).toBe(false);
    expect(r.error?.code).toBe("tool_error");
    expect(r.content).toMatch(/Access denied/);
  });

  it("reports progress notifications as chunks", async () => {
    const chunks: string[] = [];
    const r = await host.invoke(
      "everything__trigger-long-running-operation",
      { duration: 0.4, steps: 2 },
      { ...owner, onChunk: (t) => chunks.push(t) },
    );
    expect(r.ok).toBe(true);
    expect(chunks).toEqual(["progress 1/2\n", "progress 2/2\n"]);
  });

  it("sends notifications/cancelled for the request when the call is cancelled", async () => {
    const controller = new AbortController();
    const chunks: string[] = [];
    const running = host.invoke(
      "everything__trigger-long-running-operation",
      { duration: 30, steps: 60 },
      {
        ...owner,
        signal: controller.signal,
        onChunk: (t) => {
          chunks.push(t);
          controller.abort();
        },
      },
    );
    const r = await running;
    expect(r.error?.code).toBe("cancelled");
    const messages = recorded(record);
    const call = messages
      .filter(
        (m) => m.method === "tools/call" && (m.params as { name?: string }).name === "trigger-long-running-operation",
      )
      .at(-1);
    expect(call).toBeDefined();
    await until(
      () => recorded(record).some((m) => m.method === "notifications/cancelled" && m.params?.requestId === call?.id),
      "notifications/cancelled at the server",
    );
  });

  it("puts ${secret:name} values only into the server's environment, and redacts them from results", async () => {
    expect(spawned?.env.PALISADE_TEST_TOKEN).toBe(TOKEN);
    const r = await host.invoke("everything__get-env", {}, owner);
    expect(r.ok).toBe(true);
    expect(r.content).toContain("PALISADE_TEST_TOKEN");
    expect(r.content).not.toContain(TOKEN);
    // The Engine's own environment does not leak into the server's.
    expect(r.content).not.toContain("VITEST");
    expect(JSON.stringify(host.catalog())).not.toContain(TOKEN);
  });

  it("restarts a server that died, within the budget", async () => {
    const [wrapperPid] = recordedPids(record).at(-1)!;
    process.kill(wrapperPid, "SIGKILL");
    await until(
      () => host.status()[0]?.restarts === 1 && host.status()[0]?.state === "ready",
      `a restart; statuses:\n${statuses.join("\n")}`,
    );
    expect(recordedPids(record), statuses.join("\n")).toHaveLength(2);
    const r = await host.invoke("everything__echo", { message: "back" }, owner);
    expect(r.content).toBe("Echo: back");
  });
});

describe("health: a server that stops answering", () => {
  it("is pinged, and restarted when a ping goes unanswered", async () => {
    const record = join(tempDir(), "rec");
    // A ping timeout a loaded machine cannot miss by accident; a stopped server misses it surely.
    const { host } = await startHost([everythingConfig("hung")], {
      mcpWrap: recordingWrapper("hung", record),
      recheckIntervalMs: 200,
      healthCallTimeoutMs: 1500,
      startupTimeoutMs: 20_000,
    });
    try {
      await until(() => recorded(record).filter((m) => m.method === "ping").length >= 2, "two pings");
      const [wrapper] = recordedPids(record)[0]!;
      // Stopped, it reads nothing: the next ping is not answered.
      process.kill(wrapper, "SIGSTOP");
      await until(
        () => host.status()[0]?.restarts === 1 && host.status()[0]?.state === "ready",
        "a restart after the unanswered ping",
      );
      expect(recordedPids(record)).toHaveLength(2);
      expect(alive(wrapper)).toBe(false);
      expect((await host.invoke("hung__echo", { message: "again" }, owner)).content).toBe("Echo: again");
    } finally {
      await host.stop();
    }
  });
});

describe("lifecycle: a stdio server without calls", () => {
  it("is stopped after idleStopMs (its processes gone, its tools still listed) and started again by the next call", async () => {
    const record = join(tempDir(), "rec");
    const { host } = await startHost([everythingConfig("idle")], {
      mcpWrap: recordingWrapper("idle", record),
      idleStopMs: 1500,
      startupTimeoutMs: 20_000,
    });
    try {
      expect(host.status()[0]).toMatchObject({ state: "ready", process: "started" });
      const tools = host.catalog().length;
      expect((await host.invoke("idle__echo", { message: "one" }, owner)).content).toBe("Echo: one");
      const [wrapper, server] = recordedPids(record)[0]!;
      await until(() => host.status()[0]?.state === "stopped", "an idle stop", 20_000);
      await until(() => !alive(wrapper) && !alive(server), "its processes gone", 10_000);
      expect(host.status()[0]).toMatchObject({ process: "stopped", restarts: 0 });
      expect(host.catalog()).toHaveLength(tools);
      expect((await host.invoke("idle__echo", { message: "two" }, owner)).content).toBe("Echo: two");
      expect(recordedPids(record)).toHaveLength(2);
      expect(host.status()[0]).toMatchObject({ state: "ready", process: "started", restarts: 0 });
    } finally {
      await host.stop();
    }
  });
});

describe("MCP server configuration errors", () => {
  it("fails with how to set a missing secret, and never starts the server", async () => {
    const record = join(tempDir(), "rec");
    const { host } = await startHost([everythingConfig("gh", {}, { GITHUB_TOKEN: "${secret:github_token}" })], {
      env: {},
      mcpWrap: recordingWrapper("gh", record),
    });
    try {
      const [s] = host.status();
      expect(s?.state).toBe("failed");
      expect(s?.message).toContain("palisade capability credentials set gh github_token");
      expect(recordedPids(record)).toEqual([]);
    } finally {
      await host.stop();
    }
  });

  it("fails a server that does not start after the restart budget", async () => {
    const { host } = await startHost([
      { id: "broken", mcp: { command: [process.execPath, "-e", "process.exit(3)"] }, maxRestarts: 1 },
    ]);
    try {
      const [s] = host.status();
      expect(s?.state).toBe("failed");
      expect(s?.restarts).toBe(1);
    } finally {
      await host.stop();
    }
  });
});

/** Pids of processes whose command line contains `marker`. */
function withMarker(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(marker)) pids.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

/** Running: exists and is not a zombie waiting for whoever inherited it to reap it. */
function live(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

describe.skipIf(process.platform !== "linux")("stdio servers die with the Engine", () => {
  const modes = [["plain", false] as const, ["sandbox", which("bwrap") === undefined] as const];
  for (const [mode, skip] of modes) {
    it.skipIf(skip)(`a SIGKILLed Engine leaves no server behind (${mode})`, async () => {
      const dir = mode === "sandbox" ? mkdtempSync(join("/var/tmp", "palisade-mcp-die-")) : tempDir();
      const marker = `palisade-marker-${randomUUID()}`;
      const engineScript = new URL("./fixtures/mcp/engine.mjs", import.meta.url).pathname;
      const engine = spawn(
        process.execPath,
        [engineScript, dir, serverScript("@modelcontextprotocol/server-everything"), marker, mode],
        { stdio: ["ignore", "pipe", "inherit"] },
      );
      try {
        let out = "";
        engine.stdout.on("data", (b: Buffer) => (out += b.toString()));
        await until(() => out.includes("\n"), "the stand-in Engine to start its server");
        expect(out).toMatch(/^ready /);
        // The stand-in Engine has the marker in its argv too.
        const running = withMarker(marker).filter((pid) => pid !== engine.pid);
        expect(running.length).toBeGreaterThanOrEqual(1);
        engine.kill("SIGKILL");
        // A process that is exiting loses its command line before it is gone: wait for both.
        await until(
          () =>
            running.filter(live).length === 0 && withMarker(marker).filter((pid) => pid !== engine.pid).length === 0,
          "the server to die with the Engine",
        );
      } finally {
        engine.kill("SIGKILL");
        if (mode === "sandbox") rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
