// What a capability (re)start costs, as the Engine starts one (its unix socket, a secret on stdin)
// until its first Healthcheck answers ready: wall time from spawn, and the process's CPU then (all
// threads, /proc/<pid>/task/*/schedstat). A capability pays this at its first use and again after
// every idle stop. --root DIR (repeatable) starts the built capability of other trees, alternating.
// Run: flock /tmp/palisade-cpu.lock node bench/capability-start.mjs [--runs 10] [--capability files] [--root /work/main --root .]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@palisade/protocol";
import { Capability } from "@palisade/protocol/capability";
import { spawnCapability } from "./lib/child.mjs";
import { benchArgs, machineBusyMs, median, threadsCpuNs } from "./lib/proc.mjs";

const { opt, roots } = benchArgs(process.argv.slice(2), new URL("..", import.meta.url).pathname);
const RUNS = Number(opt("runs", 10));
const CAPABILITY = opt("capability", "files");

const dir = mkdtempSync(join(tmpdir(), "palisade-bench-start-"));

const cpuMs = (pid) => threadsCpuNs(pid) / 1e6;

async function oneStart(root, run) {
  const socket = join(dir, `${run}.sock`);
  const busy0 = machineBusyMs();
  const self0 = process.cpuUsage();
  const t0 = performance.now();
  const { proc: child, secret } = await spawnCapability(
    join(root, "apps/capabilities", CAPABILITY, "dist/main.js"),
    socket,
    {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, PALISADE_WORKSPACE: dir },
    },
  );
  const client = createClient(Capability, `unix:${socket}`, { bearerToken: secret });
  const health = await client.healthcheck({});
  const wallMs = performance.now() - t0;
  const cpu = cpuMs(child.pid);
  const self = process.cpuUsage(self0);
  if (!health.ready) throw new Error(`not ready: ${health.message}`);
  const foreign = Math.max(0, machineBusyMs() - busy0 - cpu - (self.user + self.system) / 1000);
  client.close();
  child.stdin.end();
  await new Promise((r) => child.once("exit", r));
  return { wallMs, cpuMs: cpu, foreignPct: (100 * foreign) / wallMs };
}

const results = new Map(roots.map((r) => [r, []]));
for (let run = 0; run < RUNS; run++) {
  for (const root of run % 2 ? [...roots].reverse() : roots) {
    const r = await oneStart(root, `${run}-${roots.indexOf(root)}`);
    results.get(root).push(r);
    console.error(
      `run ${run} ${root}: ${r.cpuMs.toFixed(0)} ms CPU, ${r.wallMs.toFixed(0)} ms wall (foreign ${r.foreignPct.toFixed(0)}%)`,
    );
  }
}
const fmt = (xs) => `${median(xs).toFixed(0)} (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;
console.log(`${CAPABILITY} capability start (spawn to first Healthcheck ready), median (range) of ${RUNS} runs`);
console.log("CPU ms | wall ms | foreign CPU % of a core, median | root");
for (const [root, rs] of results) {
  console.log(
    `${fmt(rs.map((r) => r.cpuMs))} | ${fmt(rs.map((r) => r.wallMs))} | ${median(rs.map((r) => r.foreignPct)).toFixed(0)} | ${root}`,
  );
}
rmSync(dir, { recursive: true, force: true });
