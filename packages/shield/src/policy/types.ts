import type { Decision, ManifestPolicy, SessionMode, Severity } from "../types.js";
import type { Trust } from "../provenance/types.js";
import type { FlowCondition } from "./flow.js";

export interface RuleWhen {
  modes?: SessionMode[];
  subAgent?: boolean;
  /** The session has seen content of one of these trusts (`session.saw`). */
  saw?: Trust[];
}

export interface PolicyRule {
  id: string;
  description?: string;
  decision: Decision;
  reason?: string;
  /** Tool-name globs; empty means every tool. */
  tools: string[];
  paths?: string[];
  commands?: string[];
  args?: Record<string, string>;
  hosts?: string[];
  emailDomains?: string[];
  methods?: string[];
  /** Tool kinds (from the tool's semantics: `mail`, `http`, `file-read`, ..., `other`). */
  kinds?: string[];
  /** Provenance conditions: all must hold (see flow.ts). */
  flow?: FlowCondition[];
  when?: RuleWhen;
  /** 1-based line in the policy file, for reports. */
  line: number;
}

export interface Policy {
  name: string;
  description: string;
  /** `name@sha256-prefix` of the file: changes whenever the policy changes. */
  version: string;
  file: string;
  rules: PolicyRule[];
  /** Decision for a tool no rule matches and whose manifest gives no recommended_policy. */
  unknownTool: Decision;
  /** Per-tool defaults used when the manifest gives none (glob → decision). */
  toolDefaults: { glob: string; decision: Decision }[];
  rateLimit: { perMinute: number };
  cacheTtlMs: number;
  detectors: { disable: string[]; severity: Record<string, Severity> };
  /** Declared tool semantics by tool glob (used when the caller passes none for the tool). */
  semantics: { glob: string; block: Record<string, unknown> }[];
  /** The built-in policy this one extends (`extends:`), if any. */
  extends?: string | undefined;
}

export function manifestDecision(p: ManifestPolicy): Decision {
  return p === "ask" ? "escalate" : p;
}
