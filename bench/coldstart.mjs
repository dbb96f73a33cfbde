// `palisade run "hi"` to its first token, as a user types it: `bin/palisade` spawned fresh, the
// scripted model (packages/testing) in its own process streaming the answer.
//  - cold: no Engine runs; the CLI starts the Engine, the Engine the sandboxed Agent. Twice per
//    run: with a new data directory (a first use) and with one that has history (Engine stopped).
//  - warm: the Engine (and its Agent) already run.
// Floors, in the same run, interleaved: `node -e` writing one byte (starting Node at all), and a
// bare script that makes the same streamed call with node:http straight to the model (what any
// Node program that streams one answer pays). For reference, the same call with the openai SDK
// (its import alone costs more than the CLI's whole start). Each figure is the median of the runs with its
// range; the CPU others used on the machine meanwhile ("foreign", from /proc/stat minus this
// benchmark's process trees) is given instead of the load average.
// Run after `make build`: node bench/coldstart.mjs [--runs N] [--warm-runs N] [--quick] [--root DIR]
import { fork } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { CpuWindows, median, spread } from "./lib/proc.mjs";
import { printTable, writeResult } from "./lib/stats.mjs";
import { mustRun, timedSpawn } from "./lib/timed-spawn.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
// --root DIR: measure the palisade of another checkout (e.g. a worktree of the previous commit).
const root = argv.includes("--root") ? argv[argv.indexOf("--root") + 1] : join(here, "..");
const QUICK = argv.includes("--quick");
const opt = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? Number(argv[i + 1]) : fallback;
};
const COLD_RUNS = opt("runs", QUICK ? 3 : 7);
const WARM_RUNS = opt("warm-runs", QUICK ? 5 : 15);
const PAUSE_MS = 300; // between runs: the Engine finishes the previous turn's background work (the title)

const PALISADE = join(root, "bin", "palisade");
if (!existsSync(join(root, "apps", "cli", "dist", "main.js"))) throw new Error("run `make build` first");

const model = fork(join(here, "lib", "model-child.mjs"), ["answer"], { stdio: ["ignore", "ignore", "inherit", "ipc"] });
const baseURL = await new Promise((resolve, reject) => {
  model.once("message", resolve);
  model.once("exit", (code) => reject(new Error(`the scripted model exited (${code})`)));
});

const dir = mkdtempSync(join(tmpdir(), "pal-coldstart-"));
const workspace = join(dir, "ws");
mkdirSync(workspace);
const configFile = join(dir, "config.yaml"); // absent: the defaults, the model from the environment
const env = { ...process.env, OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: "bench", PALISADE_MODEL: "bench-model" };
for (const k of ["PALISADE_DATA_DIR", "PALISADE_CONFIG", "PALISADE_DEBUG", "NODE_OPTIONS"]) delete env[k];

const palisade = (dataDir, ...words) =>
  timedSpawn(PALISADE, ["--data-dir", dataDir, "--config", configFile, "--workspace", workspace, ...words], {
    env,
    cwd: workspace,
  });
