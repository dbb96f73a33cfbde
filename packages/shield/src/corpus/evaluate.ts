/** Runs labelled cases through a Shield and counts outcomes per label and category. */
import type { Judge } from "../judge/types.js";
import type { Policy } from "../policy/types.js";
import { createShield } from "../shield.js";
import type { Decision, ShieldContext, Verdict } from "../types.js";
import { contextFromJson } from "../cli/context.js";
import { type CorpusSet, type LabelledCase, loadCorpusSet } from "./sets.js";

export interface CaseResult {
  id: string;
  label?: "attack" | "legit";
  category?: string;
  verdict: Verdict;
}

export interface CategoryStats {
  label: "attack" | "legit";
  category: string;
  n: number;
  allow: number;
  escalate: number;
  block: number;
  /** (escalate + block) / n: for attacks the share stopped, for legitimate cases the share interrupted. */
  stopped: number;
}

export interface EvalReport {
  policyVersion: string;
  results: CaseResult[];
  categories: CategoryStats[];
  attacks: { n: number; stopped: number; allowed: string[] };
  legit: { n: number; blocked: string[]; escalated: string[] };
  latencyUs: { p50: number; p99: number };
}

export interface EvalOptions {
  policy: Policy;
  judge?: Judge;
  signal?: AbortSignal;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** The context a case describes, plus its tool's schema or declared semantics when it has them. */
export function caseContext(c: LabelledCase): ShieldContext {
  const ctx = contextFromJson(c.context, `${c.file}:${c.line}`);
  if (c.schema !== undefined) ctx.toolSchema = c.schema;
  if (c.semantics !== undefined) ctx.toolSemantics = c.semantics;
  return ctx;
}

export async function evaluateCases(cases: readonly LabelledCase[], options: EvalOptions): Promise<EvalReport> {
  const shield = createShield({
    policy: options.policy,
    ...(options.judge !== undefined ? { judge: options.judge } : {}),
    rateLimitPerMinute: 0,
    cache: false,
  });
  const results: CaseResult[] = [];
  for (const c of cases) {
    options.signal?.throwIfAborted();
    const action = { tool: c.tool, args: c.args };
    const ctx = caseContext(c);
    const verdict =
      options.judge !== undefined
        ? await shield.evaluate(action, ctx, options.signal)
        : shield.evaluateSync(action, ctx);
    results.push({
      id: c.id,
      ...(c.label !== undefined ? { label: c.label } : {}),
      ...(c.category !== undefined ? { category: c.category } : {}),
      verdict,
    });
  }
  return summarize(results, options.policy.version);
}

export function summarize(results: CaseResult[], policyVersion: string): EvalReport {
  const groups = new Map<string, CategoryStats>();
  for (const r of results) {
    if (r.label === undefined) continue;
    const category = r.category ?? "-";
    const key = `${r.label}/${category}`;
    const g = groups.get(key) ?? { label: r.label, category, n: 0, allow: 0, escalate: 0, block: 0, stopped: 0 };
    g.n++;
    g[r.verdict.decision]++;
    g.stopped = (g.escalate + g.block) / g.n;
    groups.set(key, g);
  }
  const of = (label: string, d?: Decision): string[] =>
    results.filter((r) => r.label === label && (d === undefined || r.verdict.decision === d)).map((r) => r.id);
  const attacks = of("attack");
  const allowed = of("attack", "allow");
  const lat = results.map((r) => r.verdict.evaluationUs).sort((a, b) => a - b);
  return {
    policyVersion,
    results,
    categories: [...groups.values()].sort((a, b) =>
      `${a.label}/${a.category}`.localeCompare(`${b.label}/${b.category}`),
    ),
    attacks: {
      n: attacks.length,
      stopped: attacks.length === 0 ? 0 : (attacks.length - allowed.length) / attacks.length,
      allowed,
    },
    legit: { n: of("legit").length, blocked: of("legit", "block"), escalated: of("legit", "escalate") },
    latencyUs: { p50: percentile(lat, 50), p99: percentile(lat, 99) },
  };
}

/** A named set (`first`, `holdout`, `second`) through the deterministic tiers (or the judge too). */
export async function evaluateCorpusSet(set: CorpusSet, options: EvalOptions): Promise<EvalReport> {
  return evaluateCases(await loadCorpusSet(set), options);
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

/** The per-category table: rows "label/category  n  allow  escalate  block  stopped", then totals. */
export function formatReport(r: EvalReport): string {
  if (r.categories.length === 0) return "";
  const lines = [
    `${"label/category".padEnd(34)} ${"n".padStart(4)} ${"allow".padStart(6)} ${"escal.".padStart(6)} ${"block".padStart(6)}  stopped`,
  ];
  for (const g of r.categories) {
    lines.push(
      `${`${g.label}/${g.category}`.padEnd(34)} ${String(g.n).padStart(4)} ${String(g.allow).padStart(6)} ${String(g.escalate).padStart(6)} ${String(g.block).padStart(6)}  ${pct(g.stopped).padStart(6)}`,
    );
  }
  if (r.attacks.n > 0) lines.push(`attacks stopped: ${pct(r.attacks.stopped)} of ${r.attacks.n}`);
  if (r.legit.n > 0)
    lines.push(
      `legitimate: ${r.legit.blocked.length} blocked, ${pct(r.legit.escalated.length / r.legit.n)} escalated (${r.legit.escalated.length} of ${r.legit.n})`,
    );
  return `${lines.join("\n")}\n`;
}
