import type { Action, Decision } from "../types.js";

/** What the tier-2 judge is told besides the action: the deterministic tiers' notes. */
export interface JudgeInput {
  action: Action;
  /** Decision and reasons of tiers 0-1. */
  preliminary: { decision: Decision; reasons: string[] };
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
