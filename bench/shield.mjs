// Shield tiers 0-1 latency on the labelled corpus (compiled dist/). Run `npx tsc -b` first.
// Baseline measured in the same run: the cost of hashing the canonical action (the cache-key
// floor every evaluation pays) and of a cache hit.
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { createShield, loadPolicy } = await import(join(root, "packages/shield/dist/index.js"));

const read = (f) => readFileSync(join(root, "packages/shield/corpus", f), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
const cases = [...read("attacks.jsonl"), ...read("legit.jsonl")].map((c) => ({
  action: { tool: c.tool, args: c.args ?? {} },
  context: { mode: c.context?.mode, subAgent: c.context?.sub_agent, manifestPolicy: c.context?.manifest_policy, network: c.context?.network, workspace: "/home/dev/project", home: "/home/dev" },
}));
const rounds = Number(process.env.ROUNDS ?? 20);
const policy = await loadPolicy("default");
const shield = createShield({ policy, cache: false, rateLimitPerMinute: 0, home: "/home/dev", workspace: "/home/dev/project" });
const cached = createShield({ policy, rateLimitPerMinute: 0, home: "/home/dev", workspace: "/home/dev/project" });

function measure(fn) {
  for (let r = 0; r < 3; r++) for (const c of cases) fn(c); // warm-up
  const samples = [];
  const t0 = process.hrtime.bigint();
  for (let r = 0; r < rounds; r++) {
    for (const c of cases) {
      const s = process.hrtime.bigint();
      fn(c);
      samples.push(Number(process.hrtime.bigint() - s) / 1000);
    }
  }
  const totalS = Number(process.hrtime.bigint() - t0) / 1e9;
  samples.sort((a, b) => a - b);
  const q = (p) => samples[Math.min(samples.length - 1, Math.floor(p * samples.length))];
  return { n: samples.length, p50_us: +q(0.5).toFixed(1), p90_us: +q(0.9).toFixed(1), p99_us: +q(0.99).toFixed(1), max_us: +samples[samples.length - 1].toFixed(1), evals_per_s: Math.round(samples.length / totalS) };
}

const results = {
  baseline_hash: measure((c) => createHash("sha256").update(JSON.stringify(c.action)).digest("base64")),
  cache_hit: measure((c) => cached.evaluateSync(c.action, c.context)),
  tiers_0_1: measure((c) => shield.evaluateSync(c.action, c.context)),
};
const out = { benchmark: "shield", node: process.version, cases: cases.length, rounds, policy: policy.version, goal_p99_us: 200, results, date: new Date().toISOString() };
console.log(`Shield tiers 0-1 on ${cases.length} corpus cases x ${rounds} rounds (${policy.version}, Node ${process.version})`);
console.log(`${"measurement".padEnd(14)} ${"p50 µs".padStart(8)} ${"p90 µs".padStart(8)} ${"p99 µs".padStart(8)} ${"max µs".padStart(9)} ${"evals/s".padStart(9)}`);
for (const [k, r] of Object.entries(results)) console.log(`${k.padEnd(14)} ${String(r.p50_us).padStart(8)} ${String(r.p90_us).padStart(8)} ${String(r.p99_us).padStart(8)} ${String(r.max_us).padStart(9)} ${String(r.evals_per_s).padStart(9)}`);
console.log(`goal p99 < 200 µs: ${results.tiers_0_1.p99_us < 200 ? "met" : "NOT met"}`);
mkdirSync(join(root, "bench/results"), { recursive: true });
writeFileSync(join(root, "bench/results/shield.json"), `${JSON.stringify(out, null, 2)}\n`);
