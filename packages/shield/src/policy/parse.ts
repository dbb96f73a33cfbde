/**
 * Reads a policy from YAML text: the YAML read with positions, checked against the policy's JSON
 * Schema (schema.ts, compiled ahead of time), then the checks a schema cannot make (globs,
 * regexes, command and host patterns, provenance names, duplicate ids, semantics blocks). Every
 * problem of the file is reported at once, with its path, line and column; a policy with any
 * problem is refused as a whole (PolicyError).
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import picomatch from "picomatch";
import { pathOf, pathParts, readYaml, schemaProblems, syntaxProblems } from "@palisade/schema";
import type { DataPath, ValidateFunction, YamlFile } from "@palisade/schema";
import { PolicyError, type PolicyProblem } from "./errors.js";
import type { Decision, SessionMode } from "../types.js";
import type { Policy, PolicyRule, RuleWhen } from "./types.js";
import { compileArgRegex, validateHostPattern } from "./match.js";
import { validateCommandPattern } from "./command-pattern.js";
import { checkSemantics } from "../semantics/parse.js";
import { builtinPolicyPath, isBuiltinPolicy } from "./builtin.js";
import { extendPolicy } from "./extend.js";
import { listAt, readFlow, readSaw, type Report } from "./parse-flow.js";
import { validatePolicy as generated } from "./schema.generated.js";

const validate = generated as unknown as ValidateFunction;

const DECISIONS: Record<string, Decision> = {
  allow: "allow",
  block: "block",
  escalate: "escalate",
  ask: "escalate",
  deny: "block",
};

type Obj = Record<string, unknown>;

function checkGlob(report: Report, value: string, at: DataPath, key = false): boolean {
  const unknownVar = /\$\{(?!(workspace|home)\})[^}]*\}?/.exec(value);
  const plain = value.replace(/\$\{(workspace|home)\}/g, "/x");
  const bad =
    /[\0\n]/.test(value) || value.trim() === ""
      ? "is empty or contains a control character"
      : unknownVar !== null
        ? `unknown variable ${unknownVar[0]} (use \${workspace} or \${home})`
        : unbalanced(plain);
  if (bad !== undefined) {
    report.add(at, `bad glob ${JSON.stringify(value)}: ${bad}`, key);
    return false;
  }
  try {
    picomatch.makeRe(plain);
    return true;
  } catch (e) {
    report.add(at, `bad glob ${JSON.stringify(value)}: ${(e as Error).message}`, key);
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

function decisionOf(v: unknown): Decision {
  return DECISIONS[String(v).toLowerCase()] ?? "block";
}

/** A rule of a document the schema accepted at `rules[i]` (wrong parts already reported), or undefined when a check fails. */
function readRule(
  report: Report,
  raw: unknown,
  i: number,
  ids: Map<string, number>,
  yaml: YamlFile,
): PolicyRule | undefined {
  const at: DataPath = ["rules", i];
  const r = obj(raw);
  let ok = true;
  const add = (path: DataPath, message: string): void => {
    ok = false;
    report.add(path, message);
  };
  const id = textOf(r.id) ?? "";
  if (r.id !== undefined) {
    const first = ids.get(id);
    if (first !== undefined) add([...at, "id"], `duplicate rule id ${JSON.stringify(id)} (also rules[${first}])`);
    else ids.set(id, i);
  }
  const rule: PolicyRule = { id, decision: decisionOf(r.decision), tools: [], line: yaml.locate(at)?.line ?? 1 };
  const sub = { add };
  const globs = (key: string): string[] =>
    listAt(r[key], [...at, key])
      .filter((g) => checkGlob(sub, g.value, g.at))
      .map((g) => g.value);
  const description = textOf(r.description);
  if (description !== undefined) rule.description = description;
  const reason = textOf(r.reason);
  if (reason !== undefined) rule.reason = reason;
  if (r.tools !== undefined) rule.tools = globs("tools");
  if (r.paths !== undefined) rule.paths = globs("paths");
  if (r.commands !== undefined)
    rule.commands = listAt(r.commands, [...at, "commands"])
      .filter((g) => {
        const bad = validateCommandPattern(g.value);
        if (bad !== undefined) add(g.at, `bad command pattern ${JSON.stringify(g.value)}: ${bad}`);
        return bad === undefined;
      })
      .map((g) => g.value);
  for (const key of ["hosts", "email_domains"] as const) {
    if (r[key] === undefined) continue;
    const list = listAt(r[key], [...at, key])
      .filter((g) => {
        const bad = validateHostPattern(g.value);
        if (bad !== undefined)
          add(g.at, `bad ${key === "hosts" ? "host" : "domain"} pattern ${JSON.stringify(g.value)}: ${bad}`);
        return bad === undefined;
      })
      .map((g) => g.value.toLowerCase());
    if (key === "hosts") rule.hosts = list;
    else rule.emailDomains = list;
  }
  if (r.methods !== undefined) rule.methods = listAt(r.methods, [...at, "methods"]).map((m) => m.value.toUpperCase());
  if (r.kinds !== undefined) rule.kinds = listAt(r.kinds, [...at, "kinds"]).map((k) => k.value);
  if (r.args !== undefined) {
    rule.args = {};
    for (const [name, src] of Object.entries(obj(r.args))) {
      if (typeof src !== "string" && typeof src !== "number") continue;
      try {
        compileArgRegex(String(src));
        rule.args[name] = String(src);
      } catch (e) {
        add([...at, "args", name], `bad regex: ${(e as Error).message}`);
      }
    }
  }
  if (r.when !== undefined) {
    const w = obj(r.when);
    const when: RuleWhen = {};
    if (w.mode !== undefined) when.modes = listAt(w.mode, [...at, "when", "mode"]).map((m) => m.value as SessionMode);
    if (typeof w.sub_agent === "boolean") when.subAgent = w.sub_agent;
    if (w.saw !== undefined) when.saw = readSaw(sub, w.saw, [...at, "when", "saw"]);
    rule.when = when;
  }
  if (r.flow !== undefined) rule.flow = readFlow(sub, r.flow, [...at, "flow"]);
  return ok ? rule : undefined;
}

