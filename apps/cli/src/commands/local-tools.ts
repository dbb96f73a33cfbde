// The Engine's capability host and Shield, opened in this process for `capability list|call`.
import type { LocalTools, LocalToolsOptions } from "@palisade/engine";
import { CliError } from "../cli/errors.js";
import { println } from "../cli/io.js";
import type { CommandContext } from "../cli/spec.js";
import { hintCommand, pathsOf, workspaceOf } from "./common.js";

export async function openTools(
  ctx: CommandContext,
  which: Pick<LocalToolsOptions, "only" | "select" | "start" | "log" | "onStarting"> = {},
): Promise<LocalTools> {
  const { openLocalTools } = await import("@palisade/engine");
  const { ConfigError } = await import("@palisade/config");
  const paths = pathsOf(ctx);
  const debug = Boolean(ctx.io.env.PALISADE_DEBUG);
  try {
    return await openLocalTools({
      configPath: paths.configFile,
      dataDir: paths.dataDir,
      workspace: workspaceOf(ctx),
      env: { ...(ctx.io.env as NodeJS.ProcessEnv) },
      ...which,
      ...(debug || which.log
        ? {
            log: (line: string) => {
              if (debug) println(ctx.io.stderr, line);
              which.log?.(line);
            },
          }
        : {}),
    });
  } catch (err) {
    if (err instanceof ConfigError)
      throw new CliError(err.message, {
        hint: `fix ${paths.configFile} (see docs/configuration.md), then run ${hintCommand(ctx, "capability list")} again`,
      });
    throw err;
  }
}
