// Runs every benchmark (bench/*.mjs except this file) or the ones named: node bench/run.mjs protocol shield
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const all = readdirSync(here).filter((f) => f.endsWith(".mjs") && f !== "run.mjs").map((f) => f.replace(/\.mjs$/, "")).sort();
const wanted = process.argv.slice(2).filter((a) => !a.startsWith("-"));
const unknown = wanted.filter((w) => !all.includes(w));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(", ")}; available: ${all.join(", ")}`);
  process.exit(2);
}
let failed = 0;
for (const name of wanted.length > 0 ? wanted : all) {
  console.log(`\n=== ${name} ===`);
  const r = spawnSync(process.execPath, [join(here, `${name}.mjs`)], { stdio: "inherit" });
  if (r.status !== 0) {
    failed++;
    console.error(`benchmark ${name} failed (exit ${r.status ?? r.signal})`);
  }
}
process.exit(failed > 0 ? 1 : 0);
