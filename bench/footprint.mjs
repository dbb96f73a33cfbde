// What Palisade keeps resident, as a user meets it: an Engine with its default configuration (every
// built-in capability, the real sandboxed Agent) in its own process; one chat-like session through
// it (a turn that loads files and shell, reads a file and runs a shell command, the user approving
// the command as the chat would); then idle. Counted from /proc over the Engine's process tree:
// the processes and their total RSS (and PSS, which shares common pages out fairly), right after
// the chat and once idle. The idle time is short here (--idle-s, default 3 s); the default
// limits.capability_idle_stop_s of 600 s means the "after the chat" row holds for 10 minutes after
// the last call, then the "idle" row. "idle stop off" is both idle times 0 (every
// capability started with the Engine and kept running: Palisade before start-on-first-use and
// idle stop). Floor in the same run: a bare `node -e` process. Each figure is the median of
// --runs runs with its range; the CPU others used on the machine meanwhile ("foreign", from
// /proc/stat minus this benchmark's process trees) is given instead of the load average.
// Goal: <= 3 processes, <= 200 MB at idle after one chat.
// Run after `make build`: node bench/footprint.mjs [--runs N] [--idle-s S] [--quick]
import { startScriptedServer } from "@palisade/testing";
import { chatScript, floor, footprintRun } from "./lib/footprint-run.mjs";
import { CpuWindows, median } from "./lib/proc.mjs";
import { printTable, writeResult } from "./lib/stats.mjs";

const argv = process.argv.slice(2);
const QUICK = argv.includes("--quick");
const opt = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? Number(argv[i + 1]) : fallback;
};
const RUNS = opt("runs", QUICK ? 2 : 5);
const IDLE_S = opt("idle-s", 3);
const GOAL = { processes: 3, rssMb: 200 };

const model = await startScriptedServer({ fallback: chatScript });
const run = (idleStopS, cpu) => footprintRun(model.baseURL, idleStopS, IDLE_S + 1, cpu);

const cpu = new CpuWindows(() => [process.pid]);
const floors = [];
const withIdle = [];
const without = [];
for (let i = 0; i < RUNS; i++) {
  floors.push(await floor());
  withIdle.push(await run(IDLE_S, cpu));
  without.push(await run(0, cpu));
  process.stderr.write(`run ${i + 1}/${RUNS} done\n`);
}
await model.close();

const fmt = (xs, digits = 0) =>
  `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;
const row = (what, samples) => ({
  what,
  processes: fmt(samples.map((s) => s.processes)),
  "RSS MB": fmt(samples.map((s) => s.rssMb)),
  "PSS MB": fmt(samples.map((s) => s.pssMb)),
});
const rows = [
  row(
    `idle after one chat (idle stop ${IDLE_S} s)`,
    withIdle.map((r) => r.idle),
  ),
  row(
    "right after the chat (= idle for the first 600 s with the default)",
    withIdle.map((r) => r.chat),
  ),
  row(
    "Engine just started, nothing called yet",
    withIdle.map((r) => r.started),
  ),
  row(
    "idle stop off (capability_ and agent_idle_stop_s: 0): idle after one chat",
    without.map((r) => r.idle),
  ),
  row(
    "idle stop off: Engine just started",
    without.map((r) => r.started),
  ),
  row("floor: bare node -e", floors),
  { what: "goal at idle", processes: `<= ${GOAL.processes}`, "RSS MB": `<= ${GOAL.rssMb}`, "PSS MB": "" },
];
printTable(
  `Palisade footprint (${RUNS} runs; median (min–max); foreign CPU ${cpu.foreignPct().toFixed(0)}% of one core)`,
  rows,
);

// Where the memory goes: each kind of process, medians over the runs.
const breakdown = (samples) => {
  const kinds = [...new Set(samples.flatMap((s) => s.procs.map((p) => p.kind)))];
  return kinds.map((kind) => {
    const per = samples.map((s) => s.procs.filter((p) => p.kind === kind));
    return {
      process: kind,
      count: median(per.map((p) => p.length)),
      "RSS MB": median(per.map((p) => p.reduce((a, x) => a + x.rss, 0) / 1024)).toFixed(0),
      "PSS MB": median(per.map((p) => p.reduce((a, x) => a + x.pss, 0) / 1024)).toFixed(0),
    };
  });
};
printTable("right after the chat, per process", breakdown(withIdle.map((r) => r.chat)));
printTable("idle, per process", breakdown(withIdle.map((r) => r.idle)));
const heapMb = (k) => median(withIdle.map((r) => r.engineHeap[k] / 1048576)).toFixed(0);
console.log(
  `\nEngine at idle: heap used ${heapMb("heapUsed")} MB of ${heapMb("heapTotal")} MB, external ${heapMb("external")} MB, RSS ${heapMb("rss")} MB`,
);

const idleMed = {
  processes: median(withIdle.map((r) => r.idle.processes)),
  rssMb: median(withIdle.map((r) => r.idle.rssMb)),
};
const met = idleMed.processes <= GOAL.processes && idleMed.rssMb <= GOAL.rssMb;
console.log(
  `goal (<= ${GOAL.processes} processes, <= ${GOAL.rssMb} MB at idle): ${met ? "met" : "MISSED"} (${idleMed.processes} processes, ${idleMed.rssMb.toFixed(0)} MB)`,
);
const strip = (s) => ({
  processes: s.processes,
  rssMb: s.rssMb,
  pssMb: s.pssMb,
  procs: s.procs.map(({ kind, rss, pss }) => ({ kind, rss, pss })),
});
const file = writeResult("footprint", {
  runs: RUNS,
  idleStopS: IDLE_S,
  foreignCpuPct: cpu.foreignPct(),
  goal: GOAL,
  met,
  rows,
  withIdleStop: withIdle.map((r) => ({
    started: strip(r.started),
    chat: strip(r.chat),
    idle: strip(r.idle),
    engineHeap: r.engineHeap,
  })),
  idleStopOff: without.map((r) => ({ started: strip(r.started), chat: strip(r.chat), idle: strip(r.idle) })),
  floor: floors,
});
console.log(`\nwrote ${file}`);
