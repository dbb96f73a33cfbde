/**
 * What the active policy says about a tool before any call is made, for people reading a tool
 * list: the decision a call gets when no argument-dependent rule matches it (the same order as
 * evaluatePolicy: a manifest `block`, the policy's unconditional rules, the manifest's
 * recommendation, the policy's default for the tool), and the rules that decide some calls
 * differently depending on their arguments. Detectors (tier 1) still judge every call.
 */
import type { Decision, ManifestPolicy, SessionMode } from "../types.js";
import { globTester } from "./match.js";
import { manifestDecision, type Policy, type PolicyRule } from "./types.js";

export interface ToolPolicy {
  decision: Decision;
  /** Where `decision` comes from: `rule:<id>`, `manifest`, `default:<glob>` or `unknown-tool`. */
  source: string;
  /** Rules that decide some calls of the tool depending on their arguments, in policy order. */
  rules: { id: string; decision: Decision; description: string }[];
}

export interface ToolPolicyContext {
  manifestPolicy?: ManifestPolicy | undefined;
  /** The tool's semantic kind (`file-write`, `shell`, ...), for rules that select tools by kind. */
  kind?: string | undefined;
  mode?: SessionMode;
  subAgent?: boolean;
}

const CONDITIONS = ["paths", "commands", "args", "hosts", "emailDomains", "methods", "flow"] as const;

function appliesTo(rule: PolicyRule, tool: string, ctx: ToolPolicyContext): boolean {
  if (rule.when?.modes !== undefined && !rule.when.modes.includes(ctx.mode ?? "normal")) return false;
  if (rule.when?.subAgent !== undefined && rule.when.subAgent !== (ctx.subAgent ?? false)) return false;
  if (rule.tools.length > 0 && !rule.tools.some((g) => globTester(g, { dot: true })(tool))) return false;
  if (
    rule.kinds !== undefined &&
    !rule.kinds.includes(ctx.kind === "third-party" || ctx.kind === undefined ? "other" : ctx.kind)
  )
    return false;
  return true;
}

function describeRule(rule: PolicyRule): string {
  if (rule.description) return rule.description;
  const parts = CONDITIONS.flatMap((c) => {
    const v = rule[c];
    if (v === undefined) return [];
    if (c === "flow") return rule.flow?.map((f) => `${f.roles.join("|")} from ${f.from.join("|")}`) ?? [];
    const list = v as string[] | Record<string, string>;
    return [
      `${c} ${Array.isArray(list) ? list.slice(0, 4).join(", ") + (list.length > 4 ? ", …" : "") : Object.keys(list).join(", ")}`,
    ];
  });
  return parts.join("; ");
}

export function toolPolicy(policy: Policy, tool: string, ctx: ToolPolicyContext = {}): ToolPolicy {
  if (ctx.manifestPolicy === "block") return { decision: "block", source: "manifest", rules: [] };
  const rules: ToolPolicy["rules"] = [];
  let first: PolicyRule | undefined;
  let block: PolicyRule | undefined;
  for (const rule of policy.rules) {
    if (!appliesTo(rule, tool, ctx)) continue;
    const conditional = CONDITIONS.some((c) => rule[c] !== undefined) || rule.when?.saw !== undefined;
    if (conditional) {
      rules.push({ id: rule.id, decision: rule.decision, description: describeRule(rule) });
      continue;
    }
    first ??= rule;
    if (rule.decision === "block") block ??= rule;
  }
  // As in evaluation: the first matching rule decides, but any matching block rule wins.
  const decider = block ?? first;
  if (decider !== undefined) return { decision: decider.decision, source: `rule:${decider.id}`, rules };
  if (ctx.manifestPolicy !== undefined)
    return { decision: manifestDecision(ctx.manifestPolicy), source: "manifest", rules };
  const def = policy.toolDefaults.find((d) => globTester(d.glob, { dot: true })(tool));
  if (def !== undefined) return { decision: def.decision, source: `default:${def.glob}`, rules };
  return { decision: policy.unknownTool, source: "unknown-tool", rules };
}
