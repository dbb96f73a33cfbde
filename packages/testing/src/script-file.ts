import type { ChatRequest, RuleMatch, ScriptRule, ScriptedReply } from "./script.js";
import { messageText } from "./script.js";
import type { ScriptedServerOptions } from "./server.js";

/** A script as JSON: text matchers are strings, or "/pattern/flags" for a regular expression. */
export interface ScriptFile {
  turns?: ScriptedReply[];
  rules?: { match: Record<string, unknown>; reply: ScriptedReply; times?: number }[];
  fallback?: ScriptedReply;
  models?: string[];
  latencyMs?: number;
  tokenDelayMs?: number;
}

const TEXT_KEYS = ["content", "toolResult"] as const;
const PLAIN_KEYS = ["role", "hasTool", "model"] as const;

function toMatcher(value: unknown, where: string): string | RegExp {
  if (typeof value !== "string") throw new Error(`${where} must be a string or "/regex/flags"`);
  const m = /^\/(.*)\/([a-z]*)$/s.exec(value);
  if (!m) return value;
  try {
    return new RegExp(m[1] ?? "", m[2]);
  } catch (err) {
    throw new Error(`${where}: invalid regular expression ${value}: ${(err as Error).message}`, { cause: err });
  }
}

/** Reply of the offline demo when nothing else matches: echoes the last user message. */
export function echoReply(request: ChatRequest): ScriptedReply {
  const lastUser = [...request.messages].reverse().find((m) => m.role === "user");
  return { content: `(scripted model) You said: ${messageText(lastUser)}`, tokenDelayMs: 20 };
}

/** Turns a parsed JSON script into server options; throws naming the offending field. */
export function scriptFromJson(json: unknown, source = "script"): ScriptedServerOptions {
  if (!json || typeof json !== "object" || Array.isArray(json)) throw new Error(`${source}: expected a JSON object`);
  const file = json as ScriptFile;
  const rules: ScriptRule[] = (file.rules ?? []).map((r, i) => {
    const where = `${source}: rules[${String(i)}].match`;
    const match: RuleMatch = {};
    for (const [key, value] of Object.entries(r.match ?? {})) {
      if ((TEXT_KEYS as readonly string[]).includes(key))
        match[key as (typeof TEXT_KEYS)[number]] = toMatcher(value, `${where}.${key}`);
      else if ((PLAIN_KEYS as readonly string[]).includes(key) && typeof value === "string")
        match[key as (typeof PLAIN_KEYS)[number]] = value;
      else
        throw new Error(
          `${where}.${key}: unknown or invalid condition (use ${[...TEXT_KEYS, ...PLAIN_KEYS].join(", ")})`,
        );
    }
    return { match, reply: r.reply, ...(r.times === undefined ? {} : { times: r.times }) };
  });
  return {
    turns: file.turns ?? [],
    rules,
    fallback: file.fallback ?? echoReply,
    ...(file.models ? { models: file.models } : {}),
    ...(file.latencyMs === undefined ? {} : { latencyMs: file.latencyMs }),
    ...(file.tokenDelayMs === undefined ? {} : { tokenDelayMs: file.tokenDelayMs }),
  };
}
