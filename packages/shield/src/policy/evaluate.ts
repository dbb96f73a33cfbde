/**
 * Tier 0: the manifest's recommended policy, the capability's network policy and the policy
 * rules. Rules are tried in order; the first matching rule decides, except that any matching
 * block rule wins. Criteria of one rule all have to hold. For allow rules every value has to
 * match (every path, command, host, recipient); for block/escalate rules one value is enough.
 */
import { normalizePath } from "../normalize/paths.js";
import type { Subject } from "../normalize/subject.js";
import type { Decision } from "../types.js";
import type { Matcher } from "./match.js";
import { compileArgRegex, emailDomain, globTester, matchHost, pathMatcher, redirectsStayInside } from "./match.js";
import { commandsMatcher } from "./command-pattern.js";
import { manifestDecision, type Policy, type PolicyRule } from "./types.js";
import { flowHolds, sawHolds } from "./flow.js";
import { argumentValues } from "../provenance/attach.js";
import { describeValues } from "../provenance/describe.js";

export interface PolicyOutcome {
  decision: Decision;
  rules: string[];
  reason: string;
  /** True when an explicit rule (or manifest/network policy) decided, false for defaults. */
  explicit: boolean;
}

const toolGlobCache = new Map<string, (s: string) => boolean>();
function toolMatch(glob: string, tool: string): boolean {
  let m = toolGlobCache.get(glob);
  if (m === undefined) {
    m = globTester(glob, { dot: true });
    toolGlobCache.set(glob, m);
  }
  return m(tool);
}

const defaultsMemo = new WeakMap<Policy, Map<string, Policy["toolDefaults"][number] | null>>();
/** The first `tool_defaults` entry whose glob matches the tool (memoized per policy, bounded). */
function toolDefault(policy: Policy, tool: string): Policy["toolDefaults"][number] | undefined {
  let memo = defaultsMemo.get(policy);
  if (memo === undefined) {
    memo = new Map();
    defaultsMemo.set(policy, memo);
  }
  let def = memo.get(tool);
  if (def === undefined) {
    def = policy.toolDefaults.find((t) => toolMatch(t.glob, tool)) ?? null;
    if (memo.size > 256) memo.clear();
    memo.set(tool, def);
  }
  return def ?? undefined;
}

/** Per rule: one matcher for its tool globs, path matchers per (home, workspace). */
interface Compiled {
  tools: ((tool: string) => boolean) | undefined;
  /** Tool names already tested against `tools` (few distinct names: bounded memo). */
  toolHits: Map<string, boolean>;
  paths: Map<string, ((p: string) => boolean)[]>;
  last?: { home: string; workspace: string; matchers: ((p: string) => boolean)[] };
}
const compiled = new WeakMap<PolicyRule, Compiled>();
function compile(rule: PolicyRule): Compiled {
  let c = compiled.get(rule);
  if (c === undefined) {
    let tools: ((tool: string) => boolean) | undefined;
    if (rule.tools.length > 0) {
      const tests = rule.tools.map((g) => globTester(g, { dot: true }));
      tools = (t) => tests.some((m) => m(t));
    }
    c = { tools, toolHits: new Map(), paths: new Map() };
    compiled.set(rule, c);
  }
  return c;
}
function rulePathMatchers(rule: PolicyRule, c: Compiled, home: string, workspace: string): ((p: string) => boolean)[] {
  // almost every evaluation uses the same home and workspace as the previous one
  if (c.last !== undefined && c.last.home === home && c.last.workspace === workspace) return c.last.matchers;
  const key = `${home}\u0000${workspace}`;
  let m = c.paths.get(key);
  if (m === undefined) {
    m = (rule.paths ?? []).map((g) => pathMatcher(g, home, workspace));
    if (c.paths.size > 64) c.paths.clear();
    c.paths.set(key, m);
  }
  c.last = { home, workspace, matchers: m };
  return m;
}

const argRegexCache = new Map<string, Matcher>();
function argRegex(src: string): Matcher {
  let re = argRegexCache.get(src);
  if (re === undefined) {
    re = compileArgRegex(src);
    argRegexCache.set(src, re);
  }
  return re;
}

/** allow rules: every value must match (vacuously true only when `vacuous`); others: one value. */
function quantify<T>(values: T[], allow: boolean, test: (v: T) => boolean, vacuous = false): boolean {
  if (values.length === 0) return allow && vacuous;
  return allow ? values.every(test) : values.some(test);
}

