import { existsSync } from "node:fs";
import type { NetworkPolicy } from "../manifest/types.js";

/** The process a stdio MCP server runs as. */
export interface StdioSpawn {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

/** What a wrapper may need to know about the server it wraps (e.g. to build its sandbox). */
export interface StdioContext {
  capabilityId: string;
  network: NetworkPolicy;
  filesystem: "none" | "temp" | "workspace";
}

/** A wrapped command line, and what to release once its process has exited. */
export type WrappedSpawn = StdioSpawn & { close?: () => Promise<void> };

/**
 * Turns the server's own command line into the one that is spawned, e.g. wrapped in a sandbox.
 * `spec` is the configured argv with its (secret-expanded) environment and working directory.
 */
export type StdioWrapper = (spec: StdioSpawn, context: StdioContext) => WrappedSpawn | Promise<WrappedSpawn>;

/** Variables of the Engine's environment a server may see; nothing else of it passes. */
const PASS_THROUGH = ["PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR", "USER", "LOGNAME", "TERM", "SHELL"];

const SETPRIV = "/usr/bin/setpriv";

/**
 * The default wrapper: on Linux, `setpriv --pdeathsig KILL` makes the kernel kill the server
 * when the Engine dies, even by SIGKILL (a pipe EOF alone does not stop every server).
 */
export const dieWithParent: StdioWrapper = (spec) => {
  if (process.platform !== "linux" || !existsSync(SETPRIV)) return spec;
  return { ...spec, command: SETPRIV, args: ["--pdeathsig", "KILL", "--", spec.command, ...spec.args] };
};

/** The spawn of a configured stdio server: scrubbed environment plus its own, then `wrap`. */
export async function stdioSpawn(
  command: readonly string[],
  env: Record<string, string>,
  cwd: string | undefined,
  context: StdioContext,
  wrap: StdioWrapper = dieWithParent,
  parentEnv: NodeJS.ProcessEnv = process.env,
): Promise<WrappedSpawn> {
  const base: Record<string, string> = {};
  for (const k of PASS_THROUGH) {
    const v = parentEnv[k];
    if (v !== undefined) base[k] = v;
  }
  const [cmd = "", ...args] = command;
  return wrap({ command: cmd, args, env: { ...base, ...env }, ...(cwd === undefined ? {} : { cwd }) }, context);
}
