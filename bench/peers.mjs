// Palisade against its peers, the same turns through each, against the same scripted model
// process: a turn is user message → the model calls files__read_file → the file is read → the
// model answers "done" (two streamed model calls, one tool call).
//  - Palisade: client → Engine (Shield, audit, SQLite) → sandboxed Agent → model, the tool in the
//    files capability process; the client is this process.
//  - OpenAI's Agents SDK (@openai/agents) in-process: a plain function tool, tracing off.
//  - The bare openai SDK in-process: the hand-written loop (the floor for any agent loop).
// Reported: turn latency p50/p99 at one session (model latency 0), CPU per turn per process (from
// /proc/<pid>/stat; the model process is left out, it is the same for all), and turns/s at
// 1/10/100/300 concurrent sessions with a 50 ms model. Every figure is the median of `--runs`
// runs (default 3) with its range; each run measures every system once, in a rotated order, and
// records the CPU that other processes used on the machine meanwhile ("foreign", from /proc/stat:
// machine busy time minus the benchmark's own processes, in % of one core).
// The bare SDK is the floor: no agent loop can do the same turn with less.
// Run after `make build`: node bench/peers.mjs [--quick] [--runs N] [--warmup N] [--root DIR] [--palisade-only] [--levels 1,300 | --latency-only]
// --root DIR adds "palisade@root": the Engine of another built tree (a worktree of main), measured
// in the same runs, so a change and its baseline share the machine's state. --palisade-only leaves
// the peers out (the SDK column is then missing from the ratios).
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { child } from "./lib/child.mjs";
import { palisadeTurns } from "./lib/palisade-peer.mjs";
import { printTable, summarize, writeResult } from "./lib/stats.mjs";

const QUICK = process.argv.includes("--quick");
const RUNS = Number(process.argv[process.argv.indexOf("--runs") + 1] ?? 0) || (QUICK ? 1 : 3);
const LATENCY_TURNS = QUICK ? 40 : 200;
const LEVELS = process.argv.includes("--latency-only")
  ? []
  : process.argv.includes("--levels")
    ? process.argv[process.argv.indexOf("--levels") + 1].split(",").map(Number)
    : QUICK
      ? [1, 10]
      : [1, 10, 100, 300];
const TURNS_PER_SESSION = QUICK ? 3 : 5;
/** Turns per session at a level: at least this many turns in all, so CPU ticks (10 ms) average out. */
const turnsAt = (sessions) => Math.max(TURNS_PER_SESSION, Math.ceil((QUICK ? 20 : 50) / sessions));
const MEDIAN_OF = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const TICK_MS = 1000 / 100; // USER_HZ
const ROOT = process.argv.includes("--root") ? process.argv[process.argv.indexOf("--root") + 1] : undefined;
const PALISADE_ONLY = process.argv.includes("--palisade-only");
/**
 * Turns made before the latency/CPU measurement, in a session of their own (default 20). A user's
 * Engine, Agent and capabilities stay up for many turns; `--warmup 200` measures them with their
 * code compiled as it will be for most of a day (the peers run in-process and warm up at once).
 */
