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
import { obfuscation } from "./obfuscation.js";
import { persistence } from "./persistence.js";
import { revshell } from "./revshell.js";
import { secrets } from "./secrets.js";
import { ssrf } from "./ssrf.js";
import { tampering } from "./tampering.js";
import type { Detector } from "./types.js";
import { hasCommandViews } from "./util.js";

export const DETECTORS: readonly Detector[] = [
  ...evasion, ...destructive, ...dlexec, ...revshell, ...credentials, ...exfil, ...persistence,
  ...tampering, ...ssrf, ...injectionDetectors, ...secrets, ...obfuscation, ...delegation,
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
/** Subject facts other than commands, as bits: paths, URLs, recipients, shell text. */
const PATHS = 1;
const URLS = 2;
const RECIPIENTS = 4;
const SHELL_TEXT = 8;
/** For each combination of facts: which detectors run (before command names and tool kinds). */
const BY_FACTS: readonly boolean[][] = Array.from({ length: 16 }, (_, facts) => DETECTORS.map((d) => {
  const w = d.when;
  return w === undefined || (w.paths === true && (facts & PATHS) !== 0) || (w.urls === true && (facts & URLS) !== 0) ||
    (w.recipients === true && (facts & RECIPIENTS) !== 0) || (w.commandViews === true && (facts & SHELL_TEXT) !== 0);
}));
const BY_KIND = new Map<string, number[]>();
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
  if (d.when?.commandNamed !== undefined) NAMED_BY.push({ test: d.when.commandNamed, index: i });
});

function mark(run: boolean[], indexes: readonly number[] | undefined): void {
  if (indexes !== undefined) for (const i of indexes) run[i] = true;
}

function markName(run: boolean[], name: string): void {
  mark(run, BY_NAME.get(name));
  for (const n of NAMED_BY) if (n.test(name)) run[n.index] = true;
}

/** Which detectors can fire on this subject (by index into DETECTORS). */
function selected(s: Subject): boolean[] {
  const facts = (s.paths.length > 0 ? PATHS : 0) | (s.urls.length > 0 ? URLS : 0) | (s.recipients.length > 0 ? RECIPIENTS : 0) | (hasCommandViews(s) ? SHELL_TEXT : 0);
  const run = (BY_FACTS[facts] ?? []).slice();
  mark(run, BY_KIND.get(s.kind));
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
    findings.push({ id: "exfil.credential-egress", category: "exfiltration", severity: cfg.severity["exfil.credential-egress"] ?? "block", reason: `${cred.reason}, in an action that sends data out` });
  }
  return findings;
}
