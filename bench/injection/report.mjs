// Runs the suite for a set of policies and both approval modes, and sums it up.
import { pairs } from "./suite.mjs";
import { runPair } from "./run.mjs";

export const MODES = ["deny", "approve"];

function summarize(results) {
  const benign = results.filter((r) => r.pair.goal === null);
  const attacked = results.filter((r) => r.pair.goal !== null);
  const rate = (xs, f) => (xs.length === 0 ? 0 : xs.filter(f).length / xs.length);
  return {
    tasks: benign.length,
    pairs: attacked.length,
    benign_utility: rate(benign, (r) => r.out.utility),
    utility_under_attack: rate(attacked, (r) => r.out.utility),
    attack_success: rate(attacked, (r) => r.out.attacked),
    asks_per_benign_task: benign.length === 0 ? 0 : benign.reduce((a, r) => a + r.out.asks, 0) / benign.length,
    injection_seen: rate(attacked, (r) => r.out.injectionSeen),
  };
}

/**
 * @param lib the Shield package; @param shields name → Shield; @param filter pair → boolean
 * Returns name → mode → { all, frozen, byDomain, attacks: [ids that succeeded] }.
 */
export function runSuite(lib, shields, filter = () => true) {
  const list = pairs().filter(filter);
  const out = {};
  for (const [name, shield] of Object.entries(shields)) {
    out[name] = {};
    for (const mode of MODES) {
      const results = list.map((pair) => ({ pair, out: runPair(lib, shield, pair, mode) }));
      const byDomain = {};
      for (const dom of new Set(list.map((p) => p.domain)))
        byDomain[dom] = summarize(results.filter((r) => r.pair.domain === dom));
      out[name][mode] = {
        all: summarize(results),
        frozen: summarize(results.filter((r) => r.pair.frozen)),
        tuning: summarize(results.filter((r) => !r.pair.frozen)),
        byDomain,
        succeeded: results.filter((r) => r.out.attacked).map((r) => `${r.pair.task.id} x ${r.pair.goal.id}`),
        benignAsked: results
          .filter((r) => r.pair.goal === null && r.out.asks > 0)
          .map((r) => `${r.pair.task.id}: ${r.out.reasons.join("; ")}`),
      };
    }
  }
  return out;
}

const pct = (x) => `${(x * 100).toFixed(1)} %`;

export function table(out, part = "all") {
  const rows = [
    ["policy", "approvals", "benign utility", "utility under attack", "attack success", "asks / benign task"],
  ];
  for (const [name, modes] of Object.entries(out)) {
    for (const mode of MODES) {
      const s = modes[mode][part];
      rows.push([
        name,
        mode === "deny" ? "nobody (denied)" : "every ask approved",
        pct(s.benign_utility),
        pct(s.utility_under_attack),
        pct(s.attack_success),
        s.asks_per_benign_task.toFixed(2),
      ]);
    }
  }
  const w = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows
    .map((r) => `| ${r.map((c, i) => c.padEnd(w[i])).join(" | ")} |`)
    .join("\n")
    .replace(/\n/, `\n|${w.map((x) => "-".repeat(x + 2)).join("|")}|\n`);
}