const WARMUP = process.argv.includes("--warmup") ? Number(process.argv[process.argv.indexOf("--warmup") + 1]) : 20;

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
    } catch {
      /* gone */
    }
  }
  const out = [];
  const walk = (pid) => {
    let name = String(pid);
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
      const script = argv.find((a) => a.endsWith(".js") || a.endsWith(".mjs")) ?? argv[0] ?? "";
      name = script.replace(/.*\/(apps|packages|bench)\//, "").replace(/\/dist\/main\.js$/, "");
    } catch {
      /* gone */
    }
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
async function startPalisade(baseURL, workspace, root = undefined) {
  const engine = child("real-engine-child.mjs", [baseURL, "files-shell"], {}, root);
  const { address, token } = await engine.first;
  const { turn, close } = palisadeTurns(address, token);
  // Conversations are opened (a first turn each) before the measured turns begin.
  const prepare = async (sessions) => {
    const ids = await Promise.all(Array.from({ length: sessions }, () => turn(undefined)));
    return async (turns) => {
      const latencies = [];
      const t = process.hrtime.bigint();
      await Promise.all(
        ids.map(async (id) => {
          for (let i = 0; i < turns; i++) {
            const s = process.hrtime.bigint();
            await turn(id);
            latencies.push(Number(process.hrtime.bigint() - s) / 1e6);
          }
        }),
      );
      return { latencies, wallMs: Number(process.hrtime.bigint() - t) / 1e6 };
    };
  };
  return {
    name: root ? "palisade@root" : "palisade",
    processes: () => processTree(engine.proc.pid),
    prepare,
    close: async () => {
      close();
      await engine.stop();
    },
  };
}

async function startPeer(kind, baseURL, workspace) {
  const runner = child("peer-runner.mjs", [kind, baseURL, workspace]);
  await runner.first;
  const ask = (req) =>
    new Promise((resolve, reject) => {
      runner.proc.once("message", (m) => (m.error ? reject(new Error(m.error)) : resolve(m)));
      runner.proc.send(req);
    });
  const prepare = async (sessions) => {
    await ask({ prepare: sessions });
    return (turns) => ask({ turns });
  };
  return {
    name: kind === "agents" ? "@openai/agents" : "openai SDK",
    processes: () => processTree(runner.proc.pid),
    prepare,
    close: runner.stop,
  };
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

const starters = [
  startPalisade,
  ...(ROOT ? [(u, w) => startPalisade(u, w, ROOT)] : []),
  ...(PALISADE_ONLY ? [] : [(u, w) => startPeer("agents", u, w), (u, w) => startPeer("sdk", u, w)]),
];
/** Run `run` measures the systems in a rotated order, so none is always first or last. */
const rotated = (run) => starters.map((_, i) => starters[(i + run) % starters.length]);

/**
 * One measurement of `system`: `sessions` conversations at once, `turns` each, with the CPU every
 * process of the system used per turn and the CPU used by processes that are not the benchmark's.
 */
async function measure(system, sessions, turns) {
  const go = await system.prepare(sessions);
  const procs = system.processes();
  const before = cpuSnapshot(procs);
  const mine = [...procs, { pid: process.pid, name: "bench" }, { pid: modelPid, name: "model" }];
  const mineBefore = cpuSnapshot(mine);
  const busyBefore = machineBusyMs();
  const { latencies, wallMs } = await go(turns);
  const ours = mine.reduce((sum, p) => sum + cpuMs(p.pid) - (mineBefore.get(p.pid) ?? 0), 0);
  const foreignPct = (100 * Math.max(0, machineBusyMs() - busyBefore - ours)) / wallMs;
  return {
    latencies,
    wallMs,
    turnsPerS: (sessions * turns) / (wallMs / 1000),
    cpu: cpuPerTurn(procs, before, sessions * turns),
    foreignPct,
  };
}

/** Every system, started fresh and measured by `fn`, in each of RUNS runs (rotated order): [run][system]. */
const overRuns = (modelDelayMs, fn) =>
  withModel(modelDelayMs, async (baseURL) => {
    const runs = [];
    for (let run = 0; run < RUNS; run++) {
      const out = [];
      for (const start of rotated(run)) {
        const system = await start(baseURL, workspace);
        try {
          out.push({ name: system.name, ...(await fn(system)) });
        } finally {
          await system.close();
        }
      }
      runs.push(out);
    }
    return runs;
  });

const latencyRuns = await overRuns(0, async (system) => {
  await (
    await system.prepare(1)
  )(WARMUP); // warm-up (JIT, connections)
  const m = await measure(system, 1, LATENCY_TURNS);
  return { ...summarize(m.latencies), cpu: m.cpu, foreignPct: m.foreignPct };
});
const pick = (xs) => ({ median: MEDIAN_OF(xs), min: Math.min(...xs), max: Math.max(...xs) });
const names = latencyRuns[0].map((r) => r.name);
const latency = names.map((name) => {
  const mine = latencyRuns.map((run) => run.find((r) => r.name === name));
  const processes = [...new Set(mine.flatMap((r) => Object.keys(r.cpu.rows)))];
  return {
    name,
    p50: pick(mine.map((r) => r.p50)),
    p99: pick(mine.map((r) => r.p99)),
    cpuTotal: pick(mine.map((r) => r.cpu.total)),
    cpu: Object.fromEntries(processes.map((p) => [p, pick(mine.map((r) => r.cpu.rows[p] ?? 0))])),
    foreignPct: pick(mine.map((r) => r.foreignPct)),
  };
});

const throughputRuns =
  LEVELS.length === 0
    ? []
    : await overRuns(50, async (system) => {
        const levels = {};
        for (const sessions of LEVELS) {
          const m = await measure(system, sessions, turnsAt(sessions));
          levels[sessions] = { turnsPerS: m.turnsPerS, cpuPerTurn: m.cpu.total, foreignPct: m.foreignPct };
        }
        return { levels };
      });
rmSync(dir, { recursive: true, force: true });
const throughput =
  throughputRuns.length === 0
    ? []
    : names.map((name) => {
        const mine = throughputRuns.map((run) => run.find((r) => r.name === name));
        return {
          name,
          levels: Object.fromEntries(
            LEVELS.map((l) => [
              l,
              {
                turnsPerS: pick(mine.map((r) => r.levels[l].turnsPerS)),
                cpuPerTurn: pick(mine.map((r) => r.levels[l].cpuPerTurn)),
                foreignPct: pick(mine.map((r) => r.levels[l].foreignPct)),
              },
            ]),
          ),
        };
      });

const sdk = latency.find((r) => r.name === "openai SDK");
const agents = latency.find((r) => r.name === "@openai/agents");
const spread = (x, digits = 2) => `${x.median.toFixed(digits)} (${x.min.toFixed(digits)}–${x.max.toFixed(digits)})`;
printTable(
  `One session, ${LATENCY_TURNS} turns after ${WARMUP} warm-up turns (model latency 0), median of ${RUNS} run(s) (range): turn latency and CPU per turn, ms`,
  latency.map((r) => ({
    system: r.name,
    p50: spread(r.p50),
    p99: spread(r.p99),
    "p50 vs agents": r.p50.median / (agents?.p50.median ?? NaN),
    "p50 vs SDK": r.p50.median / (sdk?.p50.median ?? NaN),
    "cpu/turn": spread(r.cpuTotal),
    "foreign cpu %": spread(r.foreignPct, 0),
  })),
);
printTable(
  `CPU per turn by process, ms, median of ${RUNS} run(s) (range)`,
  latency.flatMap((r) => Object.entries(r.cpu).map(([process, ms]) => ({ system: r.name, process, ms: spread(ms) }))),
);
const sdkT = throughput.find((r) => r.name === "openai SDK");
if (throughput.length > 0)
  printTable(
    `Turns/s with a 50 ms model (${LEVELS.map((l) => `${l}×${turnsAt(l)}`).join(", ")} sessions×turns), median of ${RUNS} run(s) (range)`,
    throughput.map((r) => ({
      system: r.name,
      ...Object.fromEntries(LEVELS.map((l) => [`${l} sessions`, spread(r.levels[l].turnsPerS, 1)])),
      [`vs SDK at ${LEVELS.at(-1)}`]:
        r.levels[LEVELS.at(-1)].turnsPerS.median / (sdkT?.levels[LEVELS.at(-1)].turnsPerS.median ?? NaN),
    })),
  );
if (throughput.length > 0)
  printTable(
    "…the same runs: CPU per turn (ms) and foreign CPU (% of a core), medians",
    throughput.map((r) => ({
      system: r.name,
      ...Object.fromEntries(
        LEVELS.map((l) => [
          `${l} sessions`,
          `${r.levels[l].cpuPerTurn.median.toFixed(2)} ms, ${r.levels[l].foreignPct.median.toFixed(0)} %`,
        ]),
      ),
    })),
  );
console.log(
  `\nwritten ${writeResult("peers", { quick: QUICK, runs: RUNS, warmup: WARMUP, latencyTurns: LATENCY_TURNS, turnsPerSession: TURNS_PER_SESSION, latency, latencyRuns, throughput, throughputRuns })}`,
);
