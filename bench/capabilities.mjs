// CapabilityHost overhead next to raw bridge calls to the same SDK capability (separate process),
// measured in the same run: Invoke round trip, 5 MiB output artifact (download + store) and
// 5 MiB input artifact (read + upload). Run: node bench/capabilities.mjs (after `make build`).
import { fork } from "node:child_process";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@palisade/protocol";
import { Capability } from "@palisade/protocol/capability";
import { CapabilityHost, DiskArtifactStore, downloadArtifact, uploadArtifact } from "@palisade/capabilities";
import { printTable, summarize, writeResult } from "./lib/stats.mjs";

const INVOKES = Number(process.env.BENCH_INVOKES ?? 3000);
const TRANSFERS = Number(process.env.BENCH_TRANSFERS ?? 20);
const FIVE_MIB = 5 * 1024 * 1024;
const enc = new TextEncoder();

const child = fork(new URL("./lib/capability-server.mjs", import.meta.url));
const { address } = await new Promise((r) => child.once("message", r));

const dir = mkdtempSync(join(tmpdir(), "palisade-bench-cap-"));
mkdirSync(join(dir, "bench"));
writeFileSync(
  join(dir, "bench", "manifest.yaml"),
  `id: bench
tools:
  - {name: echo, description: Echo, input_schema: {type: object}, recommended_policy: allow}
  - {name: make, description: Make, input_schema: {type: object, properties: {size: {type: integer}}}, recommended_policy: allow}
  - {name: consume, description: Consume, input_schema: {type: object, properties: {attachments: {type: array}}}, recommended_policy: allow}
`,
);
const store = new DiskArtifactStore({ dir: join(dir, "artifacts") });
const host = new CapabilityHost({
  dataDir: dir,
  capabilities: [{ id: "bench", manifest: join(dir, "bench", "manifest.yaml"), address }],
  artifacts: store,
});
const [status] = await host.start();
if (status.state !== "ready") throw new Error(`bench capability not ready: ${status.message}`);
const raw = createClient(Capability, address);
const owner = { userId: "bench", sessionId: "bench" };

async function time(n, fn, warm = Math.min(200, n)) {
  for (let i = 0; i < warm; i++) await fn(i);
  const samples = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    await fn(i);
    samples.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return summarize(samples);
}

// Interleave host and raw runs (best p50 of three rounds each) so load on the machine hits both alike.
const args = { x: 1 };
const argsJson = enc.encode(JSON.stringify(args));
const hostInvoke = [];
const rawInvoke = [];
for (let round = 0; round < 3; round++) {
  rawInvoke.push(
    await time(INVOKES / 3, () =>
      raw.invoke({
        toolName: "echo",
        argsJson,
        configJson: enc.encode("{}"),
        sessionId: "bench",
        capabilityId: "bench",
      }),
    ),
  );
  hostInvoke.push(
    await time(INVOKES / 3, async () => {
      const r = await host.invoke("bench__echo", args, owner);
      if (!r.ok) throw new Error(r.content);
    }),
  );
}
const best = (list) => list.reduce((a, b) => (b.p50 < a.p50 ? b : a));
const hostInv = best(hostInvoke);
const rawInv = best(rawInvoke);

// Output: host invoke + DownloadOutputArtifact + store write vs raw invoke + download into memory.
const hostDownFn = async () => {
  const r = await host.invoke("bench__make", { size: FIVE_MIB }, owner);
  if (!r.ok || r.artifacts[0]?.sizeBytes !== FIVE_MIB) throw new Error(r.content);
  await store.delete(r.artifacts[0].artifactId, owner);
};
const rawDownFn = async () => {
  const res = await raw.invoke({ toolName: "make", argsJson: enc.encode(JSON.stringify({ size: FIVE_MIB })) });
  const id = JSON.parse(new TextDecoder().decode(res.resultJson)).artifact.capability_artifact_id;
  const file = await downloadArtifact(raw, "bench", id, FIVE_MIB);
  if (file.data.byteLength !== FIVE_MIB) throw new Error("short download");
};

// Input: host reads the stored artifact, uploads it and invokes vs raw upload + invoke.
const input = await store.put(new Uint8Array(FIVE_MIB).fill(3), {
  filename: "in.bin",
  mimeType: "application/octet-stream",
  owner,
});
const hostUpFn = async () => {
  const r = await host.invoke("bench__consume", { attachments: [{ artifact_id: input.artifactId }] }, owner);
  if (!r.ok || r.result.sizes[0] !== FIVE_MIB) throw new Error(r.content);
};
const data = new Uint8Array(FIVE_MIB).fill(3);
const rawUpFn = async () => {
  const id = await uploadArtifact(raw, "bench", { data, filename: "in.bin", mimeType: "application/octet-stream" });
  const res = await raw.invoke({
    toolName: "consume",
    argsJson: enc.encode(JSON.stringify({ attachments: [{ capability_artifact_id: id }] })),
  });
  if (JSON.parse(new TextDecoder().decode(res.resultJson)).sizes[0] !== FIVE_MIB) throw new Error("short upload");
};
const rounds = { hostDown: [], rawDown: [], hostUp: [], rawUp: [] };
for (let round = 0; round < 3; round++) {
  rounds.rawDown.push(await time(TRANSFERS / 2, rawDownFn, 2));
  rounds.hostDown.push(await time(TRANSFERS / 2, hostDownFn, 2));
  rounds.rawUp.push(await time(TRANSFERS / 2, rawUpFn, 2));
  rounds.hostUp.push(await time(TRANSFERS / 2, hostUpFn, 2));
}
const [hostDown, rawDown, hostUp, rawUp] = [rounds.hostDown, rounds.rawDown, rounds.hostUp, rounds.rawUp].map(best);

const row = (metric, host, raw) => ({ metric, host, raw_bridge: raw, ratio: host / raw, overhead_ms: host - raw });
const rows = [
  row("Invoke p50 (ms)", hostInv.p50, rawInv.p50),
  row("Invoke p99 (ms)", hostInv.p99, rawInv.p99),
  row("5 MiB output artifact p50 (ms)", hostDown.p50, rawDown.p50),
  row("5 MiB input artifact p50 (ms)", hostUp.p50, rawUp.p50),
];
printTable("CapabilityHost vs raw bridge calls, same SDK capability in another process (TCP loopback)", rows);
console.log(
  "host = resolve + validate args + credentials + Invoke + artifact rewriting; output adds the disk store write, input the store read",
);
console.log(
  `wrote ${writeResult("capabilities", { rows, invoke: { host: hostInv, raw: rawInv }, download5MiB: { host: hostDown, raw: rawDown }, upload5MiB: { host: hostUp, raw: rawUp }, invokes: INVOKES, transfers: TRANSFERS })}`,
);

await host.stop();
raw.close();
child.disconnect();
rmSync(dir, { recursive: true, force: true });
