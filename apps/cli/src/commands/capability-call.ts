// `palisade capability call`: one tool call. A configured capability's tool (built-ins included)
// runs in the Engine, on the path every call takes (capability-call-engine.ts); a manifest reached
// at --address / started with --command, which the Engine does not know, runs here on the same
// path (callLocally: the Engine's runToolCall with this process's host and Shield), unaudited.
import { resolve } from "node:path";
import { callLocally } from "@palisade/engine";
import type { LocalTools } from "@palisade/engine";
import { DECISION_WORD } from "@palisade/shield/words";
import { CliError, UsageError } from "../cli/errors.js";
import { println } from "../cli/io.js";
import type { CommandContext } from "../cli/spec.js";
import { collect, ensureOutDir, saveInto } from "./artifact-files.js";
import { launchFlags } from "./capability-check.js";
import { flag, stringOption } from "./common.js";
import { openTools } from "./local-tools.js";
import { callThroughEngine, report, timeoutOf } from "./capability-call-engine.js";
import { confirm } from "./prompt.js";

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
  if (option !== undefined && positional !== undefined)
    throw new UsageError("give the arguments once: as ARGS_JSON or with --args, not both");
  return option ?? positional;
}

/** `<capability>__<tool> [ARGS]`, or `<capability> <tool> [ARGS]`. */
function configuredTarget(ctx: CommandContext): Configured {
  const [first, second, third] = ctx.positionals as [string, string | undefined, string | undefined];
  const split = first.indexOf("__");
  const byWords = split < 0 && second !== undefined && !second.trimStart().startsWith("{");
  if (!byWords && third !== undefined)
    throw new UsageError(
      `unexpected argument '${third}'`,
      "a configured tool takes <capability>__<tool> [ARGS_JSON]; a manifest needs --address or --command",
    );
  return { name: byWords ? `${first}__${second}` : first, argsText: argsTextOf(ctx, byWords ? third : second) };
}

function parseArgs(argsText: string | undefined): unknown {
  if (argsText === undefined) return {};
  try {
    return JSON.parse(argsText) as unknown;
  } catch (e) {
    throw new UsageError(
      `the arguments are not valid JSON: ${(e as Error).message}`,
      `e.g. '{"path":"README.md"}' (quoted for the shell)`,
    );
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

/** The answer to an escalation asked in this process: --yes, the person at the terminal, else no one. */
async function approve(
  ctx: CommandContext,
  name: string,
  reason: string,
): Promise<"allow_once" | "deny" | "unattended"> {
  if (flag(ctx, "yes")) return "allow_once";
  if (!ctx.io.stdin.isTTY) return "unattended";
  return (await confirm(ctx.io, `The Shield asks before ${name} runs (${reason}). Run it? [y/N] `))
    ? "allow_once"
    : "deny";
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
    const ms = timeoutOf(ctx);
    const sessionId = stringOption(ctx, "session") ?? "cli";
    const { result, toolName, verdict, artifacts } = await callLocally(
      tools,
      { toolName: name, argumentsJson: JSON.stringify(args) },
      {
        sessionId,
        signal: ms ? AbortSignal.timeout(ms) : new AbortController().signal,
        ask: (q) => approve(ctx, q.toolName, q.reason),
      },
    );
    if (verdict)
      println(
        ctx.io.stderr,
        `shield ${DECISION_WORD[verdict.decision]} (tier ${verdict.tier}, policy ${tools.shield.describe().policyName}): ${verdict.reason}`,
      );
    const outcome = {
      toolName,
      content: result.content,
      isError: result.isError,
      errorCode: result.error?.code ?? "",
      errorMessage: result.error?.message ?? "",
      ran: result.ran,
      sessionId,
      artifacts,
    };
    return await report(ctx, outcome, async (artifactId, dir) => {
      const found = await tools.host.artifact(sessionId, artifactId);
      if (!found) throw new CliError(`artifact ${artifactId} is no longer available`, { hint: "run the tool again" });
      await ensureOutDir(dir);
      return saveInto(dir, found.info.filename, artifactId, await collect(found.data));
    });
  } finally {
    await tools.close();
  }
}
