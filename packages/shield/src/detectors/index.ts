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

export const DETECTORS: readonly Detector[] = [
  ...evasion, ...destructive, ...dlexec, ...revshell, ...credentials, ...exfil, ...persistence,
  ...tampering, ...ssrf, ...injectionDetectors, ...secrets, ...obfuscation, ...delegation,
];

export interface DetectorConfig {
  disable: readonly string[];
  severity: Readonly<Record<string, Severity>>;
}

export function runDetectors(s: Subject, cfg: DetectorConfig): Finding[] {
  const findings: Finding[] = [];
  for (const d of DETECTORS) {
    if (cfg.disable.includes(d.id)) continue;
    const hit = d.detect(s);
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
