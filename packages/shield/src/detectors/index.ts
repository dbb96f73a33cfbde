/** Tier 1: runs every detector over a normalized action and combines the findings. */
import type { Subject } from "../normalize/subject.js";
import type { Finding, Severity } from "../types.js";
import { credentials } from "./credentials.js";
import { delegation } from "./delegation.js";
import { destructive } from "./destructive.js";
import { dlexec } from "./dlexec.js";
import { evasion } from "./evasion.js";
import { exfil, hasEgress } from "./exfil.js";
import { injectionDetectors } from "./injection.js";
import { intent } from "./intent.js";
import { obfuscation } from "./obfuscation.js";
import { persistence } from "./persistence.js";
import { revshell } from "./revshell.js";
import { secrets } from "./secrets.js";
import { ssrf } from "./ssrf.js";
import { tampering } from "./tampering.js";
import type { Detector } from "./types.js";
import { anyOf, isWrite } from "./util.js";

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

export const DETECTORS: readonly Detector[] = [
  ...evasion,
  ...destructive,
  ...dlexec,
  ...revshell,
  ...credentials,
  ...exfil,
  ...persistence,
  ...tampering,
  ...ssrf,
  ...injectionDetectors,
  ...secrets,
  ...obfuscation,
  ...delegation,
  ...intent,
];

export interface DetectorConfig {
  disable: readonly string[];
  severity: Readonly<Record<string, Severity>>;
}

/**
 * Dispatch tables built once. Calling only the detectors whose triggers are present keeps an
 * evaluation to the few functions that can fire: calling every detector on every action cost
 * more than the checks themselves. Detectors keep their order, so findings do too.
 */
const DETECT: readonly Detector["detect"][] = DETECTORS.map((d) => d.detect);
/** Subject facts other than command names, texts and path patterns, as bits. */
const FACTS = {
  paths: 1,
  urls: 2,
  recipients: 4,
  writePaths: 8,
  assignments: 16,
  vars: 32,
  limits: 64,
  shellErrors: 128,
  hiddenText: 256,
  unicodeTricks: 512,
} as const;
/** Per detector: the facts that make it run (0: none of them), and whether it always runs. */
const FACT_MASK: readonly number[] = DETECTORS.map((d) =>
  Object.entries(FACTS).reduce((m, [k, bit]) => (d.when?.[k as keyof typeof FACTS] === true ? m | bit : m), 0),
);
const ALWAYS: readonly boolean[] = DETECTORS.map((d) => d.when === undefined);

function factsOf(s: Subject): number {
  return (
    (s.paths.length > 0 ? FACTS.paths : 0) |
    (s.urls.length > 0 ? FACTS.urls : 0) |
    (s.recipients.length > 0 ? FACTS.recipients : 0) |
    (s.paths.some(isWrite) ? FACTS.writePaths : 0) |
    (hasAssignment(s) ? FACTS.assignments : 0) |
    (s.commands.some((c) => c.vars.length > 0) ? FACTS.vars : 0) |
    (s.limits.length > 0 ? FACTS.limits : 0) |
    (s.shellErrors.length > 0 ? FACTS.shellErrors : 0) |
    (s.views.some((v) => v.origin === "tags") ? FACTS.hiddenText : 0) |
    (s.unicodeTricks.length > 0 ? FACTS.unicodeTricks : 0)
  );
}
/** Text pre-checks and the detectors that wait for them. */
const BY_TEXT = new Map<RegExp, number[]>();
const BY_KIND = new Map<string, number[]>();
/** Path patterns and the detectors that wait for them. */
const BY_PATH = new Map<RegExp, number[]>();
/** Argument name → detectors that read it. */
const BY_ARG = new Map<string, number[]>();
/** Command name → detectors that look at it. */
const BY_NAME = new Map<string, number[]>();
const ON_ANY_COMMAND: number[] = [];
const NAMED_BY: { test: (name: string) => boolean; index: number }[] = [];
const add = (m: Map<string, number[]>, key: string, i: number): void => {
  m.set(key, [...(m.get(key) ?? []), i]);
};
DETECTORS.forEach((d, i) => {
  const c = d.when?.commands;
  if (c === "any") ON_ANY_COMMAND.push(i);
  else for (const name of c ?? []) add(BY_NAME, name, i);
  for (const k of d.when?.kinds ?? []) add(BY_KIND, k, i);
  const text = d.when?.text;
  if (text !== undefined) BY_TEXT.set(text, [...(BY_TEXT.get(text) ?? []), i]);
  const path = d.when?.pathMatches;
  if (path !== undefined) BY_PATH.set(path, [...(BY_PATH.get(path) ?? []), i]);
  for (const a of d.when?.args ?? []) add(BY_ARG, a, i);
  if (d.when?.commandNamed !== undefined) NAMED_BY.push({ test: d.when.commandNamed, index: i });
});