/** Parses and validates policy YAML. Throws PolicyError listing every problem. */
export function parsePolicy(text: string, file = "<policy>"): Policy {
  const yaml = readYaml(text, { warningsAreErrors: true });
  const problems: PolicyProblem[] = [];
  const place = (p: { path: string; message: string; line?: number; col?: number }): void => {
    problems.push({ file, path: p.path, message: p.message, line: p.line ?? 1, col: p.col ?? 1 });
  };
  for (const p of syntaxProblems(file, yaml.errors)) place(p);
  if (yaml.data === undefined && yaml.errors.length > 0) throw new PolicyError(problems);
  const raw = yaml.data ?? null;
  if (!validate(raw)) for (const p of schemaProblems(validate.errors, { locate: yaml.locate })) place(p);
  const report: Report = {
    add: (at, message, key = false) => place({ path: pathOf(at), message, ...yaml.locate(at, key) }),
  };
  const root = obj(raw);
  const policy: Policy = {
    name: textOf(root.name) ?? "",
    description: textOf(root.description) ?? "",
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
  const defaults = obj(root.defaults);
  if (defaults.unknown_tool !== undefined) policy.unknownTool = decisionOf(defaults.unknown_tool);
  for (const [glob, d] of Object.entries(obj(defaults.tools)))
    if (checkGlob(report, glob, ["defaults", "tools", glob], true))
      policy.toolDefaults.push({ glob, decision: decisionOf(d) });
  const perMinute = obj(root.rate_limit).per_minute;
  if (typeof perMinute === "number") policy.rateLimit.perMinute = perMinute;
  const ttl = obj(root.cache).ttl_seconds;
  if (typeof ttl === "number") policy.cacheTtlMs = ttl * 1000;
  const detectors = obj(root.detectors);
  policy.detectors.disable = listAt(detectors.disable, ["detectors", "disable"]).map((d) => d.value);
  for (const [id, s] of Object.entries(obj(detectors.severity)))
    if (s === "block" || s === "escalate") policy.detectors.severity[id] = s;
  for (const [glob, block] of Object.entries(obj(root.semantics))) {
    if (!checkGlob(report, glob, ["semantics", glob], true)) continue;
    if (!isObj(block)) continue; // the schema's problem
    const where = `semantics.${glob}`;
    const checked = checkSemantics(block, where);
    for (const p of checked.problems) {
      const rest = p.path.startsWith(where) ? pathParts(p.path.slice(where.length)) : [];
      place({ path: p.path, message: p.message, ...yaml.locate(["semantics", glob, ...rest]) });
    }
    if (checked.spec !== undefined) policy.semantics.push({ glob, block });
  }
  if (Array.isArray(root.rules)) {
    const ids = new Map<string, number>();
    root.rules.forEach((item, i) => {
      const rule = readRule(report, item, i, ids, yaml);
      if (rule !== undefined) policy.rules.push(rule);
    });
  }
  // In file order (stable: the problems of one line keep their order).
  if (problems.length > 0) throw new PolicyError(problems.sort((a, b) => a.line - b.line));
  const base = typeof root.extends === "string" && isBuiltinPolicy(root.extends) ? root.extends : undefined;
  if (base !== undefined) {
    const baseFile = builtinPolicyPath(base);
    const baseText = readFileSync(baseFile, "utf8");
    const extended = extendPolicy(policy, parsePolicy(baseText, baseFile), {
      unknownTool: defaults.unknown_tool !== undefined,
      rateLimit: root.rate_limit !== undefined,
      cache: root.cache !== undefined,
    });
    extended.version = `${policy.name}@${createHash("sha256").update(text).update(baseText).digest("hex").slice(0, 12)}`;
    return extended;
  }
  policy.version = `${policy.name}@${createHash("sha256").update(text).digest("hex").slice(0, 12)}`;
  return policy;
}

/** A text field: a string, or a number read as its text (`id: 42`); the schema refused anything else. */
function textOf(v: unknown): string | undefined {
  return typeof v === "string" || typeof v === "number" ? String(v) : undefined;
}

function obj(v: unknown): Obj {
  return isObj(v) ? v : {};
}

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
