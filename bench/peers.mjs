// Palisade against its peers, the same turns through each, against the same scripted model
// process: a turn is user message → the model calls files__read_file → the file is read → the
// model answers "done" (two streamed model calls, one tool call).
//  - Palisade: client → Engine (Shield, audit, SQLite) → sandboxed Agent → model, the tool in the
//    files capability process; the client is this process.
//  - OpenAI's Agents SDK (@openai/agents) in-process: a plain function tool, tracing off.
//  - The bare openai SDK in-process: the hand-written loop (the floor for any agent loop).
// Reported: turn latency p50/p99 at one session (model latency 0), CPU per turn per process (from
// /proc/<pid>/stat; the model process is left out, it is the same for all), and turns/s at
// 1/10/100/300 concurrent sessions with a 50 ms model.
// Run after `make build`: node bench/peers.mjs [--quick]
import { fork } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@palisade/protocol";
import { ClientService, PipelineEventType } from "@palisade/protocol/pipeline";
import { printTable, summarize, writeResult } from "./lib/stats.mjs";

const QUICK = process.argv.includes("--quick");
const RUNS = Number(process.argv[process.argv.indexOf("--runs") + 1] ?? 0) || (QUICK ? 1 : 3);
const LATENCY_TURNS = QUICK ? 40 : 200;
const LEVELS = QUICK ? [1, 10] : [1, 10, 100, 300];
const TURNS_PER_SESSION = QUICK ? 3 : 5;
const TICK_MS = 1000 / 100; // USER_HZ

function child(file, args, env = {}) {
  const proc = fork(new URL(`./lib/${file}`, import.meta.url), args, { stdio: ["ignore", "ignore", "inherit", "ipc"], env: { ...process.env, ...env } });
  const first = new Promise((resolve, reject) => {
    proc.once("message", resolve);
    proc.once("exit", (code) => reject(new Error(`bench/lib/${file} exited (${code}) before it answered`)));
  });
  const stop = () => new Promise((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
    proc.once("exit", resolve);
    if (proc.connected) proc.disconnect();
    else proc.kill();
  });
  return { proc, first, stop };
}

/** utime + stime of a process in ms, 0 when it is gone. */
function cpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/** `root` and every process below it, with a short name (from its command line). */
function processTree(root) {
  const parents = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch { /* gone */ }
  }
  const out = [];
  const walk = (pid) => {
    let name = String(pid);
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
      const script = argv.find((a) => a.endsWith(".js") || a.endsWith(".mjs")) ?? argv[0] ?? "";
      name = script.replace(/.*\/(apps|packages|bench)\//, "").replace(/\/dist\/main\.js$/, "");
    } catch { /* gone */ }
    out.push({ pid, name });
    for (const [p, parent] of parents) if (parent === pid) walk(p);
  };
  walk(root);
  return out;
}

/** Busy CPU time of the whole machine in ms (all cores), from /proc/stat. */
function machineBusyMs() {
  const cpu = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = (cpu[3] ?? 0) + (cpu[4] ?? 0);
  return (cpu.reduce((a, b) => a + b, 0) - idle) * TICK_MS;
}

function cpuSnapshot(procs) {
  return new Map(procs.map((p) => [p.pid, cpuMs(p.pid)]));
}

function cpuPerTurn(procs, before, turns) {
  const rows = {};
  let total = 0;
  for (const p of procs) {
    const used = cpuMs(p.pid) - (before.get(p.pid) ?? 0);
    if (used <= 0) continue;
    rows[p.name] = (rows[p.name] ?? 0) + used / turns;
    total += used / turns;
  }
  return { total, rows };
}

// ---------------------------------------------------------------- the systems
async function startPalisade(baseURL, workspace) {
  const engine = child("real-engine-child.mjs", [baseURL, "files-shell"]);
  const { address, token } = await engine.first;
  const client = createClient(ClientService, address, { bearerToken: token });
  const turn = async (sessionId) => {
    let last;
    let id = sessionId;
    for await (const ev of client.sendMessage({ content: "read x.txt", sessionId: id ?? "" })) {
      last = ev;
      if (!id && ev.sessionId) id = ev.sessionId;
    }
    if (last?.eventType !== PipelineEventType.RESPONSE_COMPLETE) throw new Error(`palisade turn failed: ${last?.pipelineError?.message ?? "no RESPONSE_COMPLETE"}`);
    return id;
  };
  const run = async ({ sessions, turns }) => {
    const ids = await Promise.all(Array.from({ length: sessions }, () => turn(undefined)));
    const latencies = [];
    const t = process.hrtime.bigint();
    await Promise.all(ids.map(async (id) => {
      for (let i = 0; i < turns; i++) {
        const s = process.hrtime.bigint();
        await turn(id);
        latencies.push(Number(process.hrtime.bigint() - s) / 1e6);
      }
    }));
    return { latencies, wallMs: Number(process.hrtime.bigint() - t) / 1e6 };
  };
  return {
    name: "palisade",
    processes: () => processTree(engine.proc.pid),
    run,
    close: async () => {
      client.close();
      await engine.stop();
    },
  };
}

