import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { CapabilityConfig, CapabilityHost, CapabilityHostOptions } from "@palisade/capabilities";
import { owner, startHost, tempDir, tool, writeManifest } from "./helpers.js";

// Real processes: the fixture serves with the SDK's compiled dist (`make build` first). Whether a
// process is gone is read from /proc, not from the host's own state.
const fixture = fileURLToPath(new URL("./fixtures/unhealthy.mjs", import.meta.url));
const hosts: CapabilityHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.stop()));
});

async function sick(config: Partial<CapabilityConfig> = {}, options: Partial<CapabilityHostOptions> = {}, once = true) {
  const dir = tempDir();
  const manifest = writeManifest(dir, {
    id: "sick",
    tools: ["echo", "pid", "spin", "sleep", "freeze"].map((n) => tool(n)),
  });
  const env: Record<string, string> = once ? { MARKER: join(dir, "marker") } : {};
  const { host } = await startHost(
    [{ id: "sick", manifest, command: [process.execPath, fixture], protocol: "palisade", env, ...config }],
    {
      startupTimeoutMs: 15_000,
      healthCallTimeoutMs: 1500,
      ...options,
    },
  );
  hosts.push(host);
  return host;
}

const gone = (pid: number): boolean => !existsSync(`/proc/${pid}`);

async function waitUntil(cond: () => boolean, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 25));
  }
}

function pidOf(host: CapabilityHost): number {
  const pid = host.status()[0]?.pid;
  if (pid === undefined) throw new Error(`no pid: ${JSON.stringify(host.status()[0])}`);
  return pid;
}

describe("supervised health", () => {
  it("a process that stops answering Healthcheck is killed and restarted; the call in flight gets a clear error; later calls work", async () => {
    const host = await sick({}, { recheckIntervalMs: 400 });
    const first = pidOf(host);
    const inFlight = host.invoke("sick__sleep", { ms: 60_000 }, { ...owner, timeoutMs: 90_000 });
    expect((await host.invoke("sick__freeze", {}, owner)).ok).toBe(true);
    const r = await inFlight;
    expect(r.ok).toBe(false);
    expect(r.error?.code).toBe("restarted");
    expect(r.content).toMatch(
      /^sick__sleep failed: capability sick stopped answering Healthcheck .*the Engine killed it and is restarting it \(restart 1 of 3\)/,
    );
    await waitUntil(() => gone(first));
    await waitUntil(() => host.status()[0]?.state === "ready");
    const second = pidOf(host);
    expect(second).not.toBe(first);
    expect(existsSync(`/proc/${second}`)).toBe(true);
    expect(host.status()[0]?.restarts).toBe(1);
    const again = await host.invoke("sick__pid", {}, owner);
    expect(again.ok).toBe(true);
    expect((again.result as { pid: number }).pid).toBe(second);
  });

  it("a call that spins the CPU past its deadline: the process is killed and restarted, the call says so, later calls work", async () => {
    // Health rechecks far apart: the call's deadline is what catches it.
    const host = await sick({ perToolTimeoutMs: { spin: 1500 } }, { recheckIntervalMs: 600_000 });
    const first = pidOf(host);
    const r = await host.invoke("sick__spin", {}, owner);
    expect(r.ok).toBe(false);
    expect(r.error?.code).toBe("timeout");
    expect(r.content).toMatch(
      /sick__spin did not finish within 1500 ms.*capability sick did not finish sick__spin within its deadline; the Engine killed it and is restarting it/,
    );
    await waitUntil(() => gone(first));
    await waitUntil(() => host.status()[0]?.state === "ready");
    const second = pidOf(host);
    expect(second).not.toBe(first);
    const again = await host.invoke("sick__echo", { text: "back" }, owner);
    expect(again.result).toEqual({ echo: "back" });
  });

  it("once the restart budget is spent the capability is failed: its tools leave the catalog, it is listed as unavailable, its processes are gone", async () => {
    // No marker: every new process freezes again when asked.
    const host = await sick({ maxRestarts: 1 }, { recheckIntervalMs: 400 }, false);
    const first = pidOf(host);
    await host.invoke("sick__freeze", {}, owner);
    await waitUntil(() => host.status()[0]?.state === "ready" && host.status()[0]?.pid !== first);
    const second = pidOf(host);
    await host.invoke("sick__freeze", {}, owner);
    await waitUntil(() => host.status()[0]?.state === "failed");
    expect(gone(first) && gone(second)).toBe(true);
    expect(host.status()[0]?.message).toMatch(
      /capability sick: stopped answering Healthcheck .*\(killed\) after 1 restart/,
    );
    expect(host.catalog().filter((t) => t.capabilityId === "sick")).toEqual([]);
    expect(host.unavailable()).toEqual([{ id: "sick", state: "failed", restarts: 1 }]);
    const r = await host.invoke("sick__echo", { text: "x" }, owner);
    expect(r.error?.code).toBe("not_ready");
  });
});

describe("start on first use, stop when idle", () => {
  it("starts on the first call (once for calls arriving together), stops after idleStopMs without calls (process gone), starts again on the next call", async () => {
    const host = await sick({}, { startOnFirstUse: true, idleStopMs: 1000 });
    expect(host.status()[0]).toMatchObject({ state: "stopped", process: "stopped", toolCount: 5 });
    expect(host.status()[0]?.pid).toBeUndefined();
    // Its tools are listed although nothing runs.
    expect(host.catalog().map((t) => t.name)).toContain("echo");
    // Calls arriving together while it starts all wait for the one start.
    const [r, ...others] = await Promise.all([
      host.invoke("sick__pid", {}, owner),
      host.invoke("sick__echo", { text: "a" }, owner),
      host.invoke("sick__echo", { text: "b" }, owner),
    ]);
    expect(others.map((o) => o.result)).toEqual([{ echo: "a" }, { echo: "b" }]);
    const first = (r.result as { pid: number }).pid;
    expect(host.status()[0]).toMatchObject({ state: "ready", process: "started", pid: first });
    // A call that runs longer than the idle time is not cut off.
    expect((await host.invoke("sick__sleep", { ms: 1500 }, owner)).ok).toBe(true);
    expect(gone(first)).toBe(false);
    await waitUntil(() => host.status()[0]?.state === "stopped");
    await waitUntil(() => gone(first), 5000);
    expect(host.status()[0]).toMatchObject({ process: "stopped", restarts: 0 });
    expect(host.status()[0]?.message).toMatch(/stopped after 1 s without calls/);
    const again = await host.invoke("sick__pid", {}, owner);
    expect(again.ok).toBe(true);
    const second = (again.result as { pid: number }).pid;
    expect(second).not.toBe(first);
    expect(host.status()[0]).toMatchObject({ state: "ready", process: "started", pid: second, restarts: 0 });
  });
});
