// A minimal EngineShield that follows manifest policies only (allow → allow, ask → escalate,
// block → block, none → escalate). Used by tests that need a predictable Shield; the Engine
// uses @palisade/shield (adapters/shield.ts).
import type { EngineShield, Policy, ShieldInput, VerdictRecord } from "../ports.js";

export class PolicyShield implements EngineShield {
  constructor(private readonly overrides: Record<string, Policy> = {}) {}

  effectivePolicy(toolName: string, manifestPolicy: Policy | undefined): Policy {
    return this.overrides[toolName] ?? manifestPolicy ?? "ask";
  }

  async evaluate(input: ShieldInput): Promise<VerdictRecord> {
    const t0 = process.hrtime.bigint();
    const policy = this.effectivePolicy(input.toolName, input.manifestPolicy);
    const decision = policy === "ask" ? "escalate" : policy;
    return {
      decision,
      tier: 0,
      confidence: 1,
      reason: `policy for ${input.toolName} is ${policy}`,
      ruleIds: [`policy.${policy}`],
      evaluationUs: Number(process.hrtime.bigint() - t0) / 1000,
    };
  }

  describe(): { state: string; policyName: string } {
    return { state: "active", policyName: "manifest-only" };
  }
}
