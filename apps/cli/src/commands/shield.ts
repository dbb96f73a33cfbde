import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { Judge } from "@palisade/shield";
import { CliError, ExitCode, UsageError } from "../cli/errors.js";
import { println } from "../cli/io.js";
import type { CommandContext } from "../cli/spec.js";
import { flag, stringOption, workspaceOf } from "./common.js";
import { choosePolicy, policyLine } from "./policy-source.js";
import { toolFacts } from "./shield-tool.js";

/** Exit codes of `shield check`: the verdict, for scripts. */
export const CHECK_EXIT = { allow: 0, block: 2, escalate: 3 } as const;
/**
 * A `shield check` that judged nothing (no --tool or --args, JSON that does not parse): never a
 * verdict's code, so a script cannot take a typo for BLOCK (sysexits' EX_USAGE).
 */
export const CHECK_USAGE_EXIT = 64;

const checkUsage = (message: string, hint: string): CliError =>
  new CliError(message, { exitCode: CHECK_USAGE_EXIT, hint });

function parseJsonOption(ctx: CommandContext, name: string): unknown {
  const raw = stringOption(ctx, name);
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch (e) {
    throw checkUsage(
      `--${name} is not valid JSON: ${(e as Error).message}`,
      `quote it for the shell, e.g. --${name} '{"path":"README.md"}'`,
    );
  }
}

async function judgeOf(ctx: CommandContext): Promise<Judge | undefined> {
  const model = stringOption(ctx, "judge-model");
  if (model === undefined) return undefined;
  const canary = ctx.io.env.PALISADE_SHIELD_CANARY;
  if (!canary)
    throw new UsageError(
      "--judge-model needs PALISADE_SHIELD_CANARY (the per-install canary token) in the environment",
    );
  const { createOpenAIJudge } = await import("@palisade/shield");
  return createOpenAIJudge({ model, baseURL: ctx.io.env.OPENAI_BASE_URL, apiKey: ctx.io.env.OPENAI_API_KEY, canary });
}

export async function shieldCheck(ctx: CommandContext): Promise<number> {
  const tool = stringOption(ctx, "tool");
  const example = 'e.g. --tool shell__execute_command --args \'{"command":"ls"}\'';
  if (!tool) throw checkUsage("'palisade shield check' needs --tool NAME", example);
  // Judging `{}` in place of missing arguments would answer for a call nobody makes.
  if (stringOption(ctx, "args") === undefined)
    throw checkUsage(
      `'palisade shield check' needs --args JSON: the arguments of the ${tool} call to judge`,
      `${example} (--args '{}' for a call without arguments)`,
    );
  const args = parseJsonOption(ctx, "args");
  const { contextFromJson, createShield, verdictJson, verdictText } = await import("@palisade/shield");
  let context;
  try {
    context = contextFromJson(parseJsonOption(ctx, "context"), "--context");
  } catch (e) {
    throw checkUsage((e as Error).message, "see 'palisade help shield check' for the context fields");
  }
  // What the Engine tells the Shield about the tool (its manifest); --context may still override.
  const facts = await toolFacts(ctx, tool);
  const chosen = await choosePolicy(ctx);
  const workspace = workspaceOf(ctx);
  const judge = await judgeOf(ctx);
  const shield = createShield({
    policy: chosen.policy,
    workspace,
    protectedPaths: chosen.protectedPaths,
    rateLimitPerMinute: 0,
    cache: false,
    ...(judge ? { judge } : {}),
  });
  const call = { tool, args };
  const callContext = { workspace, ...facts.context, ...context };
  // The first evaluation in a process also loads and compiles the policy's matchers (~100-200 ms);
  // what a call costs in a running Engine is a warm one's: the median of WARM_RUNS more. A judge
  // (a model) is asked once, so that verdict is timed once, loading included.
  const first = await shield.evaluate(call, callContext);
  let v = first;
  const warm: number[] = [];
  for (let i = 0; !judge && i < WARM_RUNS; i++) {
    v = await shield.evaluate(call, callContext);
    warm.push(v.evaluationUs);
  }
  const warmUs = warm.sort((a, b) => a - b)[Math.floor(warm.length / 2)] ?? first.evaluationUs;
  v = { ...v, evaluationUs: warmUs };
  const timing = judge
    ? `time: ${formatUs(first.evaluationUs)}, loading and the judge included`
    : `time: evaluation ${formatUs(warmUs)} (median of ${WARM_RUNS} warm runs); the first took ${formatUs(first.evaluationUs)}, loading included`;
  if (flag(ctx, "json")) {
    println(
      ctx.io.stdout,
      JSON.stringify({
        ...(JSON.parse(verdictJson(v)) as object),
        first_evaluation_us: first.evaluationUs,
        policy_name: chosen.policy.name,
        policy_source: chosen.source,
        tool_facts: facts.note,
      }),
    );
  } else {
    ctx.io.stdout.write(verdictText(v));
    println(ctx.io.stdout, timing);
    println(ctx.io.stdout, policyLine(chosen));
    println(ctx.io.stdout, facts.note);
  }
  return CHECK_EXIT[v.decision];
}

