import { statSync } from "node:fs";
import { resolve } from "node:path";
import { CliError, UsageError } from "../cli/errors.js";
import type { CommandContext } from "../cli/spec.js";
import { resolvePaths } from "../engine-address.js";
import type { PalisadePaths } from "../engine-address.js";
import { println } from "../cli/io.js";
import type { ConnectOptions } from "../engine/connect.js";
import { driftLines } from "../engine/setup-drift.js";

export function pathsOf(ctx: CommandContext): PalisadePaths {
  return resolvePaths(
    { dataDir: absoluteOption(ctx, "data-dir"), configFile: absoluteOption(ctx, "config") },
    ctx.io.env,
  );
}

/** A path option resolved against the CLI's working directory (the Engine may run elsewhere). */
function absoluteOption(ctx: CommandContext, name: string): string | undefined {
  const v = stringOption(ctx, name);
  return v === undefined ? undefined : resolve(ctx.io.cwd, v);
}

/** The workspace (--workspace or the current directory); refused when it is not a directory. */
export function workspaceOf(ctx: CommandContext): string {
  return workspaceDir(ctx.io.cwd, stringOption(ctx, "workspace"));
}

/** `option` (default: `cwd` itself) resolved against `cwd`; refused when it is not a directory. */
export function workspaceDir(cwd: string, option: string | undefined): string {
  const dir = resolve(cwd, option ?? ".");
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) {
    throw new CliError(`the workspace ${dir} does not exist or is not a directory`, {
      hint: `create it (mkdir -p ${shellQuote(dir)}) or pass --workspace DIR with an existing directory`,
    });
  }
  return dir;
}

export function stringOption(ctx: CommandContext, name: string): string | undefined {
  const v = ctx.options[name];
  return typeof v === "string" ? v : undefined;
}

export function listOption(ctx: CommandContext, name: string): string[] {
  const v = ctx.options[name];
  return Array.isArray(v) ? v : typeof v === "string" ? [v] : [];
}

export function flag(ctx: CommandContext, name: string): boolean {
  return ctx.options[name] === true;
}

export function intOption(ctx: CommandContext, name: string, fallback: number): number {
  const raw = stringOption(ctx, name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} must be a whole number ≥ 0, got '${raw}'`);
  return n;
}

/** Quotes a word for a POSIX shell when it needs it. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * A command line to print in a hint, runnable as printed: the program as the user invoked it
 * (PALISADE_PROG, set by bin/palisade) and the --data-dir / --config / --workspace they gave.
 */
export function hintCommand(ctx: Pick<CommandContext, "io" | "options">, words: string): string {
  const prog = ctx.io.env.PALISADE_PROG || "palisade";
  const globals: string[] = [];
  for (const name of ["data-dir", "config"]) {
    const v = ctx.options[name];
    if (typeof v === "string") globals.push(`--${name} ${shellQuote(v)}`);
  }
  return [shellQuote(prog), ...globals, words].join(" ");
}

/** How a command connects to the Engine: started in the background when none runs, as `chat` does. */
export function startOptions(ctx: CommandContext): ConnectOptions {
  return {
    start: true,
    workspace: workspaceOf(ctx),
    env: ctx.io.env,
    onProgress: (line) => println(ctx.io.stderr, line),
    hint: (words) => hintCommand(ctx, words),
    onSetupDrift: (drift) => {
      for (const line of driftLines(drift, hintCommand(ctx, "engine restart"))) println(ctx.io.stderr, line);
    },
  };
}
