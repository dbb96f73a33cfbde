// When an Engine a command started exits during start-up, the config is read the way the Engine
// read it, so an invalid config shows its path-precise problems instead of a start-up failure (or
// a chat that only says "no model configured"). Commands start the Engine first: checking before
// would cost every start the config's parsing twice.
import { CliError } from "../cli/errors.js";
import type { CommandContext } from "../cli/spec.js";
import type { StartingEngine } from "../engine/spawn.js";
import { hintCommand, pathsOf, workspaceOf } from "./common.js";

/**
 * Reads `configFile` with `env` as an Engine starting now would, and checks what its start would
 * refuse (the policy, the capabilities' declared tool semantics); throws the ConfigError.
 */
export async function checkStartConfig(
  configFile: string,
  env: Record<string, string | undefined>,
  workspace: string,
): Promise<void> {
  const { loadConfig } = await import("@palisade/config");
  const config = await loadConfig(configFile, env);
  const { checkStartFiles } = await import("@palisade/config");
  await checkStartFiles(config, workspace);
}

/**
 * When `starting` (an Engine this command started) exited during start-up: the same check, which
 * throws the problems with file, path and hint when the config is why (the Engine refuses the same
 * ones itself, so a command that starts one need not check first). Returns otherwise.
 */
export async function explainFailedStart(ctx: CommandContext, starting: StartingEngine | undefined): Promise<void> {
  if (starting?.exitCode() === undefined) return;
  const paths = pathsOf(ctx);
  const { ConfigError } = await import("@palisade/config");
  try {
    await checkStartConfig(paths.configFile, ctx.io.env, workspaceOf(ctx));
  } catch (err) {
    if (err instanceof ConfigError) {
      const files = [...new Set(err.issues.map((i) => i.file))];
      const which = files.length === 1 && files[0] === paths.configFile ? paths.configFile : files.join(", ");
      throw new CliError(err.message, {
        hint: `fix ${which} (see docs/configuration.md; tool semantics: docs/policy.md), then run '${hintCommand(ctx, ctx.path.join(" "))}' again`,
      });
    }
    throw err;
  }
}