async function startPeer(kind, baseURL, workspace) {
  const runner = child("peer-runner.mjs", [kind, baseURL, workspace]);
  await runner.first;
  const run = (req) => new Promise((resolve, reject) => {
    runner.proc.once("message", (m) => (m.error ? reject(new Error(m.error)) : resolve(m)));
    runner.proc.send(req);
  });
  return { name: kind === "agents" ? "@openai/agents" : "openai SDK", processes: () => processTree(runner.proc.pid), run, close: runner.stop };
}

let modelPid = 0;

async function withModel(latencyMs, fn) {
  const model = child("model-child.mjs", ["peer"], { BENCH_MODEL_LATENCY_MS: String(latencyMs) });
  const baseURL = await model.first;
  modelPid = model.proc.pid;
  try {
    return await fn(baseURL);
  } finally {
    await model.stop();
  }
}

// ---------------------------------------------------------------- measurements
const dir = mkdtempSync(join(tmpdir(), "pal-peers-"));
const workspace = join(dir, "ws");
mkdirSync(workspace);
writeFileSync(join(workspace, "x.txt"), "x\n");

const starters = [startPalisade, (u, w) => startPeer("agents", u, w), (u, w) => startPeer("sdk", u, w)];

// Each run measures every system once, in turn; a figure is the median of the runs, with its
// spread. CPU used on the machine by anything but the measured processes and the model is
// recorded as "foreign" (another user's load would show there).
const latencyRuns = await withModel(0, async (baseURL) => {
  const runs = [];
  for (let run = 0; run < RUNS; run++) {
    const out = [];
    for (const start of starters) {
      const system = await start(baseURL, workspace);
      try {
        await system.run({ sessions: 1, turns: 20 }); // warm-up (JIT, connections)
        const procs = system.processes();
        const before = cpuSnapshot(procs);
        const mine = [...procs, { pid: process.pid, name: "bench" }, { pid: modelPid, name: "model" }];
        const mineBefore = cpuSnapshot(mine);
        const busyBefore = machineBusyMs();
        const t = process.hrtime.bigint();
        const { latencies } = await system.run({ sessions: 1, turns: LATENCY_TURNS });
        const wallMs = Number(process.hrtime.bigint() - t) / 1e6;
        const ours = [...mine].reduce((sum, p) => sum + cpuMs(p.pid) - (mineBefore.get(p.pid) ?? 0), 0);
        const foreignPct = (100 * Math.max(0, machineBusyMs() - busyBefore - ours)) / wallMs;
        out.push({ name: system.name, ...summarize(latencies), cpu: cpuPerTurn(procs, before, LATENCY_TURNS), foreignPct });
      } finally {
        await system.close();
      }
    }
    runs.push(out);
  }
  return runs;
});
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const latency = latencyRuns[0].map((first) => {
  const mine = latencyRuns.map((run) => run.find((r) => r.name === first.name));
  const pick = (f) => ({ median: median(mine.map(f)), min: Math.min(...mine.map(f)), max: Math.max(...mine.map(f)) });
  return {
    name: first.name,
    p50: pick((r) => r.p50),
    p99: pick((r) => r.p99),
    cpuTotal: pick((r) => r.cpu.total),
    cpu: mine[Math.floor((mine.length - 1) / 2)].cpu,
    foreignPct: pick((r) => r.foreignPct),
  };
});

const throughput = await withModel(50, async (baseURL) => {
  const out = [];
  for (const start of starters) {
    const system = await start(baseURL, workspace);
    try {
      const levels = {};
      for (const sessions of LEVELS) {
        const { wallMs } = await system.run({ sessions, turns: TURNS_PER_SESSION });
        levels[sessions] = (sessions * TURNS_PER_SESSION) / (wallMs / 1000);
      }
      out.push({ name: system.name, levels });
    } finally {
      await system.close();
    }
  }
  return out;
});
rmSync(dir, { recursive: true, force: true });

const sdk = latency.find((r) => r.name === "openai SDK");
const agents = latency.find((r) => r.name === "@openai/agents");
const spread = (x) => `${x.median.toFixed(2)} (${x.min.toFixed(2)}–${x.max.toFixed(2)})`;
printTable(`One session, ${LATENCY_TURNS} turns (model latency 0), median of ${RUNS} run(s) (range): turn latency and CPU per turn, ms`, latency.map((r) => ({
  system: r.name,
  p50: spread(r.p50),
  p99: spread(r.p99),
  "p50 vs agents": r.p50.median / agents.p50.median,
  "p50 vs SDK": r.p50.median / sdk.p50.median,
  "cpu/turn": spread(r.cpuTotal),
  "foreign cpu %": spread(r.foreignPct),
})));
printTable("CPU per turn by process (ms)", latency.flatMap((r) => Object.entries(r.cpu.rows).map(([process, ms]) => ({ system: r.name, process, ms }))));
const sdkT = throughput.find((r) => r.name === "openai SDK");
printTable(`Turns/s with a 50 ms model (${TURNS_PER_SESSION} turns per session)`, throughput.map((r) => ({
  system: r.name,
  ...Object.fromEntries(LEVELS.map((l) => [`${l} sessions`, r.levels[l]])),
  [`vs SDK at ${LEVELS.at(-1)}`]: r.levels[LEVELS.at(-1)] / sdkT.levels[LEVELS.at(-1)],
})));
console.log(`\nwritten ${writeResult("peers", { quick: QUICK, runs: RUNS, latency, latencyRuns, throughput })}`);
