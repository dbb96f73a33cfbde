#!/usr/bin/env node
// Several Engines on one PostgreSQL database: two Engines serving 150 sessions each against one
// Engine serving 300, both on a fresh database of the same private cluster (fsync on), in the same
// run. A turn is bench/peers.mjs's (user message → files__read_file → "done", a model answering
// in 50 ms); every session runs its turns one after another, all sessions at once. Reports turns/s
// and turn latency for each layout and their ratio; layouts alternate over the runs.
// Run after `make build`: node bench/engines-postgres.mjs [--sessions 300] [--turns 3] [--runs 2] [--latency 50]
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { child } from "./lib/child.mjs";
import { palisadeTurns } from "./lib/palisade-peer.mjs";
import { percentile, printTable, writeResult } from "./lib/stats.mjs";

const here = import.meta.dirname;
const arg = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
const SESSIONS = Number(arg("--sessions", 300));
const TURNS = Number(arg("--turns", 3));
const RUNS = Number(arg("--runs", 2));
const LATENCY = Number(arg("--latency", 50));

const { postgresUnavailable, startPostgres } = await import(
  resolve(here, "../packages/store/test/postgres-cluster.ts")
);
const missing = postgresUnavailable();
if (missing) {
  console.log(`skipped: ${missing}`);
  process.exit(0);
}
const dir = mkdtempSync(join(tmpdir(), "pal-bench-engines-pg-"));
const cluster = await startPostgres({ durable: true });
const model = child("model-child.mjs", ["peer"], { BENCH_MODEL_LATENCY_MS: String(LATENCY) });
const baseURL = await model.first;

/** `engines` Engines on one new database, SESSIONS sessions split between them, TURNS measured turns each. */
async function layout(engines, run) {
  const url = cluster.url(await cluster.createDatabase());
  const key = join(dir, `audit-${String(engines)}-${String(run)}.key`);
  const started = [];
  try {
    // One after another: the first creates the schema and the shared audit key file.
    for (let i = 0; i < engines; i++) {
      const e = child("real-engine-child.mjs", [baseURL, "files-shell"], {
        BENCH_STORE_URL: url,
        PGPASSWORD: cluster.admin.password,
        BENCH_ENGINE_ID: `engine-${String(i + 1)}`,
        BENCH_AUDIT_KEY: key,
      });
      started.push(e);
      const { address, token } = await e.first;
      e.client = palisadeTurns(address, token);
    }
    const per = SESSIONS / engines;
    // Each session's first turn creates it (not measured).
    const sessions = await Promise.all(
      started.flatMap((e) => Array.from({ length: per }, async () => ({ e, id: await e.client.turn(undefined) }))),
    );
    const latencies = [];
    const t = performance.now();
    await Promise.all(
      sessions.map(async ({ e, id }) => {
        for (let k = 0; k < TURNS; k++) {
          const s = performance.now();
          await e.client.turn(id);
          latencies.push(performance.now() - s);
        }
      }),
    );
    const wallMs = performance.now() - t;
    return { turnsPerS: (SESSIONS * TURNS) / (wallMs / 1000), latencies };
  } finally {
    for (const e of started) {
      e.client?.close();
      await e.stop();
    }
  }
}

const results = { 1: [], 2: [] };
try {
  for (let run = 0; run < RUNS; run++) {
    for (const engines of run % 2 === 0 ? [1, 2] : [2, 1]) {
      const r = await layout(engines, run);
      results[engines].push(r);
      console.error(
        `run ${String(run + 1)}: ${String(engines)} Engine(s) x ${String(SESSIONS / engines)} sessions: ${r.turnsPerS.toFixed(1)} turns/s`,
      );
    }
  }
} finally {
  await model.stop();
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
}

const sorted = (xs) => [...xs].sort((a, b) => a - b);
const median = (xs) => {
  const s = sorted(xs);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const summary = (engines) => {
  const all = sorted(results[engines].flatMap((r) => r.latencies));
  return {
    layout: engines === 1 ? `1 Engine x ${String(SESSIONS)}` : `2 Engines x ${String(SESSIONS / 2)}`,
    "turns/s (median of runs)": median(results[engines].map((r) => r.turnsPerS)),
    "turn p50 ms": percentile(all, 50),
    "turn p99 ms": percentile(all, 99),
  };
};
const one = summary(1);
const two = summary(2);
const ratio = (k) => two[k] / one[k];
printTable(
  `Two Engines against one on one PostgreSQL database (fsync on): ${String(SESSIONS)} sessions, ${String(TURNS)} turns each, model ${String(LATENCY)} ms, ${String(RUNS)} runs; load ${loadavg()
    .map((x) => x.toFixed(1))
    .join(" ")}`,
  [
    one,
    two,
    {
      layout: "2 Engines / 1 Engine",
      ...Object.fromEntries(
        Object.keys(one)
          .slice(1)
          .map((k) => [k, `${ratio(k).toFixed(2)}x`]),
      ),
    },
  ],
);
console.log(
  `written ${writeResult("engines-postgres", { sessions: SESSIONS, turns: TURNS, runs: RUNS, latencyMs: LATENCY, one, two, loadavg: loadavg() })}`,
);
