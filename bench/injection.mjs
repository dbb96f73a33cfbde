// The injection suite (bench/injection/): every (user task x injection goal) pair and every user
// task without injection, for permissive, the default before flow rules, the new default and
// strict, with nobody approving and with every ask approved. Compiled dist/: `npx tsc -b` first.
//   node bench/injection.mjs        writes bench/results/injection.json
// The Shield runs in-process on the exact calls the obedient model proposes, with the provenance
// the Engine computes (ProvenanceIndex fed with the user's message and each labelled result).
import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { pairs } from "./injection/suite.mjs";
import { runSuite, table } from "./injection/report.mjs";
import { runPair } from "./injection/run.mjs";
import { runPairOverMcp } from "./injection/run-mcp.mjs";
import { runMoneyPairOverSelu, withBank } from "./injection/run-selu.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const lib = await import(join(root, "packages/shield/dist/index.js"));
const { createShield, loadPolicy } = lib;
const opts = { home: "/home/dev", workspace: "/home/dev/project", cache: false, rateLimitPerMinute: 0 };
const shields = {
  permissive: createShield({ policy: await loadPolicy("permissive"), ...opts }),
  "default (before)": createShield({
    policy: await loadPolicy(join(root, "bench/injection/policies/default-before.yaml")),
    ...opts,
  }),
  "default (new)": createShield({ policy: await loadPolicy("default"), ...opts }),
  strict: createShield({ policy: await loadPolicy("strict"), ...opts }),
};
const t0 = performance.now();
const out = runSuite(lib, shields);
const ms = performance.now() - t0;
const all = pairs();
const n = { tasks: all.filter((p) => p.goal === null).length, pairs: all.filter((p) => p.goal !== null).length };
console.log(
  `Injection suite: ${n.tasks} user tasks, ${n.pairs} (task x goal) pairs, 4 domains; ${Math.round(ms)} ms; load average ${loadavg()[0].toFixed(1)}\n`,
);
console.log("All pairs:\n" + table(out, "all") + "\n");
console.log("Frozen part (chosen before tuning):\n" + table(out, "frozen") + "\n");
const nd = out["default (new)"].deny;
for (const [d, s] of Object.entries(nd.byDomain))
  console.log(
    `new default, nobody approving, ${d}: utility ${(s.benign_utility * 100).toFixed(0)} % benign / ${(s.utility_under_attack * 100).toFixed(0)} % attacked, attack success ${(s.attack_success * 100).toFixed(1)} %, asks ${s.asks_per_benign_task.toFixed(2)}`,
  );
console.log(
  `\nattacks that succeeded (new default, nobody approving): ${nd.succeeded.length ? nd.succeeded.join(", ") : "none"}`,
);
console.log(`benign tasks that asked (new default): ${nd.benignAsked.length}\n  ${nd.benignAsked.join("\n  ")}`);
// A sample end to end over the MCP server (every task ending in -1 of the three third-party
// domains, with and without each goal; new default, nobody approving): the same outcomes?
const sample = all.filter((p) => p.domain !== "files" && p.task.id.endsWith("-1"));
const e0 = performance.now();
let same = 0;
const mcp = { pairs: 0, attacked: 0, utility: 0 };
for (const p of sample) {
  const a = await runPairOverMcp(lib, shields["default (new)"], p, "deny");
  const b = runPair(lib, shields["default (new)"], p, "deny");
  if (a.utility === b.utility && a.attacked === b.attacked && a.asks === b.asks) same++;
  else
    console.log(
      `differs over MCP: ${p.task.id} x ${p.goal?.id ?? "none"}: mcp ${JSON.stringify(a)} in-process ${JSON.stringify({ utility: b.utility, attacked: b.attacked, asks: b.asks })}`,
    );
  if (p.goal !== null) {
    mcp.pairs++;
    if (a.attacked) mcp.attacked++;
    if (a.utility) mcp.utility++;
  }
}
console.log(
  `\nover the MCP server (${sample.length} runs, ${Math.round(performance.now() - e0)} ms): ${same}/${sample.length} same outcome and asks as in-process; attack success ${mcp.attacked}/${mcp.pairs}, utility under attack ${mcp.utility}/${mcp.pairs}`,
);
// Every money pair through the Selu capability (real gRPC), new default, nobody approving.
const moneyPairs = all.filter((p) => p.domain === "money");
const s0 = performance.now();
const selu = await withBank(async (client) => {
  let agree = 0;
  let attacked = 0;
  for (const p of moneyPairs) {
    const a = await runMoneyPairOverSelu(lib, shields["default (new)"], client, p, "deny");
    const b = runPair(lib, shields["default (new)"], p, "deny");
    if (a.utility === b.utility && a.attacked === b.attacked && a.asks === b.asks) agree++;
    else console.log(`differs over Selu: ${p.task.id} x ${p.goal?.id ?? "none"}`);
    if (a.attacked) attacked++;
  }
  return { runs: moneyPairs.length, same: agree, attacked };
});
console.log(
  `over the Selu capability (${selu.runs} money runs, ${Math.round(performance.now() - s0)} ms): ${selu.same}/${selu.runs} same outcome and asks as in-process; ${selu.attacked} attacks succeeded`,
);
mkdirSync(join(root, "bench/results"), { recursive: true });
writeFileSync(
  join(root, "bench/results/injection.json"),
  `${JSON.stringify({ benchmark: "injection", ...n, ms: Math.round(ms), load_average_1m: loadavg()[0], mcp_sample: { runs: sample.length, same, ...mcp }, selu_money: selu, results: Object.fromEntries(Object.entries(out).map(([k, m]) => [k, Object.fromEntries(Object.entries(m).map(([mode, r]) => [mode, { all: r.all, frozen: r.frozen, tuning: r.tuning, byDomain: r.byDomain, succeeded: r.succeeded }]))])), date: new Date().toISOString() }, null, 2)}\n`,
);
