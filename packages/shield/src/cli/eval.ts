/**
 * `palisade shield eval FILE.jsonl`: one verdict line per case on stdout, a summary on stderr.
 * `palisade shield eval --set NAME [--json]`: a shipped case set, its per-category table on stdout.
 */
import { readFile } from "node:fs/promises";
import { createInterface } from "node:readline";
import { Readable } from "node:stream";
import type { Judge } from "../judge/types.js";
import type { Policy } from "../policy/types.js";
import { createShield } from "../shield.js";
import type { Decision, Verdict } from "../types.js";
import type { CliIO } from "./format.js";
import { caseContext, evaluateCorpusSet, formatReport } from "../corpus/evaluate.js";
import { CORPUS_SETS, isCorpusSet, parseCases } from "../corpus/sets.js";

interface Row {
  label?: string;
  category?: string;
  decision: Decision;
  latencyUs: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** Confusion table by label and category: rows "label/category  n  allow  escalate  block". */
export function confusionTable(rows: { label?: string; category?: string; decision: Decision }[]): string {
  const groups = new Map<string, Record<Decision, number>>();
  for (const r of rows) {
    if (r.label === undefined) continue;
    const k = `${r.label}/${r.category ?? "-"}`;
    const g = groups.get(k) ?? { allow: 0, escalate: 0, block: 0 };
    g[r.decision]++;
    groups.set(k, g);
  }
  if (groups.size === 0) return "";
  const lines = [
    `${"label/category".padEnd(34)} ${"n".padStart(4)} ${"allow".padStart(6)} ${"escal.".padStart(6)} ${"block".padStart(6)}  stopped`,
  ];
  for (const [k, g] of [...groups].sort((a, b) => a[0].localeCompare(b[0]))) {
    const n = g.allow + g.escalate + g.block;
    lines.push(
      `${k.padEnd(34)} ${String(n).padStart(4)} ${String(g.allow).padStart(6)} ${String(g.escalate).padStart(6)} ${String(g.block).padStart(6)}  ${(((g.escalate + g.block) / n) * 100).toFixed(1).padStart(5)}%`,
    );
  }
  return `${lines.join("\n")}\n`;
}

export async function runEval(file: string, policy: Policy, judge: Judge | undefined, io: CliIO): Promise<number> {
  let lines: AsyncIterable<string> | string[];
  if (file === "-") {
    lines = createInterface({ input: Readable.from(io.stdin ?? process.stdin), crlfDelay: Infinity });
  } else {
    try {
      lines = (await readFile(file, "utf8")).split(/\r?\n/);
    } catch (e) {
      io.stderr.write(`palisade shield: cannot read ${file}: ${(e as Error).message}\n`);
      return 1;
    }
  }
  const shield = createShield({ policy, judge, rateLimitPerMinute: 0, cache: false });
  const rows: Row[] = [];
  let bad = 0;
  let n = 0;
  for await (const line of lines) {
    n++;
    if (line.trim() === "") continue;
    let id: unknown = `line-${n}`;
    let v: Verdict;
    try {
      const raw = JSON.parse(line) as unknown;
      if (
        raw !== null &&
        typeof raw === "object" &&
        !Array.isArray(raw) &&
        (raw as Record<string, unknown>)["id"] !== undefined
      )
        id = (raw as Record<string, unknown>)["id"];
      const [c] = parseCases(line, file);
      if (c === undefined) continue;
      const context = caseContext({ ...c, line: n });
      const action = { tool: c.tool, args: c.args };
      v = judge !== undefined ? await shield.evaluate(action, context) : shield.evaluateSync(action, context);
      rows.push({ label: c.label, category: c.category, decision: v.decision, latencyUs: v.evaluationUs });
    } catch (e) {
      bad++;
      io.stderr.write(`${file}:${n}: ${(e as Error).message.replace(/^.*?:\d+: /, "")}\n`);
      io.stdout.write(
        `${JSON.stringify({ id, decision: "block", tier: 0, rules: ["eval.bad-case"], reason: `bad case: ${(e as Error).message}`, latency_us: 0 })}\n`,
      );
      continue;
    }
    io.stdout.write(
      `${JSON.stringify({ id, decision: v.decision, tier: v.tier, rules: v.rules, reason: v.reason, latency_us: v.evaluationUs })}\n`,
    );
  }
  const lat = rows.map((r) => r.latencyUs).sort((a, b) => a - b);
  const count = (d: Decision): number => rows.filter((r) => r.decision === d).length;
  io.stderr.write(
    `${rows.length} cases (${policy.version}): ${count("allow")} allow, ${count("escalate")} escalate, ${count("block")} block${bad > 0 ? `, ${bad} bad lines` : ""}; latency p50 ${percentile(lat, 50)} µs, p99 ${percentile(lat, 99)} µs\n`,
  );
  io.stderr.write(confusionTable(rows));
  return bad > 0 ? 1 : 0;
}

/** A shipped case set by name: the per-category table (or the whole report as JSON) on stdout. */
export async function runEvalSet(
  set: string,
  policy: Policy,
  judge: Judge | undefined,
  json: boolean,
  io: CliIO,
): Promise<number> {
  if (!isCorpusSet(set)) {
    io.stderr.write(
      `palisade shield: unknown case set "${set}"; the sets are: ${Object.keys(CORPUS_SETS).join(", ")}\n`,
    );
    return 1;
  }
  const r = await evaluateCorpusSet(set, { policy, ...(judge !== undefined ? { judge } : {}) });
  if (json) {
    const results = r.results.map((x) => ({
      id: x.id,
      label: x.label,
      category: x.category,
      decision: x.verdict.decision,
      tier: x.verdict.tier,
      rules: x.verdict.rules,
    }));
    io.stdout.write(
      `${JSON.stringify({ set, policy_version: r.policyVersion, categories: r.categories, attacks: r.attacks, legit: r.legit, latency_us: r.latencyUs, results })}\n`,
    );
  } else {
    io.stdout.write(
      `case set ${set} (${r.results.length} cases, ${r.policyVersion}); latency p50 ${r.latencyUs.p50} µs, p99 ${r.latencyUs.p99} µs\n${formatReport(r)}`,
    );
  }
  return 0;
}
