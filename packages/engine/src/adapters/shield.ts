// EngineShield over @palisade/shield: the configured policy (bundled name or file), the
// detectors and, when enabled, the OpenAI-compatible LLM judge. The only file that knows its API.
import { createOpenAIJudge, createShield, generateCanary, loadPolicy, toolPolicy } from "@palisade/shield";
// approval prompts show arguments and reasons with terminal controls made visible
export { visible, visibleJson } from "@palisade/shield";
import type { Decision, Policy as ShieldPolicy, Shield, ShieldContext } from "@palisade/shield";
import type { EngineConfig } from "@palisade/config";
import type {
  ActionClassInfo,
  EngineShield,
  ObservedContent,
  Policy,
  ShieldInput,
  ToolSemanticsView,
  VerdictRecord,
} from "../ports.js";
import { semanticsView } from "./semantics-view.js";
import { SessionProvenance } from "./provenance.js";

const toPolicy = (d: Decision): Policy => (d === "escalate" ? "ask" : d);

class PalisadeShield implements EngineShield {
  private readonly provenance: SessionProvenance;
  constructor(
    private readonly shield: Shield,
    private readonly policy: ShieldPolicy,
  ) {
    this.provenance = new SessionProvenance(shield);
  }

  observe(content: ObservedContent): string {
    return this.provenance.observe(content);
  }

  knowsProvenance(sessionId: string): boolean {
    return this.provenance.of(sessionId) !== undefined;
  }

  private context(input: ShieldInput): ShieldContext {
    const p = this.provenance.of(input.sessionId);
    return { ...context(input), ...(p ? { provenance: p } : {}) };
  }

  effectivePolicy(toolName: string, manifestPolicy: Policy | undefined): Policy {
    return this.toolPolicy(toolName, manifestPolicy, undefined).policy;
  }

  toolPolicy(
    toolName: string,
    manifestPolicy: Policy | undefined,
    kind: string | undefined,
  ): { policy: Policy; rules: { id: string; decision: Policy; description: string }[] } {
    const p = toolPolicy(this.policy, toolName, { manifestPolicy, kind });
    return {
      policy: toPolicy(p.decision),
      rules: p.rules.map((r) => ({ id: r.id, decision: toPolicy(r.decision), description: r.description })),
    };
  }

  actionClass(input: ShieldInput): ActionClassInfo {
    return this.shield.actionClass({ tool: input.toolName, args: parseArgs(input.argumentsJson) }, this.context(input));
  }

  toolSemantics(
    input: Pick<ShieldInput, "toolName" | "toolSchema" | "toolSemantics" | "toolDescription">,
  ): ToolSemanticsView {
    return semanticsView(
      this.shield.semantics(input.toolName, {
        ...(input.toolSchema ? { toolSchema: input.toolSchema } : {}),
        ...(input.toolSemantics ? { toolSemantics: input.toolSemantics } : {}),
        ...(input.toolDescription ? { toolDescription: input.toolDescription } : {}),
      }),
    );
  }

  async evaluate(input: ShieldInput, signal?: AbortSignal): Promise<VerdictRecord> {
    const args = parseArgs(input.argumentsJson);
    const v = await this.shield.evaluate({ tool: input.toolName, args }, this.context(input), signal);
    return {
      decision: v.decision,
      tier: v.tier,
      confidence: v.confidence,
      reason: v.reason,
      ruleIds: v.rules,
      evaluationUs: v.evaluationUs,
    };
  }

  describe(): { state: string; policyName: string } {
    return { state: "active", policyName: this.policy.version || this.policy.name };
  }
}

function parseArgs(json: string): unknown {
  try {
    return json.trim() ? JSON.parse(json) : {};
  } catch {
    return json;
  }
}

function context(input: ShieldInput): ShieldContext {
  return {
    sessionId: input.sessionId,
    mode: input.mode,
    ...(input.subAgentName ? { subAgent: input.subAgentName } : {}),
    ...(input.manifestPolicy ? { manifestPolicy: input.manifestPolicy } : {}),
    ...(input.networkMode
      ? { network: { mode: input.networkMode as "none" | "allowlist" | "any", allow: input.networkAllowlist ?? [] } }
      : {}),
    ...(input.workspace ? { workspace: input.workspace } : {}),
    ...(input.toolSchema ? { toolSchema: input.toolSchema } : {}),
    ...(input.toolSemantics ? { toolSemantics: input.toolSemantics } : {}),
    ...(input.toolDescription ? { toolDescription: input.toolDescription } : {}),
  };
}

export async function createEngineShield(
  config: EngineConfig,
  dataDir: string,
  workspace: string,
): Promise<EngineShield> {
  // config.shield.policyFile was checked as the user's by loadConfig, which read it from the config
  const policy = await loadPolicy(config.shield.policyFile ?? config.shield.policy);
  const j = config.shield.llmJudge;
  const judge = j.enabled
    ? createOpenAIJudge({
        model: j.model ?? config.model.name,
        canary: generateCanary(),
        ...((j.apiKey ?? config.model.apiKey) ? { apiKey: j.apiKey ?? config.model.apiKey } : {}),
        ...((j.baseUrl ?? config.model.baseUrl) ? { baseURL: j.baseUrl ?? config.model.baseUrl } : {}),
      })
    : undefined;
  const shield = createShield({
    policy,
    workspace,
    // The agent must not edit what governs it: data (history, audit), config and policy files.
    protectedPaths: [
      dataDir,
      ...(config.source ? [config.source] : []),
      ...(config.shield.policyFile ? [config.shield.policyFile] : []),
    ],
    ...(judge ? { judge } : {}),
  });
  return new PalisadeShield(shield, policy);
}
