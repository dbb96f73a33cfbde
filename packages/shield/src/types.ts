import type { ManifestPolicy } from "@palisade/protocol/policy";
import type { ProvenanceView } from "./provenance/types.js";

/** The three outcomes of an evaluation. `escalate` hands the action to a human (tier 3). */
export type Decision = "allow" | "block" | "escalate";

/** Tier that produced a verdict: 0 policy, 1 detectors, 2 LLM judge, 3 human approval. */
export type Tier = 0 | 1 | 2 | 3;

export type SessionMode = "normal" | "otr" | "heartbeat";

export type { ManifestPolicy } from "@palisade/protocol/policy";

/** Manifest network policy of the tool's capability. Hosts: `host`, `host:port` or `*.suffix`. */
export interface NetworkPolicy {
  mode: "none" | "allowlist" | "any";
  allow?: readonly string[];
}

/** A proposed tool call: full tool name (`<capability>__<tool>` or a built-in) and parsed arguments. */
export interface Action {
  tool: string;
  args: unknown;
}

export interface ShieldContext {
  sessionId?: string;
  mode?: SessionMode;
  /** Set when the caller is a sub-agent (its name). */
  subAgent?: string;
  manifestPolicy?: ManifestPolicy;
  network?: NetworkPolicy;
  /** Absolute workspace directory; relative paths resolve against it. */
  workspace?: string;
  /** Home directory used to expand `~`. */
  home?: string;
  /** The tool's JSON Schema (its input_schema), for tools the Shield does not otherwise know. */
  toolSchema?: unknown;
  /** The tool's description (what its server or manifest says it does), read with its schema. */
  toolDescription?: string;
  /** A declared `semantics:` block for the tool (capability config entry or manifest). */
  toolSemantics?: unknown;
  /** The session's labelled content (see provenance/): flow rules and `when.saw` read it. */
  provenance?: ProvenanceView;
}

export interface Verdict {
  decision: Decision;
  tier: Tier;
  /** 0..1: how sure the deciding tier is. */
  confidence: number;
  reason: string;
  /** Policy rule ids and detector ids that contributed. */
  rules: string[];
  /** Time spent evaluating, in microseconds. */
  evaluationUs: number;
  cached: boolean;
  policyVersion: string;
}

export type Severity = "block" | "escalate";

export type DetectorCategory =
  | "destructive"
  | "download-exec"
  | "reverse-shell"
  | "credentials"
  | "exfiltration"
  | "persistence"
  | "tampering"
  | "ssrf"
  | "injection"
  | "secrets"
  | "obfuscation"
  | "shield-evasion"
  | "delegation";

/** One detector hit. */
export interface Finding {
  id: string;
  category: DetectorCategory;
  severity: Severity;
  reason: string;
}

const rank: Record<Decision, number> = { allow: 0, escalate: 1, block: 2 };

/** The stricter of two decisions (block > escalate > allow). */
export function stricter(a: Decision, b: Decision): Decision {
  return rank[a] >= rank[b] ? a : b;
}
