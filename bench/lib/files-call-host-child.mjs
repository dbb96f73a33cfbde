// Child of bench/files-call.mjs --via host: the Engine's side of the call too. Loads the capability
// host of the tree given (argv[2]) and calls files__read_file through CapabilityHost.invoke, as the
// Engine's tool-call step does (its own process, so its CPU is only this). Unsandboxed, like the
// bench's direct mode. Messages over IPC: {ready, pid} once the capability answers; then for each
// {calls: n, gapMs} the reply {done, cpuNs} (this process's CPU for those calls, all threads).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { threadsCpuNs } from "./proc.mjs";

const [root, workspace] = process.argv.slice(2);
const { CapabilityHost } = await import(join(root, "packages/capabilities/dist/index.js"));
const dataDir = mkdtempSync(join(tmpdir(), "palisade-bench-host-"));
const host = new CapabilityHost({
  dataDir,
  capabilities: [
    {
      id: "files",
      manifest: join(root, "apps/capabilities/files/manifest.yaml"),
      command: [process.execPath, join(root, "apps/capabilities/files/dist/main.js")],
      protocol: "palisade",
      sandbox: false,
    },
  ],
  log: () => undefined,
});
const [status] = await host.start();
if (status.state !== "ready") throw new Error(`files not ready: ${status.message}`);

const selfNs = () => threadsCpuNs("self");
const opts = { sessionId: "bench", userId: "bench", workspace };
process.on("message", async (m) => {
  if (m.stop) {
    await host.stop();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  }
  const t0 = selfNs();
  for (let i = 0; i < m.calls; i++) {
    const r = await host.invoke("files__read_file", { path: "a.txt" }, opts);
    if (!r.ok) throw new Error(r.content);
    if (m.gapMs > 0) await new Promise((res) => setTimeout(res, m.gapMs));
  }
  process.send({ done: true, cpuNs: selfNs() - t0 });
});
process.send({ ready: true, pid: host.status()[0].pid });
