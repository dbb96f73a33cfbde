import { stat } from "node:fs/promises";
import { AsyncQueue } from "@palisade/protocol";
import { ToolError } from "@palisade/capability-sdk";
import type { StreamItem, ToolContext, ToolDefinition } from "@palisade/capability-sdk";
import { Workspace } from "@palisade/capability-files";
import { DEFAULT_MAX_OUTPUT_BYTES } from "./output.js";
import { DEFAULT_TIMEOUT_MS, runCommand } from "./runner.js";
import type { RunResult } from "./runner.js";

export const MAX_TIMEOUT_MS = 10 * 60_000;

// A type alias (not an interface) so it is assignable to the SDK's Record-typed args.
type Args = {
  command: string;
  cwd?: string;
  timeout_ms?: number;
};

async function prepare(args: Args, ctx: ToolContext): Promise<{ cwd: string; relative: string }> {
  const ws = await Workspace.fromConfig(ctx.config);
  const dir = await ws.resolve(args.cwd ?? ".");
  const info = await stat(dir.absolute).catch(() => undefined);
  if (!info?.isDirectory())
    throw new ToolError(`cwd "${args.cwd}" is not an existing directory in the workspace`, { code: "invalid_cwd" });
  return { cwd: dir.absolute, relative: dir.relative };
}

function summary(r: RunResult, timeoutMs: number): Record<string, unknown> {
  const out: Record<string, unknown> = {
    exit_code: r.exitCode,
    output: r.output,
    duration_ms: r.durationMs,
  };
  if (r.signal) out.signal = r.signal;
  const notes: string[] = [];
  if (r.timedOut) {
    out.timed_out = true;
    notes.push(
      `the command did not finish within ${timeoutMs} ms and was killed with its process group; raise timeout_ms (max ${MAX_TIMEOUT_MS}) or run less at once`,
    );
  }
  if (r.cancelled) {
    out.cancelled = true;
    notes.push("the call was cancelled and the command killed");
  }
  if (r.truncated) {
    out.truncated = true;
    notes.push(
      `output was ${r.outputBytes} bytes; only the first and last parts (${DEFAULT_MAX_OUTPUT_BYTES} bytes) are shown: redirect to a file and read or grep it`,
    );
  }
  if (notes.length > 0) out.note = notes.join("; ");
  return out;
}

export const executeCommand: ToolDefinition = {
  name: "execute_command",
  description:
    "Run a shell command (/bin/sh -c) in the workspace (or `cwd` inside it) and return its exit code and combined stdout/stderr. " +
    "Default timeout 60 s (`timeout_ms`, max 600000): on expiry the command and all its child processes are killed. " +
    "Output beyond 64 KiB is cut in the middle. Processes left running in the background are ended when the command exits. No input is given on stdin.",
  inputSchema: {
    type: "object",
    properties: {
      command: { type: "string", minLength: 1, description: 'The command line, e.g. "npm test".' },
      cwd: { type: "string", description: "Working directory relative to the workspace (default the root)." },
      timeout_ms: {
        type: "integer",
        minimum: 1,
        maximum: MAX_TIMEOUT_MS,
        description: "Time limit in milliseconds (default 60000).",
      },
    },
    required: ["command"],
    additionalProperties: false,
  },
  async handler(args: Args, ctx: ToolContext) {
    const { cwd, relative } = await prepare(args, ctx);
    const timeoutMs = args.timeout_ms ?? DEFAULT_TIMEOUT_MS;
    const result = await runCommand(args.command, { cwd, timeoutMs, signal: ctx.signal });
    return { cwd: relative, ...summary(result, timeoutMs) };
  },
  async *stream(args: Args, ctx: ToolContext): AsyncGenerator<StreamItem> {
    const { cwd } = await prepare(args, ctx);
    const timeoutMs = args.timeout_ms ?? DEFAULT_TIMEOUT_MS;
    const lines = new AsyncQueue<string>();
    let sent = 0;
    let cut = false;
    const run = runCommand(args.command, {
      cwd,
      timeoutMs,
      signal: ctx.signal,
      onLine: (line) => {
        if (cut) return;
        sent += Buffer.byteLength(line);
        if (sent > DEFAULT_MAX_OUTPUT_BYTES) {
          cut = true;
          lines.push(`[output cut after ${DEFAULT_MAX_OUTPUT_BYTES} bytes; the command keeps running]\n`);
        } else lines.push(line);
      },
    }).finally(() => lines.end());
    for await (const line of lines) yield line;
    const result = await run;
    const { output: _output, ...rest } = summary(result, timeoutMs);
    yield `\n[exit ${result.exitCode ?? `signal ${result.signal}`}] ${JSON.stringify(rest)}\n`;
  },
};
