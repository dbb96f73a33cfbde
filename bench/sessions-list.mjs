// `palisade sessions list` against a 1M-message history, as a user types it: bin/palisade spawned
// fresh against a running Engine, timed from the spawn to its exit (the table printed). Floors in
// the same run, interleaved: `node -e` writing one byte, and a bare Node script that opens the same
// SQLite file with better-sqlite3 and prints the same page (20 newest sessions and the count).
// Reference: the same command with no Engine running (it starts one). Each figure is the median of
// the runs with its range; foreign CPU (others' use of the machine, from /proc/stat minus this
// benchmark's process trees) replaces the load average.
// The history is made once by bench/history.mjs (~5-12 minutes for 1M messages) and reused:
//   node bench/sessions-list.mjs [--db FILE] [--messages 1000000] [--runs N] [--root DIR]
// (default FILE: $TMPDIR/palisade-bench-history-<messages>.db).
import { spawnSync } from "node:child_process";
import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { CpuWindows, median, spread } from "./lib/proc.mjs";
import { printTable, writeResult } from "./lib/stats.mjs";
import { timedSpawn } from "./lib/timed-spawn.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : fallback;
};
const root = opt("root", join(here, ".."));
const MESSAGES = Number(opt("messages", 1_000_000));
const RUNS = Number(opt("runs", argv.includes("--quick") ? 5 : 15));
const COLD_RUNS = Math.max(1, Math.round(RUNS / 5));
const DB = opt("db", join(tmpdir(), `palisade-bench-history-${MESSAGES}.db`));
const PALISADE = join(root, "bin", "palisade");

if (!existsSync(DB)) {
  console.error(
    `no history at ${DB}: generating ${MESSAGES} messages with bench/history.mjs (once; reused by later runs)`,
  );
  const r = spawnSync(
    process.execPath,
    [
      join(here, "history.mjs"),
      "--messages",
      String(MESSAGES),
      "--sessions",
      String(Math.max(100, MESSAGES / 100)),
      "--db",
      DB,
      "--keep",
    ],
    { stdio: "inherit" },
  );
  if (r.status !== 0) throw new Error("bench/history.mjs failed");
}

// A data directory whose palisade.db is the history (a hard link: same file, no copy).
const dir = mkdtempSync(join(tmpdir(), "pal-sessions-list-"));
const dataDir = join(dir, "data");
mkdirSync(dataDir, { mode: 0o700 });
linkSync(DB, join(dataDir, "palisade.db"));
const configFile = join(dir, "config.yaml"); // absent: the defaults
const env = {
  ...process.env,
  OPENAI_API_KEY: "bench",
  OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
  PALISADE_MODEL: "bench-model",
};
for (const k of ["PALISADE_DATA_DIR", "PALISADE_CONFIG", "PALISADE_DEBUG", "NODE_OPTIONS"]) delete env[k];

const palisade = (...words) =>
  timedSpawn(PALISADE, ["--data-dir", dataDir, "--config", configFile, ...words], { env, cwd: dir });
async function list() {
  const r = await palisade("sessions", "list");
  if (r.code !== 0 || !r.stdout.startsWith("ID"))
    throw new Error(`palisade sessions list failed (exit ${r.code}):\n${r.stdout}${r.stderr}`);
  return r.exitMs;
}
async function stopEngine() {
  const r = await palisade("engine", "stop");
  if (r.code !== 0) throw new Error(`palisade engine stop failed:\n${r.stdout}${r.stderr}`);
}
const nodeFloor = async () => (await timedSpawn(process.execPath, ["-e", "process.stdout.write('x')"], { env })).exitMs;
async function sqliteFloor() {
  const r = await timedSpawn(process.execPath, [join(here, "lib", "sqlite-list.mjs"), join(dataDir, "palisade.db")], {
    env,
    cwd: root,
  });
  if (r.code !== 0 || !r.stdout.startsWith("ID"))
    throw new Error(`the better-sqlite3 floor failed (exit ${r.code}):\n${r.stdout}${r.stderr}`);
  return r.exitMs;
}

const series = {};
const enginePid = () => {
  try {
    return JSON.parse(readFileSync(join(dataDir, "engine.json"), "utf8")).pid;
  } catch {
    return undefined;
  }
};
const roots = () => [process.pid, enginePid()];
// CPU of this benchmark's processes per series (the command reaped, the Engine's tree): unlike
// wall time it hardly moves with other people's load.
const cpuBy = {};
async function add(name, fn) {
  const w = (cpuBy[name] ??= new CpuWindows(roots));
  w.begin();
  const ms = await fn();
  w.end();
  (series[name] ??= []).push(ms);
}

try {
  // No Engine running: the command starts one (a reference, not the goal's figure).
  for (let i = 0; i < COLD_RUNS; i++) {
    await add("sessions list, no Engine running (starts one)", list);
    await stopEngine();
  }
  const started = await palisade("engine", "start");
  if (started.code !== 0) throw new Error(`palisade engine start failed:\n${started.stdout}${started.stderr}`);
  await list();
  await list();
  for (let i = 0; i < RUNS; i++) {
    await add("sessions list (Engine running)", list);
    await add("better-sqlite3 script, same page (floor)", sqliteFloor);
    await add("node -e (floor)", nodeFloor);
  }
  await stopEngine();
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const GOALS = { "sessions list (Engine running)": "≤ 0.15 s" };
const foreign = CpuWindows.combined(Object.values(cpuBy)).foreignPct();
printTable(
  `palisade sessions list, ${MESSAGES.toLocaleString("en")} messages, from the spawn of bin/palisade to its exit; CPU: the command's and the Engine's; foreign CPU ${foreign.toFixed(0)} % of one core`,
  Object.entries(series).map(([measure, xs]) => ({
    measure,
    "median (min–max) s": spread(xs, "s"),
    n: xs.length,
    "CPU ms/run": cpuBy[measure].ownPerWindowMs().toFixed(0),
    goal: GOALS[measure] ?? (measure.includes("floor") ? "(floor)" : "(reference)"),
  })),
);
const summary = Object.fromEntries(
  Object.entries(series).map(([k, xs]) => [
    k,
    {
      medianMs: median(xs),
      minMs: Math.min(...xs),
      maxMs: Math.max(...xs),
      n: xs.length,
      cpuMsPerRun: cpuBy[k].ownPerWindowMs(),
    },
  ]),
);
console.log(
  `\nwritten ${writeResult("sessions-list", { messages: MESSAGES, runs: RUNS, foreignCpuPct: foreign, summary, series })}`,
);
