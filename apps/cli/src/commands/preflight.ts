// The config checks a command makes around an Engine it starts. `run`, `chat` and `engine start`
// read the config before they start one, so an invalid config is refused with its path-precise
// problems and no process is started; the Engine checks the same config again when it starts.
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
 * Before a command starts an Engine: the same check the Engine makes, which throws the problems
 * with file, path and hint when the config is invalid, so nothing is started with it.
 */
export async function refuseInvalidConfig(ctx: CommandContext, workspace = workspaceOf(ctx)): Promise<void> {
  const paths = pathsOf(ctx);
  const { ConfigError } = await import("@palisade/config");
  try {
    await checkStartConfig(paths.configFile, ctx.io.env, workspace);
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

/**
 * When `starting` (an Engine this command started) exited during start-up: the config check
 * again, which says why when the config changed since it was checked. Returns otherwise.
 */
export async function explainFailedStart(ctx: CommandContext, starting: StartingEngine | undefined): Promise<void> {
  if (starting?.exitCode() === undefined) return;
  await refuseInvalidConfig(ctx);
}
