import { spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DiskArtifactStore } from "@palisade/capabilities";
import type { CapabilityHost, InvokeEvent } from "@palisade/capabilities";
import { owner, startHost, tempDir, tool, writeManifest } from "./helpers.js";

/** First interpreter that has Debian's python3-grpcio and python3-protobuf (`make deps-system`). */
function findPython(): string | undefined {
  for (const candidate of ["python3", "/usr/bin/python3"]) {
    const res = spawnSync(candidate, ["-c", "import grpc, google.protobuf, sys; print(sys.executable)"], {
      encoding: "utf8",
    });
    if (res.status === 0) return res.stdout.trim();
  }
  return undefined;
}

const python = findPython();
const SKIP_REASON =
  "python3 with grpc and google.protobuf not found (install python3-grpcio python3-protobuf: `make deps-system`)";
if (!python) console.warn(`skipping the Python interop test: ${SKIP_REASON}`);

describe.skipIf(!python)(`interop with a Python capability server${python ? "" : ` — skipped: ${SKIP_REASON}`}`, () => {
  let host: CapabilityHost;
  let store: DiskArtifactStore;
  beforeAll(async () => {
    const script = fileURLToPath(new URL("./fixtures/python_capability.py", import.meta.url));
    const manifest = writeManifest(tempDir(), {
      id: "py-report",
      image: "ghcr.io/example/py-report:1.0.0",
      tools: [tool("echo"), tool("make_report", { terminal_on_success: true }), tool("bad_artifact"), tool("unknown")],
      credentials: [{ name: "PY_TOKEN", scope: "system" }],
    });
    const dataDir = tempDir("palisade-host-");
    store = new DiskArtifactStore({ dir: `${dataDir}/artifacts` });
    ({ host } = await startHost(
      [{ id: "py-report", manifest, command: [python as string, script], credentials: { PY_TOKEN: "py-secret" } }],
      { dataDir, artifacts: store, startupTimeoutMs: 15_000 },
    ));
  });
  afterAll(async () => {
    await host.stop();
  });

  it("is launched (command overrides the manifest's image) and passes the health gate", () => {
    expect(host.status()[0]).toMatchObject({ state: "ready", launchMode: "command", message: "python ok" });
  });

  it("Invoke carries args, config_json, session, thread and capability id", async () => {
    const r = await host.invoke("py-report__echo", { q: "ü" }, { ...owner, threadId: "t1" });
    expect(r.result).toEqual({
      args: { q: "ü" },
      config_keys: ["PY_TOKEN"],
      session_id: "s1",
      thread_id: "t1",
      capability_id: "py-report",
    });
  });

  it("an output artifact in the seed's form is downloaded, stored and rewritten", async () => {
    const size = 600 * 1024 + 7;
    const r = await host.invoke("py-report__make_report", { size }, owner);
    expect(r.ok, r.content).toBe(true);
    expect(r.terminal).toBe(true);
    const art = r.artifacts[0];
    expect(r.result).toEqual({
      ok: true,
      artifact: {
        artifact_id: art?.artifactId,
        filename: "report.bin",
        mime_type: "application/x-report",
        size_bytes: size,
      },
    });
    const stored = await store.read(art?.artifactId ?? "", owner);
    const expected = Buffer.from(Array.from({ length: size }, (_, i) => (i * 31) % 256));
    expect(Buffer.compare(Buffer.from(stored?.data ?? []), expected)).toBe(0);
  });

  it("StreamInvoke falls back to Invoke on a server without it; errors come back as tool errors", async () => {
    const events: InvokeEvent[] = [];
    for await (const ev of host.invokeStream("py-report__echo", {}, owner)) events.push(ev);
    expect(events).toHaveLength(1);
    expect(events[0]?.type === "result" && events[0].result.ok).toBe(true);
    expect(await host.invoke("py-report__unknown", {}, owner)).toMatchObject({
      ok: false,
      content: "py-report__unknown failed: Unknown tool: unknown",
    });
    const bad = await host.invoke("py-report__bad_artifact", {}, owner);
    expect(bad).toMatchObject({ ok: false, error: { code: "artifact_transfer" } });
    expect(bad.content).toContain('could not send artifact "no-such-id": Artifact not found');
  });
});

// Supervision tells silence from an answer: a server that answers Healthcheck with an error status
// (a third-party server's own word: INTERNAL, UNIMPLEMENTED) is not ready, but it is alive and is
// not killed; a process that answers nothing is (supervise.test.ts).
describe.skipIf(!python)("a Healthcheck answered with an error status is not silence", () => {
  let host: CapabilityHost;
  let statusFile: string;
  beforeAll(async () => {
    const dir = tempDir();
    statusFile = `${dir}/health-status`;
    const script = fileURLToPath(new URL("./fixtures/python_capability.py", import.meta.url));
    const manifest = writeManifest(dir, { id: "py-health", tools: [tool("echo")] });
    ({ host } = await startHost(
      [{ id: "py-health", manifest, command: [python as string, script], env: { HEALTH_STATUS: statusFile } }],
      {
        startupTimeoutMs: 15_000,
        recheckIntervalMs: 300,
        healthCallTimeoutMs: 1500,
      },
    ));
  });
  afterAll(async () => {
    await host.stop();
  });

  const waitFor = async (cond: () => boolean, what: string): Promise<void> => {
    const end = Date.now() + 20_000;
    while (!cond()) {
      if (Date.now() > end) throw new Error(`${what}: not reached in time; status ${JSON.stringify(host.status()[0])}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  it.each(["INTERNAL", "UNIMPLEMENTED"])(
    "%s: marked not ready with the server's words, the same process kept, ready again when it answers",
    async (status) => {
      await waitFor(() => host.status()[0]?.state === "ready", "ready at first");
      const pid = host.status()[0]?.pid;
      expect(pid).toBeDefined();
      writeFileSync(statusFile, status);
      await waitFor(() => host.status()[0]?.state === "not_ready", "not ready");
      expect(host.status()[0]?.message).toContain(`Healthcheck failed: ${status}`);
      expect(host.status()[0]?.message).toContain("index is being rebuilt");
      // Several rechecks later it is still the same live process, never restarted.
      await new Promise((r) => setTimeout(r, 1500));
      expect(host.status()[0]).toMatchObject({ state: "not_ready", pid, restarts: 0 });
      expect(existsSync(`/proc/${pid}`)).toBe(true);
      writeFileSync(statusFile, "");
      await waitFor(() => host.status()[0]?.state === "ready", "ready again");
      expect(host.status()[0]?.pid).toBe(pid);
      expect((await host.invoke("py-health__echo", { q: 1 }, owner)).ok).toBe(true);
    },
  );
});
