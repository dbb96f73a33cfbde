import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { dieWithParent } from "@palisade/capabilities";
import type { McpCapabilityConfig, StdioWrapper } from "@palisade/capabilities";

const require = createRequire(import.meta.url);

/** The entry script of an MCP server package installed from npm (run unmodified). */
export function serverScript(
  pkg: "@modelcontextprotocol/server-everything" | "@modelcontextprotocol/server-filesystem",
): string {
  return join(dirname(require.resolve(`${pkg}/package.json`)), "dist", "index.js");
}

export function everythingConfig(
  id = "everything",
  extra: Partial<McpCapabilityConfig> = {},
  env?: Record<string, string>,
): McpCapabilityConfig {
  return {
    id,
    mcp: {
      command: [process.execPath, serverScript("@modelcontextprotocol/server-everything"), "stdio"],
      ...(env ? { env } : {}),
    },
    ...extra,
  };
}

export function filesystemConfig(dir: string, id = "fs", trusted?: boolean): McpCapabilityConfig {
  return {
    id,
    mcp: {
      command: [process.execPath, serverScript("@modelcontextprotocol/server-filesystem"), dir],
      ...(trusted === undefined ? {} : { trusted }),
    },
  };
}

const RECORDER = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "mcp", "record-stdin.mjs");

/**
 * A wrapper that records what the server of capability `id` receives on stdin into `file` (and
 * pids into `file.pids`); other servers get the default wrapper.
 */
export function recordingWrapper(
  id: string,
  file: string,
  seen?: (spec: Parameters<StdioWrapper>[0]) => void,
): StdioWrapper {
  return (spec, context) => {
    if (context.capabilityId !== id) return dieWithParent(spec, context);
    seen?.(spec);
    return dieWithParent(
      {
        ...spec,
        command: process.execPath,
        args: [RECORDER, spec.command, ...spec.args],
        env: { ...spec.env, RECORD_FILE: file },
      },
      context,
    );
  };
}

/** JSON-RPC messages the server received, parsed from the recording. */
export function recorded(
  file: string,
): Array<{ id?: number | string; method?: string; params?: Record<string, unknown> }> {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as { id?: number; method?: string; params?: Record<string, unknown> });
}

/** [wrapper pid, server pid] of each launch, in order. */
export function recordedPids(file: string): Array<[number, number]> {
  if (!existsSync(`${file}.pids`)) return [];
  return readFileSync(`${file}.pids`, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => l.split(" ").map(Number) as [number, number]);
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls `check`; `timeoutMs` bounds a wait that never ends (a loaded machine stretches every step). */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