/**
 * The text pre-checks joined into a few gates: most views match none, so one scan per gate
 * settles all its triggers. A family with many patterns (injection, secrets) gets its own gate;
 * the other patterns are joined per flag set. That grouping scanned the corpus fastest: one
 * regex over everything is slower than its parts. Past a few KB even a gate costs more than its
 * parts (nothing to skip ahead with), so long texts are tested pattern by pattern.
 */
const LONG_TEXT = 2048;
const gateOf = (i: number, re: RegExp): string => {
  const category = DETECTORS[i]?.category ?? "";
  return DETECTORS.filter((d) => d.category === category && d.when?.text !== undefined).length >= 3
    ? category
    : `flags:${re.flags}`;
};
const TEXT_GATES: readonly { gate: RegExp; triggers: [RegExp, number[]][] }[] = [
  ...new Set([...BY_TEXT].map(([re, [i = 0]]) => gateOf(i, re))),
].map((key) => {
  const triggers = [...BY_TEXT].filter(([re, [i = 0]]) => gateOf(i, re) === key);
  return { gate: anyOf(triggers.map(([re]) => re)), triggers };
});

function mark(run: boolean[], indexes: readonly number[] | undefined): void {
  if (indexes !== undefined) for (const i of indexes) run[i] = true;
}

function markName(run: boolean[], name: string): void {
  mark(run, BY_NAME.get(name));
  for (const n of NAMED_BY) if (n.test(name)) run[n.index] = true;
}

function hasAssignment(s: Subject): boolean {
  for (const c of s.commands) for (const w of c.argv) if (w.indexOf("=") > 0 && ASSIGNMENT.test(w)) return true;
  return false;
}

/** Which detectors can fire on this subject (by index into DETECTORS). */
function selected(s: Subject): boolean[] {
  const facts = factsOf(s);
  const run = ALWAYS.map((always, i) => always || ((FACT_MASK[i] ?? 0) & facts) !== 0);
  mark(run, BY_KIND.get(s.kind));
  for (const [arg, indexes] of BY_ARG) if (s.args[arg] !== undefined) mark(run, indexes);
  for (const [re, indexes] of BY_PATH) if (s.paths.some((p) => re.test(p.lower))) mark(run, indexes);
  for (const v of s.views) {
    if (v.text.length > LONG_TEXT) {
      for (const [re, indexes] of BY_TEXT) if (re.test(v.text)) mark(run, indexes);
      continue;
    }
    for (const { gate, triggers } of TEXT_GATES) {
      if (gate.test(v.text)) for (const [re, indexes] of triggers) if (re.test(v.text)) mark(run, indexes);
    }
  }
  if (s.commands.length > 0) {
    mark(run, ON_ANY_COMMAND);
    for (const c of s.commands) {
      markName(run, c.name);
      for (const w of c.wrappers) markName(run, w);
    }
  }
  return run;
}

export function runDetectors(s: Subject, cfg: DetectorConfig): Finding[] {
  const findings: Finding[] = [];
  const run = selected(s);
  const disabled = cfg.disable.length > 0;
  for (let i = 0; i < DETECT.length; i++) {
    const d = DETECTORS[i];
    if (d === undefined || run[i] !== true || (disabled && cfg.disable.includes(d.id))) continue;
    const hit = DETECT[i]?.(s);
    if (hit === undefined) continue;
    const severity = cfg.severity[d.id] ?? hit.severity ?? d.severity;
    findings.push({ id: d.id, category: d.category, severity, reason: hit.reason });
  }
  // reading a credential and sending something out in the same action is exfiltration
  const cred = findings.find((f) => f.category === "credentials" || f.id === "cred.env-dump");
  if (cred !== undefined && !cfg.disable.includes("exfil.credential-egress") && hasEgress(s)) {
    findings.push({
      id: "exfil.credential-egress",
      category: "exfiltration",
      severity: cfg.severity["exfil.credential-egress"] ?? "block",
      reason: `${cred.reason}, in an action that sends data out`,
    });
  }
  return findings;
}
