// The sub-agent runs with exactly the Agent's sandbox: the same command line from
// @palisade/agent's agentLaunchSpec (permission model, reads only of code), with this package's
// entry point instead of the Agent's and an environment of its own.
import { realpathSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { agentLaunchSpec } from "@palisade/agent/launch";
import type { LaunchSpec, ModelSettings } from "@palisade/agent";
import { SUBAGENT_ENV } from "./config.js";

export interface SubAgentLaunchOptions {
  engineAddress: string;
  /** Unix socket path of the Engine's model gateway (the sub-agent holds no model key). */
  modelGateway: string;
  contextWindow?: number;
  /** Request shaping, time limits and retries; sent as JSON (never credentials). */
  modelSettings?: Partial<ModelSettings>;
  nodePath?: string;
  /** false: no permission flags (only when the Engine runs with --allow-unsandboxed). */
  sandbox?: boolean;
}

/** Root of the @palisade/subagent package (this file is in src/ or dist/). */
export function subAgentPackageDir(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), "..");
}

export function subAgentLaunchSpec(options: SubAgentLaunchOptions): LaunchSpec {
  const pkgDir = realpathSync(subAgentPackageDir());
  const base = agentLaunchSpec({
    engineAddress: options.engineAddress,
    model: "",
    modelGateway: options.modelGateway,
    extraPackages: [pkgDir],
    main: join(pkgDir, "dist", "main.js"),
    ...(options.nodePath ? { nodePath: options.nodePath } : {}),
    ...(options.sandbox === false ? { sandbox: false } : {}),
  });
  const args = base.args;
  const env: Record<string, string> = {
    [SUBAGENT_ENV.engineAddress]: options.engineAddress,
    [SUBAGENT_ENV.modelGateway]: options.modelGateway,
  };
  if (options.contextWindow) env[SUBAGENT_ENV.contextWindow] = String(options.contextWindow);
  if (options.modelSettings) env[SUBAGENT_ENV.modelSettings] = JSON.stringify(options.modelSettings);
  return { command: base.command, args, env, readPaths: base.readPaths };
}
