// `palisade capability call` goes through the Shield first, with the policy the Engine uses and
// the same protected paths (data directory, config file, policy file).
import type { CallJudge } from "@palisade/capabilities";
import { resolveConfigPath, resolveDataDir } from "@palisade/engine/discovery";

export interface JudgeOptions {
  configPath?: string;
  dataDir?: string;
  workspace: string;
}

export async function shieldJudge(options: JudgeOptions): Promise<CallJudge> {
  const [{ loadConfig }, { createShield, loadPolicy }] = await Promise.all([import("@palisade/engine"), import("@palisade/shield")]);
  const configPath = resolveConfigPath({ ...(options.configPath ? { configPath: options.configPath } : {}) });
  const config = await loadConfig(configPath);
  const policy = await loadPolicy(config.shield.policyFile ?? config.shield.policy);
  const dataDir = resolveDataDir({ ...(options.dataDir ? { dataDir: options.dataDir } : {}) });
  const shield = createShield({
    policy,
    workspace: options.workspace,
    protectedPaths: [dataDir, configPath, ...(config.shield.policyFile ? [config.shield.policyFile] : [])],
  });
  return async (call) => {
    const v = await shield.evaluate(
      { tool: call.tool, args: call.args },
      { sessionId: call.sessionId, manifestPolicy: call.manifestPolicy, network: { mode: call.network.mode, allow: call.network.hosts }, workspace: options.workspace },
    );
    return { decision: v.decision, tier: v.tier, reason: v.reason };
  };
}
