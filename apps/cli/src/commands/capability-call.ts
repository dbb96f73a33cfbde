// `palisade capability call`: one tool call. A configured capability's tool (built-ins included)
// runs in the Engine, on the path every call takes (capability-call-engine.ts); a manifest reached
// at --address / started with --command, which the Engine does not know, runs here through the
// same host, argument validation, Shield and artifact store.
import { randomUUID } from "node:crypto";
import { resolve } from "node:path";
import type { LocalTools } from "@palisade/engine";
import { CliError, ExitCode, UsageError } from "../cli/errors.js";
import { println } from "../cli/io.js";
import type { CommandContext } from "../cli/spec.js";
import { collect, saveInto } from "./artifact-files.js";
import { launchFlags } from "./capability-check.js";
import { flag, hintCommand, stringOption } from "./common.js";
import { openTools } from "./local-tools.js";
import { callThroughEngine } from "./capability-call-engine.js";
import { confirm } from "./prompt.js";
import { jsonLine } from "../format/terminal-text.js";

interface Configured {
  name: string;
  argsText: string | undefined;
}

interface Target {
  tools: LocalTools;
  name: string;
  argsText: string | undefined;
}

function argsTextOf(ctx: CommandContext, positional: string | undefined): string | undefined {
  const option = stringOption(ctx, "args");
  if (option !== undefined && positional !== undefined) throw new UsageError("give the arguments once: as ARGS_JSON or with --args, not both");
  return option ?? positional;
}

/** `<capability>__<tool> [ARGS]`, or `<capability> <tool> [ARGS]`. */
function configuredTarget(ctx: CommandContext): Configured {
  const [first, second, third] = ctx.positionals as [string, string | undefined, string | undefined];
  const split = first.indexOf("__");
  const byWords = split < 0 && second !== undefined && !second.trimStart().startsWith("{");
  if (!byWords && third !== undefined) throw new UsageError(`unexpected argument '${third}'`, "a configured tool takes <capability>__<tool> [ARGS_JSON]; a manifest needs --address or --command");
  return { name: byWords ? `${first}__${second}` : first, argsText: argsTextOf(ctx, byWords ? third : second) };
}

function parseArgs(argsText: string | undefined): unknown {
  if (argsText === undefined) return {};
  try {
    return JSON.parse(argsText) as unknown;
  } catch (e) {
    throw new UsageError(`the arguments are not valid JSON: ${(e as Error).message}`, `e.g. '{"path":"README.md"}' (quoted for the shell)`);
  }
}

async function openTarget(ctx: CommandContext, launch: NonNullable<ReturnType<typeof launchFlags>>): Promise<Target> {
  const [first, second, third] = ctx.positionals as [string, string | undefined, string | undefined];
  if (second === undefined) throw new UsageError("with --address or --command, call takes MANIFEST TOOL [ARGS_JSON]");
  const { loadManifest } = await import("@palisade/capabilities");
  const manifest = resolve(ctx.io.cwd, first);
  const m = await loadManifest(manifest);
  const entry = { id: m.id, manifest, ...launch, ...("command" in launch ? { cwd: ctx.io.cwd } : {}) };
  const name = second.includes("__") ? second : `${m.id}__${second}`;
  return { tools: await openTools(ctx, { only: [entry] }), name, argsText: argsTextOf(ctx, third) };
}

async function approve(ctx: CommandContext, name: string, reason: string): Promise<boolean> {
  if (flag(ctx, "yes")) return true;
  if (!ctx.io.stdin.isTTY) return false;
  return confirm(ctx.io, `The Shield asks before ${name} runs (${reason}). Run it? [y/N] `);
}

export async function capabilityCall(ctx: CommandContext): Promise<number> {
  const launch = launchFlags(ctx);
  if (!launch) {
    const { name, argsText } = configuredTarget(ctx);
    return callThroughEngine(ctx, name, parseArgs(argsText));
  }
  const { tools, name, argsText } = await openTarget(ctx, launch);
  try {
    const args = parseArgs(argsText);
    const resolved = tools.host.resolve(name);
    if ("error" in resolved) {
      throw new CliError(resolved.error.replace(/ Load the tool's group.*$/, ""), { hint: `every tool and its health: ${hintCommand(ctx, "capability list")}` });
    }
    const tool = resolved.tool;
    const invalid = tools.validate(tool, args);
    if (invalid) throw new CliError(`invalid arguments for ${tool.name}: ${invalid}`, { hint: `the schema is in the manifest of ${tool.capabilityId}` });
    const sessionId = stringOption(ctx, "session") ?? "cli";
    const verdict = await tools.shield.evaluate({
      callId: `cli_${randomUUID()}`,
      toolName: tool.name,
      argumentsJson: JSON.stringify(args),
      sessionId,
      mode: "normal",
      workspace: tools.workspace,
      capabilityId: tool.capabilityId,
      ...(tool.policy ? { manifestPolicy: tool.policy } : {}),
      ...(tool.networkMode ? { networkMode: tool.networkMode } : {}),
      ...(tool.networkAllowlist ? { networkAllowlist: tool.networkAllowlist } : {}),
    });
    println(ctx.io.stderr, `shield ${verdict.decision} (tier ${verdict.tier}, policy ${tools.shield.describe().policyName}): ${verdict.reason}`);
    if (verdict.decision === "BLOCK") return 2;
    if (verdict.decision === "ESCALATE" && !(await approve(ctx, tool.name, verdict.reason))) {
      println(ctx.io.stderr, `not run: the Shield asks for approval; re-run with --yes to approve ${tool.name}${ctx.io.stdin.isTTY ? "" : " (no terminal to ask in)"}`);
      return 3;
    }
    const timeout = stringOption(ctx, "timeout");
    const ms = timeout === undefined ? undefined : Number(timeout);
    if (ms !== undefined && !(Number.isInteger(ms) && ms > 0)) throw new UsageError(`--timeout must be a positive number of milliseconds, got '${timeout}'`);
    const outcome = await tools.host.invoke(tool, args, { sessionId, workspace: tools.workspace, signal: ms ? AbortSignal.timeout(ms) : new AbortController().signal });
    const out = stringOption(ctx, "out");
    const saved: string[] = [];
    if (out) {
      const dir = resolve(ctx.io.cwd, out);
      for (const a of outcome.artifacts) {
        const found = await tools.host.artifact(sessionId, a.artifactId);
        if (found) saved.push(await saveInto(dir, found.info.filename, a.artifactId, await collect(found.data)));
      }
    }
    if (flag(ctx, "json")) {
      println(ctx.io.stdout, jsonLine(JSON.stringify({ ok: outcome.ok, content: outcome.content, artifacts: outcome.artifacts, saved, ...(outcome.error ? { error: outcome.error } : {}) }, null, 2)));
    } else {
      // a tool's or server's output: JSON stays JSON, text is shown with its controls made visible
      println(ctx.io.stdout, jsonLine(outcome.content));
      for (const p of saved) println(ctx.io.stdout, `saved ${p}`);
      if (!out) for (const a of outcome.artifacts) println(ctx.io.stderr, `artifact ${a.filename} (${a.artifactId}): add --out DIR to save it`);
    }
    return outcome.ok ? ExitCode.OK : ExitCode.FAILURE;
  } finally {
    await tools.close();
  }
}
