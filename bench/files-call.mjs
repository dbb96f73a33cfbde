// CPU of the files capability process per read_file call (a 2-byte file), as the Engine calls it:
// launched with a unix socket and a secret on stdin, unary Invoke with the bearer token, one call
// at a time. Per run a fresh process: CPU of its first FIRST calls (code not yet optimized, as a
// user meets a capability that started on first use), then, after WARMUP more, of WARM calls.
// CPU is the sum of /proc/<pid>/task/*/schedstat (ns, all threads; /proc/<pid>/stat ticks are
// 10 ms). --root DIR (repeatable) benchmarks the built capability of other trees, alternating.
// Also the start-up CPU (spawn to first call). --gap-ms N pauses between calls as a turn's model
// time does: an idle process pays more per call (wake-ups, and the JIT keeps compiling: see
// BENCH_THREADS=1, CPU per thread). FILES_NODE_FLAGS="--cpu-prof ..." passes flags to the
// capability's node (HOST_NODE_FLAGS to the --via host caller's); BENCH_CHILD_OUT=1 shows its
// stdout (e.g. --trace-gc). The caller's CPU per call
// is printed too: with --via host the caller is a child process calling through the root's
// CapabilityHost.invoke (the Engine's side: invoke.js, the protocol client, grpc-js), started
// unsandboxed; by default it is this process with a bare protocol client.
// Run: flock /tmp/palisade-cpu.lock node bench/files-call.mjs [--runs 5] [--via host] [--gap-ms 10] [--root /work/main --root .]
import { fork } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@palisade/protocol";
import { Capability } from "@palisade/protocol/capability";
import { spawnCapability } from "./lib/child.mjs";
import { benchArgs, machineBusyMs, median, threadsCpuNs } from "./lib/proc.mjs";

const { opt, roots } = benchArgs(process.argv.slice(2), new URL("..", import.meta.url).pathname);
const RUNS = Number(opt("runs", 5));
const FIRST = Number(opt("first", 100));
const WARMUP = Number(opt("warmup", 2000));
const WARM = Number(opt("warm", 2000));
/** Pause between calls, ms (0: back to back; a turn's model time leaves the process idle between calls). */
const GAP_MS = Number(opt("gap-ms", 0));
/** `direct`: this process calls the capability with a bare protocol client; `host`: a child process calls it through the capability host of each root, as the Engine does (its CPU is the "caller" column). */
const VIA = opt("via", "direct");

const enc = new TextEncoder();
const dir = mkdtempSync(join(tmpdir(), "palisade-bench-files-"));
const ws = join(dir, "ws");
const sockDir = join(dir, "sock");
for (const d of [ws, sockDir]) rmSync(d, { recursive: true, force: true });
await import("node:fs/promises").then((fs) => Promise.all([fs.mkdir(ws), fs.mkdir(sockDir, { mode: 0o700 })]));
writeFileSync(join(ws, "a.txt"), "hi");

