// Runs every benchmark (bench/*.mjs except this file) or the ones named: node bench/run.mjs protocol shield
// Arguments starting with "-" go to every benchmark run, with the value after a "--name value"
// option: node bench/run.mjs history --quick, node bench/run.mjs history --db /tmp/h.db --reuse
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isolateHome, leakMessage } from "../test/setup/home-guard.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const all = readdirSync(here)
  .filter((f) => f.endsWith(".mjs") && f !== "run.mjs")
  .map((f) => f.replace(/\.mjs$/, ""))
  .sort();
const wanted = [];
const forwarded = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (!a.startsWith("-")) wanted.push(a);
  else {
    forwarded.push(a);
    // "--name value": the value belongs to the option, not a benchmark name.
    const next = argv[i + 1];
    if (!a.includes("=") && next !== undefined && !next.startsWith("-") && !all.includes(next))
      forwarded.push(argv[++i]);
  }
}
const unknown = wanted.filter((w) => !all.includes(w));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(", ")}; available: ${all.join(", ")}`);
  process.exit(2);
}
// every benchmark runs with a temporary HOME; the real one must come out unchanged
const home = isolateHome();
let failed = 0;
for (const name of wanted.length > 0 ? wanted : all) {
  console.log(`\n=== ${name} ===`);
  const r = spawnSync(process.execPath, [join(here, `${name}.mjs`), ...forwarded], { stdio: "inherit" });
  if (r.status !== 0) {
    failed++;
    console.error(`benchmark ${name} failed (exit ${r.status ?? r.signal})`);
  }
}
const changed = home.finish();
if (changed.length > 0) {
  console.error(leakMessage(home.realHome, changed));
  failed++;
}
process.exit(failed > 0 ? 1 : 0);
