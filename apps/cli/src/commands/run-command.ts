// `palisade run`: reads the prompt, checks the config and starts the Engine when none runs; then it
// loads the gRPC client and the printer (run.ts) while the Engine starts.
import { UsageError } from "../cli/errors.js";
import type { CommandContext } from "../cli/spec.js";
import { findEngine } from "../engine-address.js";
import { prestartEngine } from "../engine/spawn.js";
import { hintCommand, pathsOf, startOptions } from "./common.js";
import { explainFailedStart, refuseInvalidConfig } from "./preflight.js";

/** The prompt: the words given, or stdin when the prompt is `-` or absent and stdin is not a terminal. */
async function promptOf(ctx: CommandContext): Promise<string> {
  const words = ctx.positionals;
  const fromStdin = (words.length === 1 && words[0] === "-") || (words.length === 0 && !ctx.io.stdin.isTTY);
  if (!fromStdin) {
    if (words.length === 0)
      throw new UsageError(
        "'palisade run' needs a prompt",
        `e.g. ${hintCommand(ctx, 'run "summarize README.md"')}, or pipe it in: echo "…" | ${hintCommand(ctx, "run")}`,
      );
    return words.join(" ");
  }
  let text = "";
  for await (const chunk of ctx.io.stdin)
    text += typeof chunk === "string" ? chunk : (chunk as Buffer).toString("utf8");
  if (text.trim() === "")
    throw new UsageError(
      "the prompt read from stdin is empty",
      `give it as an argument: ${hintCommand(ctx, 'run "…"')}`,
    );
  return text.trimEnd();
}

export async function runRunCommand(ctx: CommandContext): Promise<number> {
  const content = await promptOf(ctx);
  const paths = pathsOf(ctx);
  const running = await findEngine(paths);
  // an invalid config is refused here, before any Engine process starts with it
  if (!running) await refuseInvalidConfig(ctx);
  const starting = running ? undefined : await prestartEngine(paths, startOptions(ctx));
  const { runPrompt } = await import("./run.js");
  try {
    return await runPrompt(ctx, content, starting);
  } catch (err) {
    await explainFailedStart(ctx, starting);
    throw err;
  }
}