export function ruleMatches(rule: PolicyRule, s: Subject): boolean {
  const allow = rule.decision === "allow";
  const { ctx } = s;
  if (rule.when?.modes !== undefined && !rule.when.modes.includes(ctx.mode)) return false;
  if (rule.when?.subAgent !== undefined && rule.when.subAgent !== (ctx.subAgent !== undefined)) return false;
  const c = compile(rule);
  if (c.tools !== undefined) {
    let hit = c.toolHits.get(s.tool);
    if (hit === undefined) {
      hit = c.tools(s.tool);
      if (c.toolHits.size > 256) c.toolHits.clear();
      c.toolHits.set(s.tool, hit);
    }
    if (!hit) return false;
  }
  if (rule.kinds !== undefined && !rule.kinds.includes(s.kind === "third-party" ? "other" : s.kind)) return false;
  if (rule.methods !== undefined) {
    const m = s.args[s.spec.method ?? "method"];
    const method = typeof m === "string" ? m.toUpperCase() : (s.spec.defaultMethod ?? "GET");
    if (!rule.methods.includes(method)) return false;
  }
  if (rule.args !== undefined) {
    for (const [key, src] of Object.entries(rule.args)) {
      const v = s.strings.get(key) ?? (s.args[key] === undefined ? undefined : JSON.stringify(s.args[key]));
      if (v === undefined || !argRegex(src).test(v)) return false;
    }
  }
  if (rule.paths !== undefined) {
    const globs = rulePathMatchers(rule, c, ctx.home, ctx.workspace);
    if (!quantify(s.paths, allow, (p) => p.nameable && globs.some((m) => m(p.path)), true)) return false;
  }
  if (rule.commands !== undefined) {
    if (allow && (s.shellErrors.length > 0 || s.limits.length > 0)) return false;
    const re = commandsMatcher(rule.commands, allow);
    const cwd = typeof s.args["cwd"] === "string" ? normalizePath(s.args["cwd"], ctx) : ctx.workspace;
    const resolve = (t: string): string => normalizePath(t, ctx, cwd);
    const ok = (c: Subject["commands"][number]): boolean =>
      re.test(c.name, c.args) && (!allow || (c.hazard === undefined && redirectsStayInside(c, ctx.workspace, resolve)));
    if (!quantify(s.commands, allow, ok, true)) return false;
  }
  if (rule.hosts !== undefined) {
    const hosts = rule.hosts;
    if (
      !quantify(
        s.urls.filter((u) => u.active),
        allow,
        (u) => hosts.some((h) => matchHost(h, u.host, u.port)),
      )
    )
      return false;
  }
  if (rule.emailDomains !== undefined) {
    const doms = rule.emailDomains;
    if (!quantify(s.recipients, allow, (r) => doms.some((d) => matchHost(d, emailDomain(r), "")))) return false;
  }
  if (rule.when?.saw !== undefined && !sawHolds(rule.when.saw, s)) return false;
  if (rule.flow !== undefined && !rule.flow.every((c) => flowHolds(c, s, allow))) return false;
  return true;
}

function networkOutcome(s: Subject): PolicyOutcome | undefined {
  const net = s.ctx.network;
  if (net === undefined || net.mode === "any") return undefined;
  const active = s.urls.filter((u) => u.active);
  if (active.length === 0) return undefined;
  if (net.mode === "none") {
    return {
      decision: "block",
      rules: ["network:none"],
      reason: `the tool's network policy is "none" but it would contact ${active[0]?.host ?? "a host"}`,
      explicit: true,
    };
  }
  const allow = net.allow ?? [];
  const outside = active.find((u) => !allow.some((h) => matchHost(h, u.host, u.port)));
  if (outside === undefined) return undefined;
  return {
    decision: "block",
    rules: ["network:allowlist"],
    reason: `host ${outside.host}${outside.port ? `:${outside.port}` : ""} is not in the tool's network allowlist`,
    explicit: true,
  };
}

/** A flow rule that stops a call says where each value it looked at came from. */
function withFlows(rule: PolicyRule, s: Subject, reason: string): string {
  if (rule.flow === undefined || rule.decision === "allow") return reason;
  const values = argumentValues(s) ?? [];
  const said = rule.flow.map((c) => describeValues(values, c.roles, c.from)).filter((x) => x !== "");
  return said.length === 0 ? reason : `${reason}: ${said.join("; ")}`;
}

export function evaluatePolicy(policy: Policy, s: Subject): PolicyOutcome {
  const manifest = s.ctx.manifestPolicy;
  if (manifest === "block")
    return {
      decision: "block",
      rules: ["manifest:block"],
      reason: `the manifest of ${s.tool} recommends block`,
      explicit: true,
    };
  const net = networkOutcome(s);
  if (net !== undefined) return net;
  let first: PolicyRule | undefined;
  for (const rule of policy.rules) {
    if (first !== undefined && rule.decision !== "block") continue;
    if (!ruleMatches(rule, s)) continue;
    if (rule.decision === "block")
      return {
        decision: "block",
        rules: [rule.id],
        reason: withFlows(rule, s, rule.reason ?? rule.description ?? `blocked by policy rule ${rule.id}`),
        explicit: true,
      };
    first ??= rule;
  }
  if (first !== undefined) {
    const verb = first.decision === "allow" ? "allowed" : "needs approval";
    return {
      decision: first.decision,
      rules: [first.id],
      reason: withFlows(first, s, first.reason ?? first.description ?? `${verb} by policy rule ${first.id}`),
      explicit: true,
    };
  }
  if (manifest !== undefined) {
    const d = manifestDecision(manifest);
    return {
      decision: d,
      rules: [`manifest:${manifest}`],
      reason: `manifest recommended policy for ${s.tool} is ${manifest}`,
      explicit: false,
    };
  }
  const def = toolDefault(policy, s.tool);
  if (def !== undefined)
    return {
      decision: def.decision,
      rules: [`default:${def.glob}`],
      reason: `policy default for ${s.tool} is ${def.decision}`,
      explicit: false,
    };
  return {
    decision: policy.unknownTool,
    rules: ["default:unknown-tool"],
    reason: `no rule covers ${s.tool}; policy default for unknown tools is ${policy.unknownTool}`,
    explicit: false,
  };
}
