import { resolve } from "node:path";
import { UsageError } from "../cli/errors.js";
import type { CommandContext } from "../cli/spec.js";
import { resolvePaths } from "../engine-address.js";
import type { PalisadePaths } from "../engine-address.js";

export function pathsOf(ctx: CommandContext): PalisadePaths {
  return resolvePaths(
    { dataDir: stringOption(ctx, "data-dir"), configFile: stringOption(ctx, "config") },
    ctx.io.env,
  );
}

export function workspaceOf(ctx: CommandContext): string {
  return resolve(ctx.io.cwd, stringOption(ctx, "workspace") ?? ".");
}

export function stringOption(ctx: CommandContext, name: string): string | undefined {
  const v = ctx.options[name];
  return typeof v === "string" ? v : undefined;
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
