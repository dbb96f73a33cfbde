import { CliError, ExitCode } from "./errors.js";
import { formatHelp } from "./help.js";
import type { CliIo } from "./io.js";
import { println } from "./io.js";
import { parseCommandLine } from "./parse.js";
import type { CommandSpec } from "./spec.js";
import { COMMAND_TREE } from "./tree.js";
import { CLI_VERSION } from "../version.js";

/** One line for the user: what went wrong and what to do. Never a stack trace. */
export function reportError(io: CliIo, err: unknown): number {
  if (err instanceof CliError) {
    println(io.stderr, `palisade: ${err.message}`);
    if (err.hint) println(io.stderr, `  ${err.hint}`);
    return err.exitCode;
  }
  const message = err instanceof Error ? err.message : String(err);
  println(io.stderr, `palisade: ${message}`);
  if (io.env.PALISADE_DEBUG && err instanceof Error && err.stack) println(io.stderr, err.stack);
  else println(io.stderr, "  set PALISADE_DEBUG=1 for details");
  return ExitCode.FAILURE;
}

/** Runs the `palisade` command line; returns the exit code. */
export async function runCli(argv: string[], io: CliIo, tree: CommandSpec = COMMAND_TREE): Promise<number> {
  if (argv[0] === "--version" || argv[0] === "-V") {
    println(io.stdout, CLI_VERSION);
    return ExitCode.OK;
  }
  if (argv[0] === "help") return runCli([...argv.slice(1), "--help"], io, tree);
  try {
    const parsed = parseCommandLine(tree, argv);
    if (parsed.help || !parsed.spec.run) {
      const text = formatHelp(parsed.path, parsed.spec);
      // Bare `palisade sessions` shows help but is not a success.
      if (!parsed.help && parsed.path.length > 0) {
        io.stderr.write(text);
        return ExitCode.USAGE;
      }
      io.stdout.write(text);
      return ExitCode.OK;
    }
    return await parsed.spec.run({
      io,
      options: parsed.options,
      positionals: parsed.positionals,
      path: parsed.path,
    });
  } catch (err) {
    return reportError(io, err);
  }
}