/** CPU per thread name of `pid` so far, ns. */
function threadsNs(pid) {
  const out = {};
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${t}/comm`, "utf8").trim();
      out[name] = (out[name] ?? 0) + Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      /* thread gone */
    }
  }
  return out;
}

/** The files capability started and called by this process (a bare protocol client). */
async function directDriver(root, run) {
  const socket = join(sockDir, `files-${run}.sock`);
  const { proc: child, secret } = await spawnCapability(join(root, "apps/capabilities/files/dist/main.js"), socket, {
    env: process.env,
    nodeArgs: (process.env.FILES_NODE_FLAGS ?? "").split(" ").filter(Boolean),
    stdout: process.env.BENCH_CHILD_OUT ? "inherit" : "ignore",
  });
  const client = createClient(Capability, `unix:${socket}`, { bearerToken: secret, defaultTimeoutMs: 120_000 });
  await client.waitForReady();
  const request = {
    toolName: "read_file",
    argsJson: enc.encode(JSON.stringify({ path: "a.txt" })),
    configJson: enc.encode(JSON.stringify({ workspace: ws })),
    sessionId: "bench",
    threadId: "main",
    capabilityId: "files",
  };
  return {
    pid: child.pid,
    /** Makes n calls; returns the caller's CPU for them, ns. */
    async calls(n) {
      const self0 = process.cpuUsage();
      for (let i = 0; i < n; i++) {
        const res = await client.invoke(request);
        if (res.error) throw new Error(res.error);
        if (GAP_MS > 0) await new Promise((r) => setTimeout(r, GAP_MS));
      }
      const self = process.cpuUsage(self0);
      return (self.user + self.system) * 1000;
    },
    async stop() {
      client.close();
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
    },
  };
}

/** The files capability started and called by the capability host of `root`, in a child process (the Engine's side). */
async function hostDriver(root) {
  const child = fork(new URL("./lib/files-call-host-child.mjs", import.meta.url), [root, ws], {
    stdio: ["ignore", "ignore", "inherit", "ipc"],
    execArgv: (process.env.HOST_NODE_FLAGS ?? "").split(" ").filter(Boolean),
  });
  const next = () =>
    new Promise((res, rej) => {
      child.once("message", res);
      child.once("exit", (code) => rej(new Error(`host child exited ${code}`)));
    });
  const ready = await next();
  return {
    pid: ready.pid,
    async calls(n) {
      const reply = next();
      child.send({ calls: n, gapMs: GAP_MS });
      return (await reply).cpuNs;
    },
    async stop() {
      const exited = new Promise((r) => child.once("exit", r));
      child.send({ stop: true });
      await exited;
    },
  };
}

async function oneRun(root, run) {
  const driver = VIA === "host" ? await hostDriver(root) : await directDriver(root, run);
  const pid = driver.pid;
  const measure = async (n) => {
    const cpu0 = threadsCpuNs(pid);
    const busy0 = machineBusyMs();
    const self0 = process.cpuUsage();
    const t0 = performance.now();
    const callerNs = await driver.calls(n);
    const wall = performance.now() - t0;
    const self = process.cpuUsage(self0);
    const own = (threadsCpuNs(pid) - cpu0) / 1e6;
    const caller = callerNs / 1e6;
    const bench = VIA === "host" ? (self.user + self.system) / 1000 : 0; // direct: the caller is this process
    const foreign = Math.max(0, machineBusyMs() - busy0 - own - caller - bench);
    return {
      usPerCall: (own * 1000) / n,
      clientUsPerCall: (caller * 1000) / n,
      wallMs: wall,
      foreignPct: (100 * foreign) / wall,
    };
  };
  // BENCH_THREADS=1: CPU per call by thread name (MainThread, V8Worker = GC and JIT, libuv-worker).
  const byThread = async (label, n, fn) => {
    const t0 = threadsNs(pid);
    const r = await fn();
    const t1 = threadsNs(pid);
    if (process.env.BENCH_THREADS)
      console.error(
        `${label}: ${Object.entries(t1)
          .filter(([k, v]) => v > (t0[k] ?? 0))
          .map(([k, v]) => `${k} ${((v - (t0[k] ?? 0)) / 1000 / n).toFixed(1)}`)
          .join(", ")} us/call`,
      );
    return r;
  };
  const startMs = threadsCpuNs(pid) / 1e6; // start-up, connection accepted
  const first = await byThread("first", FIRST, () => measure(FIRST));
  await driver.calls(WARMUP);
  const warm = await byThread("warm", WARM, () => measure(WARM));
  await driver.stop();
  return { startMs, first, warm };
}

const results = new Map(roots.map((r) => [r, []]));
for (let run = 0; run < RUNS; run++) {
  for (const root of run % 2 ? [...roots].reverse() : roots) {
    const r = await oneRun(root, `${run}-${roots.indexOf(root)}`);
    results.get(root).push(r);
    console.error(
      `run ${run} ${root}: start ${r.startMs.toFixed(0)} ms, first ${r.first.usPerCall.toFixed(0)} us/call, warm ${r.warm.usPerCall.toFixed(0)} us/call, client warm ${r.warm.clientUsPerCall.toFixed(0)} us/call (foreign ${r.first.foreignPct.toFixed(0)}%/${r.warm.foreignPct.toFixed(0)}%)`,
    );
  }
}
const fmt = (xs) => `${median(xs).toFixed(0)} (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;
console.log(
  `files capability CPU per read_file call (2-byte file), us, median (range) of ${RUNS} runs, ${GAP_MS} ms between calls, caller: ${VIA === "host" ? "CapabilityHost.invoke in a child process" : "a protocol client in this process"}`,
);
console.log(
  `start-up ms (spawn to first call) | first ${FIRST} calls after start | warm (${WARM} calls after ${FIRST + WARMUP}) | caller first | caller warm | foreign CPU % of a core, median | root`,
);
for (const [root, rs] of results) {
  const foreign = median(rs.flatMap((r) => [r.first.foreignPct, r.warm.foreignPct]));
  console.log(
    `${fmt(rs.map((r) => r.startMs))} | ${fmt(rs.map((r) => r.first.usPerCall))} | ${fmt(rs.map((r) => r.warm.usPerCall))} | ${fmt(rs.map((r) => r.first.clientUsPerCall))} | ${fmt(rs.map((r) => r.warm.clientUsPerCall))} | ${foreign.toFixed(0)} | ${root}`,
  );
}
rmSync(dir, { recursive: true, force: true });
