import type { CommandContext } from "../cli/spec.js";
import { CliError, ExitCode } from "../cli/errors.js";

export async function runRunCommand(_ctx: CommandContext): Promise<number> {
  throw new CliError("not implemented yet", { exitCode: ExitCode.USAGE });
}
