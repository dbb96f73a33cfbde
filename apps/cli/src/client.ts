// The entry point of the client bundle (dist/bundle/client.cjs, made by `make build`): the commands that
// only talk to a running Engine, or start one in the background, served from one bundled file
// instead of a few hundred modules. Everything else (the Engine itself, `engine start`, chat,
// shield, capability, audit) runs from the unbundled dist/ — main.ts falls back to it when
// runClient returns undefined — so no process ever holds two copies of the same module.
import { CLIENT_COMMANDS } from "./cli/client-commands.js";
import type { CliIo } from "./cli/io.js";
import { parseCommandLine } from "./cli/parse.js";
import { runCli } from "./cli/run-cli.js";
import { COMMAND_TREE } from "./cli/tree.js";

export { CLIENT_COMMANDS };

/** Whether the bundle serves this command line: a client command, its help, or an error in it. */
export function servesCommand(argv: string[]): boolean {
  try {
    const parsed = parseCommandLine(COMMAND_TREE, argv);
    return parsed.help || !parsed.spec.run || CLIENT_COMMANDS.includes(parsed.path.join(" "));
  } catch {
    return true; // a usage error: reported the same from either
  }
}

/** Runs a client command; undefined when the command is not one (main.ts runs it unbundled). */
export async function runClient(argv: string[], io: CliIo): Promise<number | undefined> {
  return servesCommand(argv) ? runCli(argv, io) : undefined;
}
