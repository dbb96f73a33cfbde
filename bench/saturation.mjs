// What caps Palisade's turns/s with many sessions: the turns of bench/peers.mjs (user message →
// files__read_file → "done", a 50 ms model) at N sessions at once, with the CPU of every process
// involved, Palisade's and the benchmark's own (client, model), the main thread of each Node
// process apart from its helper threads (GC, libuv pool), and the CPU other people's processes
// used meanwhile. A process whose main thread is near 100 % of a core is the cap; when none is,
// the machine's two cores are (sum the column). The bare openai SDK runs the same turns for the
// arithmetic. Run after `make build`: node bench/saturation.mjs [--sessions 300] [--turns 5] [--root DIR]
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { child } from "./lib/child.mjs";
import { palisadeTurns } from "./lib/palisade-peer.mjs";
import { printTable } from "./lib/stats.mjs";

const arg = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
const SESSIONS = Number(arg("--sessions", 300));
const TURNS = Number(arg("--turns", 5));
const ROOT = arg("--root", undefined);
const TICK_MS = 10;

const statFields = (path) => {
  try {
    const s = readFileSync(path, "utf8");
    return s.slice(s.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
};
/** utime+stime in ms of a process (all threads) or, with `mainOnly`, of its main thread. */
const cpuMs = (pid, mainOnly = false) => {
  const f = statFields(mainOnly ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`);
  return f ? (Number(f[11]) + Number(f[12])) * TICK_MS : 0;
};
const machineBusyMs = () => {
  const cpu = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
  return (cpu.reduce((a, b) => a + b, 0) - (cpu[3] ?? 0) - (cpu[4] ?? 0)) * TICK_MS;
};

function tree(root) {
  const parents = new Map();
  for (const e of readdirSync("/proc")) {
    if (!/^\d+$/.test(e)) continue;
    const f = statFields(`/proc/${e}/stat`);
    if (f) parents.set(Number(e), Number(f[1]));
  }
  const out = [];
  const walk = (pid) => {
    let name = String(pid);
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
      name = (argv.find((a) => /\.m?js$/.test(a)) ?? argv[0] ?? "")
        .replace(/.*\/(apps|packages|bench)\//, "")
        .replace(/\/dist\/main\.js$/, "");
    } catch {
      /* gone */
    }
    if (/\.m?js$|^agent$|^capabilities\//.test(name)) out.push({ pid, name });
    for (const [p, parent] of parents) if (parent === pid) walk(p);
  };
  walk(root);
  return out;
}

async function measure(label, procs, run) {
  const all = [...procs, { pid: process.pid, name: "bench client (this process)" }];
  const before = all.map((p) => ({ all: cpuMs(p.pid), main: cpuMs(p.pid, true) }));
  const busy = machineBusyMs();
  const t = performance.now();
  const turns = await run();
  const wall = performance.now() - t;
  const rows = all.map((p, i) => {
    const used = cpuMs(p.pid) - before[i].all;
    const main = cpuMs(p.pid, true) - before[i].main;
    return {
      system: label,
      process: p.name,
      "cpu % of a core": (100 * used) / wall,
      "main thread %": (100 * main) / wall,
      "ms per turn": used / turns,
    };
  });
  const ours = rows.reduce((s, r) => s + (r["cpu % of a core"] * wall) / 100, 0);
  rows.push({
    system: label,
    process: "others' processes (foreign)",
    "cpu % of a core": (100 * Math.max(0, machineBusyMs() - busy - ours)) / wall,
    "main thread %": NaN,
    "ms per turn": NaN,
  });
  return { turnsPerS: turns / (wall / 1000), rows };
}

const dir = mkdtempSync(join(tmpdir(), "pal-sat-"));
const workspace = join(dir, "ws");
mkdirSync(workspace);
writeFileSync(join(workspace, "x.txt"), "x\n");
const model = child("model-child.mjs", ["peer"], { BENCH_MODEL_LATENCY_MS: "50" });
const baseURL = await model.first;
const modelProc = { pid: model.proc.pid, name: "model (scripted, same for both)" };
const results = [];
try {
  const engine = child("real-engine-child.mjs", [baseURL, "files-shell"], {}, ROOT);
  const { address, token } = await engine.first;
  const { turn, close } = palisadeTurns(address, token);
  const ids = await Promise.all(Array.from({ length: SESSIONS }, () => turn(undefined)));
  results.push(
    await measure("palisade", [...tree(engine.proc.pid), modelProc], async () => {
      await Promise.all(
        ids.map(async (id) => {
          for (let i = 0; i < TURNS; i++) await turn(id);
        }),
      );
      return SESSIONS * TURNS;
    }),
  );
  close();
  await engine.stop();

  const sdk = child("peer-runner.mjs", ["sdk", baseURL, workspace]);
  await sdk.first;
  const ask = (req) =>
    new Promise((res, rej) => {
      sdk.proc.once("message", (m) => (m.error ? rej(new Error(m.error)) : res(m)));
      sdk.proc.send(req);
    });
  await ask({ prepare: SESSIONS });
  results.push(
    await measure("openai SDK", [{ pid: sdk.proc.pid, name: "lib/peer-runner.mjs (SDK)" }, modelProc], async () => {
      await ask({ turns: TURNS });
      return SESSIONS * TURNS;
    }),
  );
  await sdk.stop();
} finally {
  await model.stop();
  rmSync(dir, { recursive: true, force: true });
}
printTable(
  `${SESSIONS} sessions × ${TURNS} turns, 50 ms model: turns/s`,
  results.map((r, i) => ({ system: ["palisade", "openai SDK"][i], "turns/s": r.turnsPerS })),
);
printTable(
  "CPU by process over the measured turns (% of one core; the machine has 2)",
  results.flatMap((r) => r.rows),
);
