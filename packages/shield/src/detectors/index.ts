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
import { commandViews } from "./util.js";

export const DETECTORS: readonly Detector[] = [
  ...evasion, ...destructive, ...dlexec, ...revshell, ...credentials, ...exfil, ...persistence,
  ...tampering, ...ssrf, ...injectionDetectors, ...secrets, ...obfuscation, ...delegation,
];

export interface DetectorConfig {
  disable: readonly string[];
  severity: Readonly<Record<string, Severity>>;
}

/**
 * Detectors prepared once for dispatch, all of one shape (the loop over them stays monomorphic).
 * Calling only the detectors whose triggers are present keeps an evaluation to a handful of
 * small functions: calling all of them on every action cost more than the checks themselves.
 */
interface Prepared {
  detector: Detector;
  detect: Detector["detect"];
  always: boolean;
  paths: boolean;
  urls: boolean;
  recipients: boolean;
  commandViews: boolean;
  kinds: readonly string[];
}
const PREPARED: readonly Prepared[] = DETECTORS.map((d) => ({
  detector: d, detect: d.detect, always: d.when === undefined, paths: d.when?.paths === true, urls: d.when?.urls === true,
  recipients: d.when?.recipients === true, commandViews: d.when?.commandViews === true, kinds: d.when?.kinds ?? [],
}));
/** Command name → indexes of the detectors that look at it. */
const BY_NAME = new Map<string, number[]>();
const ON_ANY_COMMAND: number[] = [];
const NAMED_BY: { test: (name: string) => boolean; index: number }[] = [];
DETECTORS.forEach((d, i) => {
  const c = d.when?.commands;
  if (c === "any") ON_ANY_COMMAND.push(i);
  else for (const name of c ?? []) BY_NAME.set(name, [...(BY_NAME.get(name) ?? []), i]);
  if (d.when?.commandNamed !== undefined) NAMED_BY.push({ test: d.when.commandNamed, index: i });
});

function markName(run: boolean[], name: string): void {
  const hits = BY_NAME.get(name);
  if (hits !== undefined) for (const i of hits) run[i] = true;
  for (const n of NAMED_BY) if (n.test(name)) run[n.index] = true;
}

/** Which detectors can fire on this subject (by index into DETECTORS). */
function selected(s: Subject): boolean[] {
  const run = new Array<boolean>(PREPARED.length).fill(false);
  if (s.commands.length > 0) {
    for (const i of ON_ANY_COMMAND) run[i] = true;
    for (const c of s.commands) {
      markName(run, c.name);
      for (const w of c.wrappers) markName(run, w);
    }
  }
  const paths = s.paths.length > 0;
  const urls = s.urls.length > 0;
  const recipients = s.recipients.length > 0;
  const views = commandViews(s).length > 0;
  for (let i = 0; i < PREPARED.length; i++) {
    const p = PREPARED[i];
    if (p === undefined || run[i] === true) continue;
    run[i] = p.always || (p.paths && paths) || (p.urls && urls) || (p.recipients && recipients) || (p.commandViews && views) || p.kinds.includes(s.kind);
  }
  return run;
}

export function runDetectors(s: Subject, cfg: DetectorConfig): Finding[] {
  const findings: Finding[] = [];
  const run = selected(s);
  for (let i = 0; i < PREPARED.length; i++) {
    const p = PREPARED[i];
    if (p === undefined || run[i] !== true) continue;
    const d = p.detector;
    if (cfg.disable.includes(d.id)) continue;
    const hit = p.detect(s);
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
