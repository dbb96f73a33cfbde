// `palisade run`: reads the prompt and starts the Engine when none runs; then it checks the config
// and loads the gRPC client and the printer (run.ts) while the Engine starts.
import { UsageError } from "../cli/errors.js";
import type { CommandContext } from "../cli/spec.js";
import { prestartEngine } from "../engine/spawn.js";
import { hintCommand, pathsOf, startOptions } from "./common.js";
import { preflightStarted } from "./preflight.js";

/** The prompt: the words given, or stdin when the prompt is `-` or absent and stdin is not a terminal. */
async function promptOf(ctx: CommandContext): Promise<string> {
  const words = ctx.positionals;
  const fromStdin = (words.length === 1 && words[0] === "-") || (words.length === 0 && !ctx.io.stdin.isTTY);
  if (!fromStdin) {
    if (words.length === 0) throw new UsageError("'palisade run' needs a prompt", `e.g. ${hintCommand(ctx, 'run "summarize README.md"')}, or pipe it in: echo "…" | ${hintCommand(ctx, "run")}`);
    return words.join(" ");
  }
  let text = "";
  for await (const chunk of ctx.io.stdin) text += typeof chunk === "string" ? chunk : (chunk as Buffer).toString("utf8");
  if (text.trim() === "") throw new UsageError("the prompt read from stdin is empty", `give it as an argument: ${hintCommand(ctx, 'run "…"')}`);
  return text.trimEnd();
}

export async function runRunCommand(ctx: CommandContext): Promise<number> {
  const content = await promptOf(ctx);
  const starting = await prestartEngine(pathsOf(ctx), startOptions(ctx));
  // A config problem stops the Engine started above and ends the command before any connection.
  const checked = starting ? preflightStarted(ctx, starting) : Promise.resolve();
  checked.catch(() => undefined); // awaited below, once run.js is loaded
  const { runPrompt } = await import("./run.js");
  await checked;
  return runPrompt(ctx, content, starting);
}
