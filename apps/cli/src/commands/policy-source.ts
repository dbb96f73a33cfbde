// Which Shield policy a command uses: --policy when given, else the configured one (the same
// choice the Engine makes at start), with a sentence saying where it came from.
import { resolve } from "node:path";
import type { BuiltinPolicy, Policy } from "@palisade/shield";
import type { CommandContext } from "../cli/spec.js";
import { pathsOf, stringOption } from "./common.js";

export interface ChosenPolicy {
  policy: Policy;
  /** e.g. "shield.policy_file in /home/a/.config/palisade/config.yaml". */
  source: string;
  /** Files the Shield protects as the Engine does: data dir, config file, policy file. */
  protectedPaths: string[];
}

export async function choosePolicy(ctx: CommandContext): Promise<ChosenPolicy> {
  const [{ assertPrivatePath, loadConfig }, { BUILTIN_POLICIES, loadPolicy }] = await Promise.all([
    import("@palisade/config"),
    import("@palisade/shield"),
  ]);
  const paths = pathsOf(ctx);
  const explicit = stringOption(ctx, "policy");
  if (explicit !== undefined) {
    // An explicit policy does not need the config; a broken config must not hide the answer.
    const policyFile = await loadConfig(paths.configFile, ctx.io.env as NodeJS.ProcessEnv).then(
      (c) => c.shield.policyFile,
      () => undefined,
    );
    const named = BUILTIN_POLICIES.includes(explicit as BuiltinPolicy);
    if (!named) assertPrivatePath(resolve(ctx.io.cwd, explicit), { what: "the policy file", allowMissing: true });
    const policy = await loadPolicy(named ? explicit : resolve(ctx.io.cwd, explicit));
    return {
      policy,
      source: `--policy ${explicit}`,
      protectedPaths: [paths.dataDir, paths.configFile, ...(policyFile ? [policyFile] : [])],
    };
  }
  const config = await loadConfig(paths.configFile, ctx.io.env);
  const protectedPaths = [
    paths.dataDir,
    paths.configFile,
    ...(config.shield.policyFile ? [config.shield.policyFile] : []),
  ];
  if (config.shield.policyFile) {
    return {
      policy: await loadPolicy(config.shield.policyFile),
      source: `shield.policy_file in ${paths.configFile}`,
      protectedPaths,
    };
  }
  const source = config.source
    ? `shield.policy in ${paths.configFile}`
    : `the built-in default (no config file at ${paths.configFile})`;
  return { policy: await loadPolicy(config.shield.policy), source, protectedPaths };
}

/** One line naming the policy that decided and where it came from. */
export function policyLine(chosen: ChosenPolicy): string {
  return `decided by policy ${chosen.policy.name} (${chosen.policy.version}) from ${chosen.source}`;
}
