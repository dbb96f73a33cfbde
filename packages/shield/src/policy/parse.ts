/**
 * Reads a policy from YAML text and validates every field, reporting each problem with
 * file:line:col. A policy with any problem is refused as a whole (PolicyError).
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import picomatch from "picomatch";
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node, type Pair } from "yaml";
import { PolicyError, type PolicyProblem } from "../errors.js";
import type { Decision, SessionMode } from "../types.js";
import type { Policy, PolicyRule, RuleWhen } from "./types.js";
import { compileArgRegex, validateHostPattern } from "./match.js";
import { validateCommandPattern } from "./command-pattern.js";
import { checkSemantics, SEMANTIC_KINDS } from "../semantics/parse.js";
import { BUILTIN_POLICIES, builtinPolicyPath, isBuiltinPolicy } from "./builtin.js";
import { extendPolicy } from "./extend.js";
import { readFlow, readSaw } from "./parse-flow.js";

const DECISIONS: Record<string, Decision> = {
  allow: "allow",
  block: "block",
  escalate: "escalate",
  ask: "escalate",
  deny: "block",
};
const MODES = new Set<SessionMode>(["normal", "otr", "heartbeat"]);
const TOP_KEYS = [
  "version",
  "name",
  "description",
  "extends",
  "defaults",
  "rate_limit",
  "cache",
  "detectors",
  "semantics",
  "rules",
];
const RULE_KEYS = [
  "id",
  "description",
  "decision",
  "reason",
  "tools",
  "kinds",
  "paths",
  "commands",
  "args",
  "hosts",
  "email_domains",
  "methods",
  "flow",
  "when",
];

export class Reader {
  readonly problems: PolicyProblem[] = [];
  constructor(
    private readonly file: string,
    private readonly lc: LineCounter,
  ) {}

  pos(node: Node | Pair | null | undefined): { line: number; col: number } {
    const range = node !== null && node !== undefined && "range" in node ? node.range : undefined;
    const key = node !== null && node !== undefined && "key" in node ? (node.key as Node | null) : undefined;
    const offset = range?.[0] ?? key?.range?.[0] ?? 0;
    return this.lc.linePos(offset);
  }

  problem(node: Node | Pair | null | undefined, message: string): void {
    const { line, col } = this.pos(node);
    this.problems.push({ file: this.file, line, col, message });
  }

  map(node: unknown, what: string, allowed: string[]): Map<string, { pair: Pair; value: Node | null }> {
    const out = new Map<string, { pair: Pair; value: Node | null }>();
    if (!isMap(node)) {
      this.problem(node as Node, `${what} must be a mapping`);
      return out;
    }
    for (const pair of node.items) {
      const k = isScalar(pair.key) ? String(pair.key.value) : "";
      if (!allowed.includes(k)) {
        this.problem(pair.key as Node, `unknown key "${k}" in ${what} (allowed: ${allowed.join(", ")})`);
        continue;
      }
      out.set(k, { pair, value: pair.value as Node | null });
    }
    return out;
  }

  str(node: Node | null | undefined, what: string): string | undefined {
    if (isScalar(node) && (typeof node.value === "string" || typeof node.value === "number")) return String(node.value);
    this.problem(node, `${what} must be a string`);
    return undefined;
  }

  num(node: Node | null | undefined, what: string): number | undefined {
    if (isScalar(node) && typeof node.value === "number" && Number.isFinite(node.value) && node.value >= 0)
      return node.value;
    this.problem(node, `${what} must be a non-negative number`);
    return undefined;
  }

  strList(node: Node | null | undefined, what: string): { value: string; node: Node }[] {
    if (isScalar(node) && typeof node.value === "string") return [{ value: node.value, node }];
    if (!isSeq(node)) {
      this.problem(node, `${what} must be a string or a list of strings`);
      return [];
    }
    const out: { value: string; node: Node }[] = [];
    for (const item of node.items) {
      const s = this.str(item as Node, `each item of ${what}`);
      if (s !== undefined) out.push({ value: s, node: item as Node });
    }
    return out;
  }

  decision(node: Node | null | undefined, what: string): Decision | undefined {
    const s = this.str(node, what);
    if (s === undefined) return undefined;
    const d = DECISIONS[s.toLowerCase()];
    if (d === undefined) this.problem(node, `${what} must be allow, ask, escalate or block (got "${s}")`);
    return d;
  }
}

function checkGlob(r: Reader, g: { value: string; node: Node }, what: string): boolean {
  const unknownVar = /\$\{(?!(workspace|home)\})[^}]*\}?/.exec(g.value);
  const plain = g.value.replace(/\$\{(workspace|home)\}/g, "/x");
  const bad =
    /[\0\n]/.test(g.value) || g.value.trim() === ""
      ? "is empty or contains a control character"
      : unknownVar !== null
        ? `unknown variable ${unknownVar[0]} (use \${workspace} or \${home})`
        : unbalanced(plain);
  if (bad !== undefined) {
    r.problem(g.node, `bad glob "${g.value}" in ${what}: ${bad}`);
    return false;
  }
  try {
    picomatch.makeRe(plain);
    return true;
  } catch (e) {
    r.problem(g.node, `bad glob "${g.value}" in ${what}: ${(e as Error).message}`);
    return false;
  }
}

function unbalanced(g: string): string | undefined {
  let brace = 0;
  let bracket = 0;
  for (let i = 0; i < g.length; i++) {
    const c = g[i];
    if (c === "\\") i++;
    else if (c === "{") brace++;
    else if (c === "}") brace--;
    else if (c === "[") bracket++;
    else if (c === "]") bracket--;
    if (brace < 0 || bracket < 0) return "closing bracket without an opening one";
  }
  if (brace !== 0) return "unbalanced { }";
  if (bracket !== 0) return "unbalanced [ ]";
  return undefined;
}

function readRule(r: Reader, node: Node, ids: Set<string>): PolicyRule | undefined {
  const f = r.map(node, "a rule", RULE_KEYS);
  const before = r.problems.length;
  const id = f.has("id") ? r.str(f.get("id")?.value, "rule id") : undefined;
  if (!f.has("id") && isMap(node)) r.problem(node, "rule has no id");
  if (id !== undefined) {
    if (ids.has(id)) r.problem(f.get("id")?.value, `duplicate rule id "${id}"`);
    ids.add(id);
  }
  const decision = f.has("decision")
    ? r.decision(f.get("decision")?.value, `decision of rule "${id ?? "?"}"`)
    : undefined;
  if (!f.has("decision") && isMap(node)) r.problem(node, `rule "${id ?? "?"}" has no decision`);
  const rule: PolicyRule = { id: id ?? "", decision: decision ?? "block", tools: [], line: r.pos(node).line };
  const where = `rule "${id ?? "?"}"`;
  for (const [key, { value }] of f) {
    switch (key) {
      case "description":
        rule.description = r.str(value, `description of ${where}`);
        break;
      case "reason":
        rule.reason = r.str(value, `reason of ${where}`);
        break;
      case "tools":
        rule.tools = r
          .strList(value, `tools of ${where}`)
          .filter((g) => checkGlob(r, g, `tools of ${where}`))
          .map((g) => g.value);
        break;
      case "paths":
        rule.paths = r
          .strList(value, `paths of ${where}`)
          .filter((g) => checkGlob(r, g, `paths of ${where}`))
          .map((g) => g.value);
        break;
      case "commands":
        rule.commands = r
          .strList(value, `commands of ${where}`)
          .filter((g) => {
            const bad = validateCommandPattern(g.value);
            if (bad !== undefined) r.problem(g.node, `bad command pattern "${g.value}" in ${where}: ${bad}`);
            return bad === undefined;
          })
          .map((g) => g.value);
        break;
      case "hosts":
      case "email_domains": {
        const list = r
          .strList(value, `${key} of ${where}`)
          .filter((g) => {
            const bad = validateHostPattern(g.value);
            if (bad !== undefined)
              r.problem(g.node, `bad ${key === "hosts" ? "host" : "domain"} pattern "${g.value}" in ${where}: ${bad}`);
            return bad === undefined;
          })
          .map((g) => g.value.toLowerCase());
        if (key === "hosts") rule.hosts = list;
        else rule.emailDomains = list;
        break;
      }
      case "methods":
        rule.methods = r.strList(value, `methods of ${where}`).map((m) => m.value.toUpperCase());
        break;
      case "kinds":
        rule.kinds = r
          .strList(value, `kinds of ${where}`)
          .filter((k) => {
            const ok = (SEMANTIC_KINDS as readonly string[]).includes(k.value);
            if (!ok)
              r.problem(k.node, `unknown tool kind "${k.value}" in ${where} (kinds: ${SEMANTIC_KINDS.join(", ")})`);
            return ok;
          })
          .map((k) => k.value);
        break;
      case "args": {
        rule.args = {};
        if (!isMap(value)) r.problem(value, `args of ${where} must be a mapping of argument name to regex`);
        else {
          for (const pair of value.items) {
            const k = isScalar(pair.key) ? String(pair.key.value) : "";
            const src = r.str(pair.value as Node, `regex for argument "${k}" in ${where}`);
            if (src === undefined) continue;
            try {
              compileArgRegex(src);
              rule.args[k] = src;
            } catch (e) {
              r.problem(pair.value as Node, `bad regex for argument "${k}" in ${where}: ${(e as Error).message}`);
            }
          }
        }
        break;
      }
      case "when": {
        const w = r.map(value, `when of ${where}`, ["mode", "sub_agent", "saw"]);
        const when: RuleWhen = {};
        const mode = w.get("mode");
        if (mode !== undefined) {
          when.modes = [];
          for (const m of r.strList(mode.value, `when.mode of ${where}`)) {
            if (MODES.has(m.value as SessionMode)) when.modes.push(m.value as SessionMode);
            else r.problem(m.node, `when.mode of ${where} must be normal, otr or heartbeat (got "${m.value}")`);
          }
        }
        const sa = w.get("sub_agent");
        if (sa !== undefined) {
          if (isScalar(sa.value) && typeof sa.value.value === "boolean") when.subAgent = sa.value.value;
          else r.problem(sa.value, `when.sub_agent of ${where} must be true or false`);
        }
        const saw = w.get("saw");
        if (saw !== undefined) when.saw = readSaw(r, saw.value, `when.saw of ${where}`);
        rule.when = when;
        break;
      }
      case "flow": {
        rule.flow = readFlow(r, value, `flow of ${where}`);
        break;
      }
      default:
        break;
    }
  }
  return r.problems.length === before ? rule : undefined;
}

/** Parses and validates policy YAML. Throws PolicyError listing every problem. */
export function parsePolicy(text: string, file = "<policy>"): Policy {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, uniqueKeys: true, prettyErrors: false });
  const r = new Reader(file, lc);
  for (const e of [...doc.errors, ...doc.warnings]) {
    // Without prettyErrors the error carries its offset only: the line and column come from it.
    const p = e.linePos?.[0] ?? lc.linePos(e.pos[0]);
    r.problems.push({ file, line: p.line, col: p.col, message: `YAML: ${e.message.split("\n")[0] ?? e.code}` });
  }
  if (doc.errors.length > 0) throw new PolicyError(r.problems);
  const top = r.map(doc.contents, "the policy (top level)", TOP_KEYS);
  const policy: Policy = {
    name: "",
    description: "",
    version: "",
    file,
    rules: [],
    unknownTool: "escalate",
    toolDefaults: [],
    rateLimit: { perMinute: 600 },
    cacheTtlMs: 60_000,
    detectors: { disable: [], severity: {} },
    semantics: [],
  };
  const version = top.get("version");
  if (version === undefined) r.problem(doc.contents, 'missing "version: 1"');
  else if (!(isScalar(version.value) && version.value.value === 1)) r.problem(version.value, "version must be 1");
  const name = top.get("name");
  if (name === undefined) r.problem(doc.contents, 'missing "name"');
  else policy.name = r.str(name.value, "name") ?? "";
  const desc = top.get("description");
  if (desc !== undefined) policy.description = r.str(desc.value, "description") ?? "";
  const ext = top.get("extends");
  const base = ext === undefined ? undefined : r.str(ext.value, "extends");
  if (base !== undefined && !isBuiltinPolicy(base))
    r.problem(ext?.value, `extends must name a built-in policy (${BUILTIN_POLICIES.join(", ")}), got "${base}"`);

  let defaultsUnknown = false;
  const defaults = top.get("defaults");
  if (defaults !== undefined) {
    const d = r.map(defaults.value, "defaults", ["unknown_tool", "tools"]);
    const u = d.get("unknown_tool");
    defaultsUnknown = u !== undefined;
    if (u !== undefined) policy.unknownTool = r.decision(u.value, "defaults.unknown_tool") ?? "block";
    const tools = d.get("tools");
    if (tools !== undefined && isMap(tools.value)) {
      for (const pair of tools.value.items) {
        const glob = isScalar(pair.key) ? String(pair.key.value) : "";
        if (!checkGlob(r, { value: glob, node: pair.key as Node }, "defaults.tools")) continue;
        const dec = r.decision(pair.value as Node, `defaults.tools.${glob}`);
        if (dec !== undefined) policy.toolDefaults.push({ glob, decision: dec });
      }
    } else if (tools !== undefined) r.problem(tools.value, "defaults.tools must be a mapping of tool glob to decision");
  }
  const rl = top.get("rate_limit");
  if (rl !== undefined) {
    const m = r.map(rl.value, "rate_limit", ["per_minute"]);
    const pm = m.get("per_minute");
    if (pm !== undefined) policy.rateLimit.perMinute = r.num(pm.value, "rate_limit.per_minute") ?? 0;
  }
  const cache = top.get("cache");
  if (cache !== undefined) {
    const m = r.map(cache.value, "cache", ["ttl_seconds"]);
    const t = m.get("ttl_seconds");
    if (t !== undefined) policy.cacheTtlMs = (r.num(t.value, "cache.ttl_seconds") ?? 0) * 1000;
  }
  const det = top.get("detectors");
  if (det !== undefined) {
    const m = r.map(det.value, "detectors", ["disable", "severity"]);
    const dis = m.get("disable");
    if (dis !== undefined) policy.detectors.disable = r.strList(dis.value, "detectors.disable").map((x) => x.value);
    const sev = m.get("severity");
    if (sev !== undefined && isMap(sev.value)) {
      for (const pair of sev.value.items) {
        const id = isScalar(pair.key) ? String(pair.key.value) : "";
        const s = r.str(pair.value as Node, `detectors.severity.${id}`);
        if (s === "block" || s === "escalate") policy.detectors.severity[id] = s;
        else if (s !== undefined) r.problem(pair.value as Node, `detectors.severity.${id} must be block or escalate`);
      }
    } else if (sev !== undefined)
      r.problem(sev.value, "detectors.severity must be a mapping of detector id to block|escalate");
  }
  const sem = top.get("semantics");
  if (sem !== undefined) {
    if (!isMap(sem.value))
      r.problem(
        sem.value,
        "semantics must be a mapping of tool glob to a semantics block (kind, recipients, hosts, paths, commands, content, model_facing, method)",
      );
    else {
      for (const pair of sem.value.items) {
        const glob = isScalar(pair.key) ? String(pair.key.value) : "";
        if (!checkGlob(r, { value: glob, node: pair.key as Node }, "semantics")) continue;
        const block: unknown = (pair.value as Node | null)?.toJSON();
        const checked = checkSemantics(block, `semantics.${glob}`);
        for (const p of checked.problems) r.problem(pair.value as Node, `${p.path}: ${p.message}`);
        if (checked.spec !== undefined) policy.semantics.push({ glob, block: block as Record<string, unknown> });
      }
    }
  }
  const rules = top.get("rules");
  if (rules === undefined) r.problem(doc.contents, 'missing "rules" (use "rules: []" for a policy without rules)');
  else if (!isSeq(rules.value)) r.problem(rules.value, "rules must be a list");
  else {
    const ids = new Set<string>();
    for (const item of rules.value.items) {
      const rule = readRule(r, item as Node, ids);
      if (rule !== undefined) policy.rules.push(rule);
    }
  }
  if (r.problems.length > 0) throw new PolicyError(r.problems);
  if (base !== undefined && isBuiltinPolicy(base)) {
    const baseFile = builtinPolicyPath(base);
    const baseText = readFileSync(baseFile, "utf8");
    const extended = extendPolicy(policy, parsePolicy(baseText, baseFile), {
      unknownTool: defaultsUnknown,
      rateLimit: rl !== undefined,
      cache: cache !== undefined,
    });
    extended.version = `${policy.name}@${createHash("sha256").update(text).update(baseText).digest("hex").slice(0, 12)}`;
    return extended;
  }
  policy.version = `${policy.name}@${createHash("sha256").update(text).digest("hex").slice(0, 12)}`;
  return policy;
}
