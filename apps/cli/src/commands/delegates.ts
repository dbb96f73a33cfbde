import { CliError, ExitCode } from "../cli/errors.js";
import type { CliIo } from "../cli/io.js";
import type { CommandContext } from "../cli/spec.js";
import { shieldJudge } from "./capability-judge.js";

/**
 * Commands implemented by other packages. Each exports `run<Name>Cli(argv, io): Promise<number>`
 * where argv are the words after the top-level command (e.g. `["check", "--json", ...]`).
 * Loaded lazily so `palisade --help` stays fast and a missing package is a clear message.
 */
export interface Delegate {
  packageName: string;
  exportName: string;
  /** What the command will do once wired, for the "not available" message. */
  what: string;
}

export const DELEGATES = {
  shield: { packageName: "@palisade/shield", exportName: "runShieldCli", what: "Shield policy checks" },
  capability: { packageName: "@palisade/capabilities", exportName: "runCapabilityCli", what: "capability inspection" },
  audit: { packageName: "@palisade/store", exportName: "runAuditCli", what: "audit-chain verification" },
} satisfies Record<string, Delegate>;

type DelegateFn = (argv: string[], io: CliIo) => Promise<number>;

/** Loads a delegate's entry point, or undefined when the package (or export) does not exist yet. */
export async function loadDelegate(delegate: Delegate): Promise<DelegateFn | undefined> {
  const specifier: string = delegate.packageName;
  let mod: Record<string, unknown>;
  try {
    mod = (await import(specifier)) as Record<string, unknown>;
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND" || code === "ERR_PACKAGE_PATH_NOT_EXPORTED") return undefined;
    throw err;
  }
  const fn = mod[delegate.exportName];
  return typeof fn === "function" ? (fn as DelegateFn) : undefined;
}

export function notAvailable(delegate: Delegate, command: string): CliError {
  return new CliError(`'${command}' is not available yet: ${delegate.what} (${delegate.packageName}) is not part of this build`, {
    exitCode: ExitCode.USAGE,
    hint: `it will call ${delegate.exportName}() from ${delegate.packageName} once that package exists; run 'make build' after pulling`,
  });
}

export function runDelegated(delegate: Delegate): (ctx: CommandContext) => Promise<number> {
  return async (ctx) => {
    const fn = await loadDelegate(delegate);
    if (!fn) throw notAvailable(delegate, `palisade ${ctx.path.join(" ")}`);
    if (delegate === DELEGATES.capability && ctx.rawArgs[0] === "call") {
      // Calls made from the command line are judged like the agent's.
      const opt = (name: string): string | undefined => (typeof ctx.options[name] === "string" ? ctx.options[name] : undefined);
      const judge = await shieldJudge({ configPath: opt("config"), dataDir: opt("data-dir"), workspace: opt("workspace") ?? process.cwd() });
      const io: CliIo & { judge: typeof judge } = { ...ctx.io, judge };
      return fn(ctx.rawArgs, io);
    }
    return fn(ctx.rawArgs, ctx.io);
  };
}
