// The store's CPU per turn (a turn with one tool call): the store calls of a
// one-tool-call turn through the Engine's SQLite adapter (bench/lib/store-turn-child.mjs), on
// the Engine's thread and in the whole process, without the rest of the Engine. With --root DIR
// (another built tree, e.g. a worktree of main) the same runs of that tree are the baseline,
// alternating with this checkout's; each run is a fresh process and database.
// Run after `npx tsc -b`: node bench/store-turn.mjs [--root DIR] [--runs 5] [--turns 2000] [--sessions 5] [--postgres]
import { spawnSync } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { CpuWindows, median } from "./lib/proc.mjs";
import { printTable, writeResult } from "./lib/stats.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
};
const quick = args.includes("--quick");
const RUNS = Number(opt("runs", quick ? 2 : 5));
const TURNS = Number(opt("turns", quick ? 500 : 2000));
const SESSIONS = Number(opt("sessions", 5));
const trees = [{ name: "this checkout", root: resolve(here, "..") }];
if (opt("root", "")) trees.unshift({ name: `baseline ${opt("root", "")}`, root: resolve(opt("root", "")) });

// --postgres: this checkout's PostgreSQL adapter too, on a private cluster (a fresh database per
// run), beside SQLite in the same runs: the goal is a turn's commit <= 2x SQLite's.
let cluster;
if (args.includes("--postgres")) {
  // Node 24 runs the test helper's TypeScript as is (type stripping).
  const { startPostgres } = await import(resolve(here, "../packages/store/test/postgres-cluster.ts"));
  cluster = await startPostgres({ durable: true }); // fsync on, as the SQLite adapter syncs
  trees.push({ name: "this checkout, PostgreSQL", root: resolve(here, ".."), postgres: true });
}
const cpu = new CpuWindows(() => [process.pid]);
const samples = new Map(trees.map((t) => [t.name, []]));
for (let r = 0; r < RUNS; r++) {
  for (const t of trees) {
    const pg = t.postgres ? [cluster.url(await cluster.createDatabase())] : [];
    cpu.begin();
    const p = spawnSync(
      process.execPath,
      [join(here, "lib", "store-turn-child.mjs"), t.root, String(TURNS), String(SESSIONS), ...pg],
      {
        encoding: "utf8",
        ...(t.postgres ? { env: { ...process.env, PGPASSWORD: cluster.admin.password } } : {}),
      },
    );
    cpu.end();
    if (p.status !== 0) throw new Error(`${t.name}: store-turn-child failed (${p.status ?? p.signal}): ${p.stderr}`);
    samples.get(t.name).push(JSON.parse(p.stdout.trim().split("\n").pop()));
  }
}
const spread = (xs) => `${median(xs).toFixed(0)} (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;
const spread1 = (xs) => `${median(xs).toFixed(1)} (${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)})`;
const rows = trees.map((t) => {
  const s = samples.get(t.name);
  return {
    tree: t.name,
    "Engine thread µs/turn": spread(s.map((x) => x.mainUs)),
    "process µs/turn": spread(s.map((x) => x.processUs)),
    "wall µs/turn": spread(s.map((x) => x.wallUs)),
    "p99 ms": spread1(s.map((x) => x.p99Ms)),
    "max ms": spread1(s.map((x) => x.maxMs)),
  };
});
printTable(
  `Store CPU per one-tool-call turn (${RUNS} runs each, alternating; ${TURNS} turns in ${SESSIONS} sessions per run; median (min–max); foreign CPU ${cpu.foreignPct().toFixed(0)}% of one core)`,
  rows,
);
if (cluster) {
  const wall = (name) => median(samples.get(name).map((x) => x.wallUs));
  const ratio = wall("this checkout, PostgreSQL") / wall("this checkout");
  console.log(
    `\nPostgreSQL / SQLite, wall per turn (medians of the same runs): ${ratio.toFixed(2)}x (goal <= 2x); the PostgreSQL server's own CPU is not in "process"`,
  );
  await cluster.stop();
}
const summary = Object.fromEntries(trees.map((t) => [t.name, { root: t.root, runs: samples.get(t.name) }]));
console.log(
  `\nwritten ${writeResult("store-turn", { runs: RUNS, turns: TURNS, sessions: SESSIONS, foreignCpuPct: cpu.foreignPct(), trees: summary })}`,
);
