import type { Origin, Role } from "../provenance/types.js";
import type { Action, Decision } from "../types.js";

/** What the tier-2 judge is told besides the action: the deterministic tiers' notes. */
export interface JudgeInput {
  action: Action;
  /** Decision and reasons of tiers 0-1. */
  preliminary: { decision: Decision; reasons: string[] };
  /**
   * The user's own latest messages (what was asked), when the caller gave the session's
   * provenance. Never the model's prose or tool results.
   */
  userMessages?: readonly string[];
  /** Where each argument value came from; secret values are never shown. */
  provenance?: JudgeProvenance[];
}

export interface JudgeProvenance {
  argument: string;
  role: Role;
  /** The value, or "(a secret value)". */
  value: string;
  from: Origin[];
  /** "the result of `web__fetch https://…` (call c1) at 14:03 UTC (untrusted)", per non-user part. */
  firstSeen: string[];
}

export interface JudgeResult {
  decision: Decision;
  reason: string;
  confidence: number;
  /** Set when the judge failed (timeout, budget, bad answer, missing canary): the decision is then block. */
  failure?: string;
}

/** Tier 2. Implementations never throw: failures come back as a block with `failure` set. */
export interface Judge {
  readonly model: string;
  judge(input: JudgeInput, signal?: AbortSignal): Promise<JudgeResult>;
}
