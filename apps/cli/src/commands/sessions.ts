import type { CommandContext } from "../cli/spec.js";
import { CliError, ExitCode } from "../cli/errors.js";

const todo = async (_ctx: CommandContext): Promise<number> => {
  throw new CliError("not implemented yet", { exitCode: ExitCode.USAGE });
};
export const sessionsList = todo;
export const sessionsShow = todo;
export const sessionsSearch = todo;
export const sessionsExport = todo;
export const sessionsRename = todo;
export const sessionsDelete = todo;
