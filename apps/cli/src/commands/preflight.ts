// Before a command starts an Engine, the config is read the way the Engine will read it, so an
// invalid config shows its path-precise problems here instead of a start-up failure (or a chat
// that only says "no model configured").
import { CliError } from "../cli/errors.js";
import type { CommandContext } from "../cli/spec.js";
import { findEngine } from "../engine-address.js";
import { hintCommand, pathsOf } from "./common.js";

export async function preflightConfig(ctx: CommandContext): Promise<void> {
  const paths = pathsOf(ctx);
  if (await findEngine(paths)) return; // a running Engine already has its config
  const { ConfigError, loadConfig } = await import("@palisade/engine/config");
  try {
    await loadConfig(paths.configFile, ctx.io.env);
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message, { hint: `fix ${paths.configFile} (see docs/configuration.md), then run '${hintCommand(ctx, ctx.path.join(" "))}' again` });
    throw err;
  }
}