const enginePid = (dataDir) => {
  try {
    return JSON.parse(readFileSync(join(dataDir, "engine.json"), "utf8")).pid;
  } catch {
    return undefined;
  }
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** One `palisade run "hi"`; fails unless the answer streamed. */
async function runHi(dataDir) {
  const r = await palisade(dataDir, "run", "hi");
  if (r.code !== 0 || !r.stdout.includes("hello"))
    throw new Error(`palisade run failed (exit ${r.code}):\n${r.stdout}${r.stderr}`);
  return r;
}

async function stopEngine(dataDir) {
  const r = await palisade(dataDir, "engine", "stop");
  if (r.code !== 0) throw new Error(`palisade engine stop failed:\n${r.stdout}${r.stderr}`);
}

/** When the Engine logged `listening` and `agent connected`, ms after `t0` (Date.now() at the spawn). */
function engineMilestones(dataDir, t0) {
  const at = {};
  try {
    for (const line of readFileSync(join(dataDir, "engine.log"), "utf8").split("\n")) {
      const m = /^(\S+Z) (listening on|agent connected)/.exec(line);
      const ms = m ? Date.parse(m[1]) - t0 : NaN;
      if (m && ms >= 0 && at[m[2]] === undefined) at[m[2]] = ms; // this run's, not an earlier one's
    }
  } catch {
    /* no log */
  }
  return { listening: at["listening on"], agent: at["agent connected"] };
}

// The floors.
const nodeFloor = () => timedSpawn(process.execPath, ["-e", "process.stdout.write('x')"], { env });
const sdkFloor = async () => {
  const r = await timedSpawn(
    process.execPath,
    [join(here, "lib", "sdk-first-token.mjs"), baseURL, "bench-model", "hi"],
    { env, cwd: root },
  );
  if (r.code !== 0 || !r.stdout.includes("hello"))
    throw new Error(`the SDK floor failed (exit ${r.code}):\n${r.stdout}${r.stderr}`);
  return r;
};
const httpFloor = async () => {
  const r = await timedSpawn(
    process.execPath,
    [join(here, "lib", "http-first-token.mjs"), baseURL, "bench-model", "hi"],
    { env },
  );
  if (r.code !== 0 || !r.stdout.includes("hello"))
    throw new Error(`the node:http floor failed (exit ${r.code}):\n${r.stdout}${r.stderr}`);
  return r;
};
const version = () => mustRun(PALISADE, ["--version"], { env });

const series = {};
const add = (name, ms) => (series[name] ??= []).push(ms);
const milestones = [];
// CPU of this benchmark's processes (the CLI runs it reaped, the Engine's tree, the model) per
// series: unlike wall time it hardly moves with other people's load.
const cpuBy = {};
async function measured(name, cpuRoots, fn) {
  const w = (cpuBy[name] ??= new CpuWindows(cpuRoots));
  w.begin();
  const r = await fn();
  w.end();
  add(name, r.firstByteMs);
  return r;
}

// --- cold -------------------------------------------------------------------------------------------
let live; // the data dir whose Engine is running, for the CPU account
const cpuRoots = () => [process.pid, live && enginePid(live)];
const existing = join(dir, "cold-existing");
await runHi(existing); // gives it history (and creates its files)
await stopEngine(existing);
for (let i = 0; i < COLD_RUNS; i++) {
  for (const [name, dataDir] of [
    ["cold, new data dir", join(dir, `cold-new-${i}`)],
    ["cold, existing data dir", existing],
  ]) {
    await sleep(PAUSE_MS);
    live = dataDir;
    const t0 = Date.now();
    const r = await measured(name, cpuRoots, () => runHi(dataDir));
    add(`${name} (exit)`, r.exitMs);
    milestones.push({ name, firstToken: r.firstByteMs, ...engineMilestones(dataDir, t0) });
    await stopEngine(dataDir);
    live = undefined;
  }
  await measured("node -e (floor)", cpuRoots, nodeFloor);
  await measured("node:http streamed call (floor)", cpuRoots, httpFloor);
  await measured("openai SDK script (reference)", cpuRoots, sdkFloor);
  add("bin/palisade --version", (await version()).exitMs);
}

// --- warm -------------------------------------------------------------------------------------------
const warm = join(dir, "warm");
live = warm;
const started = await palisade(warm, "engine", "start");
if (started.code !== 0) throw new Error(`palisade engine start failed:\n${started.stdout}${started.stderr}`);
await runHi(warm);
await runHi(warm);
for (let i = 0; i < WARM_RUNS; i++) {
  await sleep(PAUSE_MS);
  const r = await measured("warm", cpuRoots, () => runHi(warm));
  add("warm (exit)", r.exitMs);
  await measured("node -e (floor), warm phase", cpuRoots, nodeFloor);
  await measured("node:http streamed call (floor), warm phase", cpuRoots, httpFloor);
  await measured("openai SDK script (reference), warm phase", cpuRoots, sdkFloor);
}
await stopEngine(warm);
live = undefined;

model.disconnect();
rmSync(dir, { recursive: true, force: true });

// --- report -----------------------------------------------------------------------------------------
const GOALS = { "cold, existing data dir": "≤ 1.0 s", "cold, new data dir": "≤ 1.0 s", warm: "≤ 0.2 s" };
const rows = Object.entries(series).map(([name, xs]) => ({
  measure: name,
  "median (min–max) s": spread(xs, "s"),
  n: xs.length,
  "CPU ms/run": cpuBy[name] ? cpuBy[name].ownPerWindowMs().toFixed(0) : "",
  goal: GOALS[name] ?? (name.includes("floor") ? "(floor)" : ""),
}));
const phase = (names) => CpuWindows.combined(names.map((n) => cpuBy[n]).filter(Boolean)).foreignPct();
const foreign = {
  cold: phase(Object.keys(cpuBy).filter((n) => !n.includes("warm"))),
  warm: phase(Object.keys(cpuBy).filter((n) => n.includes("warm"))),
};
printTable(
  `palisade run "hi" → first token (stdout's first byte), from the spawn of bin/palisade; CPU: all processes of the run (CLI, Engine, Agent, capabilities); foreign CPU: cold phase ${foreign.cold.toFixed(0)} %, warm phase ${foreign.warm.toFixed(0)} % of one core`,
  rows,
);
const byName = (n) => milestones.filter((m) => m.name === n);
printTable(
  "Cold start, where the time goes (ms after the spawn, medians)",
  ["cold, new data dir", "cold, existing data dir"].map((n) => ({
    run: n,
    "Engine listening": median(byName(n).map((m) => m.listening)).toFixed(0),
    "Agent connected": median(byName(n).map((m) => m.agent)).toFixed(0),
    "first token": median(byName(n).map((m) => m.firstToken)).toFixed(0),
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
      cpuMsPerRun: cpuBy[k]?.ownPerWindowMs(),
    },
  ]),
);
console.log(
  `\nwritten ${writeResult("coldstart", { quick: QUICK, coldRuns: COLD_RUNS, warmRuns: WARM_RUNS, foreignCpuPct: foreign, summary, series, milestones })}`,
);
