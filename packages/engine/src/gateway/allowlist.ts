// What of a Chat Completions request the gateway passes on, by allowlist. The body keys are the
// ones the Agent sends, plus the keys of `model.extra_body` with the values the user configured:
// any other key can change what the provider does on the user's account (fallbacks to other
// models, several answers billed at once, storing the conversation, provider-run web search), so
// it is refused with the key named, never silently dropped (a dropped key would change the
// request behind the caller's back). Headers are metadata the SDK adds, varying by version: the
// known ones pass, the rest are dropped.
import { isDeepStrictEqual } from "node:util";
import { BodyError, readTopLevel } from "./body.js";
import type { BodyPrefix } from "./body.js";

/** A refusal the gateway answers with (status, code, message). */
export class GatewayRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

type Check = (value: unknown) => string | undefined;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Keys the Agent's request carries, with what their value may be (undefined: not read here). */
const CHAT_KEYS: Record<string, Check | undefined> = {
  model: undefined,
  messages: undefined,
  stream: (v) => (typeof v === "boolean" ? undefined : "must be true or false"),
  stream_options: (v) =>
    isObj(v) && Object.entries(v).every(([k, x]) => k === "include_usage" && typeof x === "boolean")
      ? undefined
      : "may only be {include_usage: true|false}",
  // Function tools only: a provider-run tool (web search, code execution) acts outside the Engine.
  tools: (v) =>
    Array.isArray(v) && v.every((t) => isObj(t) && t.type === "function")
      ? undefined
      : 'must be a list of {type: "function", …} tools',
  n: (v) => (v === 1 ? undefined : "must be 1: the Agent reads one answer, and each one more is billed"),
};

/** Keys refused even when `model.extra_body` sets them: the model allowlist would not hold. */
const NEVER: Record<string, string> = {
  models: "OpenRouter's fallback list would reach other models than the allowed one",
  route: "OpenRouter's routing would reach other models than the allowed one",
};

/** The keys whose values are parsed for the checks (never the conversation itself). */
function wanted(extraBody: Readonly<Record<string, unknown>>): string[] {
  return ["model", ...Object.keys(CHAT_KEYS).filter((k) => CHAT_KEYS[k] !== undefined), ...Object.keys(extraBody)];
}

/**
 * Reads the top level of a Chat Completions body and checks its keys; returns the model it names
 * and where the next body of the conversation can resume reading (`prior`: this one's, see
 * BodyPrefix). Throws GatewayRefusal (400) naming the first key that is not allowed.
 */
export function checkChatBody(
  raw: Buffer,
  extraBody: Readonly<Record<string, unknown>> = {},
  prior?: BodyPrefix,
): { model: unknown; prefix?: BodyPrefix } {
  let top: ReturnType<typeof readTopLevel>;
  try {
    top = readTopLevel(raw, wanted(extraBody), prior);
  } catch (err) {
    if (err instanceof BodyError || err instanceof SyntaxError)
      throw new GatewayRefusal(
        400,
        "invalid_json",
        `the request body is not one JSON object as the gateway forwards it: ${err.message}`,
      );
    throw err;
  }
  for (const key of top.keys) {
    const never = NEVER[key];
    if (never !== undefined)
      throw new GatewayRefusal(
        400,
        "field_not_allowed",
        `the request body key ${JSON.stringify(key)} is refused: ${never}`,
      );
    if (Object.hasOwn(CHAT_KEYS, key)) {
      const why = CHAT_KEYS[key]?.(top.values.get(key));
      if (why !== undefined)
        throw new GatewayRefusal(400, "field_not_allowed", `the request body key ${JSON.stringify(key)} ${why}`);
      continue;
    }
    if (Object.hasOwn(extraBody, key)) {
      if (!isDeepStrictEqual(top.values.get(key), extraBody[key])) {
        throw new GatewayRefusal(
          400,
          "field_not_allowed",
          `the request body key ${JSON.stringify(key)} must be the value model.extra_body sets in the Engine's config`,
        );
      }
      continue;
    }
    throw new GatewayRefusal(
      400,
      "field_not_allowed",
      `the request body key ${JSON.stringify(key)} is not forwarded: the gateway passes ${Object.keys(CHAT_KEYS).join(", ")} and the keys of model.extra_body in the Engine's config (with the values set there); add ${JSON.stringify(key)} to model.extra_body to send it`,
    );
  }
  return { model: top.values.get("model"), ...(top.prefix ? { prefix: top.prefix } : {}) };
}

/** Request headers passed on by name; the Agent's credential and everything else stay here. */
const HEADERS = new Set([
  "content-type",
  "accept",
  "user-agent",
  // The openai SDK's own description of itself and of its retries.
  "x-stainless-lang",
  "x-stainless-package-version",
  "x-stainless-os",
  "x-stainless-arch",
  "x-stainless-runtime",
  "x-stainless-runtime-version",
  "x-stainless-retry-count",
  "x-stainless-timeout",
]);

/** The caller's headers that go upstream: known names with short printable values. */
export function forwardedHeaders(headers: NodeJS.Dict<string | string[]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === "string" && HEADERS.has(name) && value.length <= 256 && /^[\x20-\x7e]*$/.test(value))
      out[name] = value;
  }
  return out;
}