/** Evaluations after the first, whose median `shield check` reports as the evaluation time. */
const WARM_RUNS = 9;

function formatUs(us: number): string {
  return us >= 10_000 ? `${(us / 1000).toFixed(0)} ms` : `${us} µs`;
}

export async function shieldEval(ctx: CommandContext): Promise<number> {
  const file = ctx.positionals[0];
  const set = stringOption(ctx, "set");
  if ((file === undefined) === (set === undefined))
    throw new UsageError(
      "'palisade shield eval' needs a FILE.jsonl (or - for stdin), or --set NAME",
      "e.g. palisade shield eval cases.jsonl, or --set second",
    );
  const { runEval, runEvalSet } = await import("@palisade/shield");
  const chosen = await choosePolicy(ctx);
  const judge = await judgeOf(ctx);
  println(ctx.io.stderr, policyLine(chosen).replace("decided by", "judging with"));
  if (set !== undefined)
    return runEvalSet(set, chosen.policy, judge, flag(ctx, "json"), { stdout: ctx.io.stdout, stderr: ctx.io.stderr });
  if (file === undefined) return ExitCode.USAGE;
  return runEval(file === "-" ? "-" : resolve(ctx.io.cwd, file), chosen.policy, judge, {
    stdout: ctx.io.stdout,
    stderr: ctx.io.stderr,
    stdin: ctx.io.stdin,
  });
}

export async function shieldPolicyLint(ctx: CommandContext): Promise<number> {
  const file = resolve(ctx.io.cwd, ctx.positionals[0] as string);
  const { parsePolicy, PolicyError } = await import("@palisade/shield");
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (e) {
    throw new CliError(
      `cannot read ${file}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (e as Error).message}`,
      { hint: "give the path of a policy YAML file" },
    );
  }
  try {
    const policy = parsePolicy(text, file);
    const base = policy.extends
      ? `, extends ${policy.extends} (counted with its rules)`
      : " (replaces the default policy entirely; add `extends: default` to add to it)";
    println(
      ctx.io.stdout,
      `${file}: ok: policy ${policy.name} (${policy.version}), ${policy.rules.length} rules, ${policy.toolDefaults.length} tool defaults${base}`,
    );
    return ExitCode.OK;
  } catch (e) {
    if (!(e instanceof PolicyError)) throw e;
    // One line per problem: `file: path: message (line L, column C)`, as config.yaml's.
    println(ctx.io.stdout, e.message);
    println(
      ctx.io.stderr,
      `${file}: ${e.problems.length} problem${e.problems.length === 1 ? "" : "s"}; the policy would be refused`,
    );
    return ExitCode.FAILURE;
  }
}
