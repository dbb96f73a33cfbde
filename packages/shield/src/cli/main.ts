/**
 * `palisade shield ...` as a function, so apps/cli (and tests) can run it in-process:
 *   check --tool NAME --args JSON [--policy FILE] [--json] [--context JSON]
 *   eval FILE.jsonl [--policy FILE]          (FILE may be - for stdin)
 *   eval --set NAME [--json]                 (a shipped case set, per-category table)
 *   policy lint FILE
 * Exit codes: check 0 allow, 2 block, 3 escalate; 1 usage or input error.
 */
import { readFile } from "node:fs/promises";
import { PolicyError, ShieldError } from "../errors.js";
import { createOpenAIJudge } from "../judge/openai.js";
import type { Judge } from "../judge/types.js";
import { loadPolicy } from "../policy/load.js";
import { parsePolicy } from "../policy/parse.js";
import type { Policy } from "../policy/types.js";
import { createShield } from "../shield.js";
import type { Verdict } from "../types.js";
import { contextFromJson } from "./context.js";
import { runEval, runEvalSet } from "./eval.js";

export interface CliIO {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
  stdin?: AsyncIterable<string | Buffer>;
  /** Environment for the optional judge (OPENAI_BASE_URL, OPENAI_API_KEY, PALISADE_SHIELD_CANARY). */
  env?: Record<string, string | undefined>;
}

const USAGE = `usage:
  palisade shield check --tool NAME --args JSON [--policy FILE] [--context JSON] [--json]
  palisade shield eval FILE.jsonl [--policy FILE] [--judge-model MODEL]
  palisade shield eval --set first|holdout|second [--json] [--policy FILE]
  palisade shield policy lint FILE
--policy takes a YAML file or one of: default, strict, permissive (default: default).
`;

class UsageError extends Error {}

function parseFlags(argv: string[], known: string[], booleans: string[]): { flags: Map<string, string>; rest: string[] } {
  const flags = new Map<string, string>();
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? "";
    if (a.startsWith("--") && a.length > 2) {
      const eq = a.indexOf("=");
      const name = eq > 0 ? a.slice(2, eq) : a.slice(2);
      if (booleans.includes(name)) {
        flags.set(name, "true");
        continue;
      }
      if (!known.includes(name)) throw new UsageError(`unknown option --${name}`);
      const value = eq > 0 ? a.slice(eq + 1) : argv[++i];
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      flags.set(name, value);
    } else rest.push(a);
  }
  return { flags, rest };
}

export function verdictJson(v: Verdict): string {
  return JSON.stringify({
    decision: v.decision, tier: v.tier, confidence: v.confidence, reason: v.reason, rules: v.rules,
    evaluation_us: v.evaluationUs, cached: v.cached, policy_version: v.policyVersion,
  });
}

export function verdictText(v: Verdict): string {
  return [
    `${v.decision.toUpperCase()} (tier ${v.tier}, confidence ${v.confidence.toFixed(2)}, ${v.evaluationUs} µs)`,
    `reason: ${v.reason}`,
    `rules: ${v.rules.length > 0 ? v.rules.join(", ") : "-"}`,
    `policy: ${v.policyVersion}`,
    "",
  ].join("\n");
}

function judgeFromEnv(model: string | undefined, env: Record<string, string | undefined>): Judge | undefined {
  if (model === undefined) return undefined;
  const canary = env["PALISADE_SHIELD_CANARY"];
  if (canary === undefined || canary === "") throw new UsageError("--judge-model needs PALISADE_SHIELD_CANARY (the per-install canary token) in the environment");
  return createOpenAIJudge({ model, baseURL: env["OPENAI_BASE_URL"], apiKey: env["OPENAI_API_KEY"], canary });
}

async function check(argv: string[], io: CliIO): Promise<number> {
  const { flags, rest } = parseFlags(argv, ["tool", "args", "policy", "context", "judge-model"], ["json"]);
  if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0] ?? ""}`);
  const tool = flags.get("tool");
  if (tool === undefined) throw new UsageError("check needs --tool NAME");
  let args: unknown = {};
  const rawArgs = flags.get("args");
  if (rawArgs !== undefined) {
    try {
      args = JSON.parse(rawArgs);
    } catch (e) {
      throw new UsageError(`--args is not valid JSON: ${(e as Error).message}`);
    }
  }
  let context = {};
  const rawCtx = flags.get("context");
  if (rawCtx !== undefined) {
    try {
      context = contextFromJson(JSON.parse(rawCtx), "--context");
    } catch (e) {
      throw new UsageError(e instanceof SyntaxError ? `--context is not valid JSON: ${e.message}` : (e as Error).message);
    }
  }
  const policy = await loadPolicy(flags.get("policy") ?? "default");
  const judge = judgeFromEnv(flags.get("judge-model"), io.env ?? {});
  const shield = createShield({ policy, judge, rateLimitPerMinute: 0, cache: false });
  const v = await shield.evaluate({ tool, args }, context);
  io.stdout.write(flags.has("json") ? `${verdictJson(v)}\n` : verdictText(v));
  return v.decision === "allow" ? 0 : v.decision === "block" ? 2 : 3;
}

async function lint(argv: string[], io: CliIO): Promise<number> {
  const [sub, file, ...extra] = argv;
  if (sub !== "lint" || file === undefined || extra.length > 0) throw new UsageError("policy needs: lint FILE");
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (e) {
    io.stderr.write(`${file}: cannot read: ${(e as Error).message}\n`);
    return 1;
  }
  let policy: Policy;
  try {
    policy = parsePolicy(text, file);
  } catch (e) {
    if (e instanceof PolicyError) {
      for (const p of e.problems) io.stdout.write(`${p.file}:${p.line}:${p.col}: error: ${p.message}\n`);
      io.stderr.write(`${file}: ${e.problems.length} problem${e.problems.length === 1 ? "" : "s"}; the policy would be refused\n`);
      return 1;
    }
    throw e;
  }
  io.stdout.write(`${file}: ok: policy ${policy.name} (${policy.version}), ${policy.rules.length} rules, ${policy.toolDefaults.length} tool defaults\n`);
  return 0;
}

export async function runShieldCli(argv: string[], io: CliIO): Promise<number> {
  const [cmd, ...rest] = argv;
  try {
    switch (cmd) {
      case "check":
        return await check(rest, io);
      case "eval": {
        const { flags, rest: files } = parseFlags(rest, ["policy", "judge-model", "set"], ["json"]);
        const set = flags.get("set");
        if (set === undefined ? files.length !== 1 : files.length !== 0) throw new UsageError("eval needs exactly one FILE.jsonl (or - for stdin), or --set NAME");
        const policy = await loadPolicy(flags.get("policy") ?? "default");
        const judge = judgeFromEnv(flags.get("judge-model"), io.env ?? {});
        if (set !== undefined) return await runEvalSet(set, policy, judge, flags.has("json"), io);
        return await runEval(files[0] ?? "-", policy, judge, io);
      }
      case "policy":
        return await lint(rest, io);
      case undefined:
      case "help":
      case "--help":
      case "-h":
        io.stdout.write(USAGE);
        return cmd === undefined ? 1 : 0;
      default:
        throw new UsageError(`unknown command "${cmd}"`);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr.write(`palisade shield: ${e.message}\n${USAGE}`);
      return 1;
    }
    if (e instanceof ShieldError) {
      io.stderr.write(`palisade shield: ${e.message}\n`);
      return 1;
    }
    io.stderr.write(`palisade shield: unexpected error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    return 1;
  }
}
