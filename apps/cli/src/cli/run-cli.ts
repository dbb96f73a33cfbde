import { CliError, ExitCode } from "./errors.js";
import { formatHelp } from "./help.js";
import type { CliIo } from "./io.js";
import { println } from "./io.js";
import { parseCommandLine } from "./parse.js";
import type { CommandSpec } from "./spec.js";
import { GLOBAL_OPTIONS } from "./spec.js";
import { COMMAND_TREE } from "./tree.js";
import { CLI_VERSION } from "../version.js";

/** Index of the first word that is not a global option or its value; -1 when none. */
function firstWord(argv: string[]): number {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (!a.startsWith("-")) return i;
    if (!a.includes("=") && GLOBAL_OPTIONS[a.slice(2)]?.type === "string") i++;
  }
  return -1;
}

/**
 * A typed error of a Palisade package (CapabilityError, ShieldError, ConfigError, StoreError, ...):
 * its message already says what and how to fix. Node's own errors (ERR_*, errno codes) are not.
 */
function isDomainError(err: unknown): err is Error & { code: string } {
  const code = (err as { code?: unknown }).code;
  return err instanceof Error && typeof code === "string" && !code.startsWith("ERR_") && !/^E[A-Z]+$/.test(code);
}

/** One line for the user: what went wrong and what to do. Never a stack trace. */
export function reportError(io: CliIo, err: unknown): number {
  if (err instanceof CliError) {
    println(io.stderr, `palisade: ${err.message}`);
    if (err.hint) println(io.stderr, `  ${err.hint}`);
    return err.exitCode;
  }
  if (isDomainError(err)) {
    println(io.stderr, `palisade: ${err.message}`);
    if (io.env.PALISADE_DEBUG && err.stack) println(io.stderr, err.stack);
    return ExitCode.FAILURE;
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
  // `palisade [global options] help <command...>` is `<command...> --help`.
  const helpAt = firstWord(argv);
  if (helpAt >= 0 && argv[helpAt] === "help")
    return runCli([...argv.slice(0, helpAt), ...argv.slice(helpAt + 1), "--help"], io, tree);
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
