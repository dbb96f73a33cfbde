// How the Agent talks to the model server: the `model:` settings of the Engine's config that
// shape requests and their time limits. They reach the Agent as one JSON environment variable;
// never credentials (the API key travels separately and only where the transport needs it).

export type TextToolCallsMode = "auto" | "off";
export type StreamUsageMode = "auto" | "on" | "off";

export interface ModelSettings {
  /** A label for the model server in messages, never its URL (the Engine sends MODEL_SERVER_LABEL). */
  server: string;
  /** Extra HTTP headers on every model request. */
  headers: Record<string, string>;
  /** Merged into every request body (e.g. Ollama's `options: {num_ctx}`). */
  extraBody: Record<string, unknown>;
  /** A stream with no byte for this long is cut. */
  idleTimeoutMs: number;
  /** A request without response headers for this long is cut. */
  requestTimeoutMs: number;
  /** Retries after 429, 5xx and network errors (attempts = 1 + this). */
  maxRetries: number;
  /** The longest wait a server's Retry-After may ask for; a longer one ends the turn. */
  maxRetryWaitMs: number;
  /** Recognize tool calls written as text (Hermes/Qwen `<tool_call>`, bare JSON). */
  textToolCalls: TextToolCallsMode;
  /** `stream_options.include_usage`: auto = send it, and stop if the server rejects it. */
  streamUsage: StreamUsageMode;
}

/**
 * What the Engine gives as `server`: the Agent names the model server by this label, and the
 * Engine writes the URL (without userinfo or query) in its place in what it shows the user.
 */
export const MODEL_SERVER_LABEL = "<model.base_url>";

/** The model's context window in tokens when the config names none (`model.context_window`). */
export const DEFAULT_CONTEXT_WINDOW = 128_000;
/** The smallest context window accepted, in tokens. */
export const MIN_CONTEXT_WINDOW = 1024;

export const DEFAULT_MODEL_SETTINGS: ModelSettings = {
  server: "",
  headers: {},
  extraBody: {},
  idleTimeoutMs: 60_000,
  requestTimeoutMs: 300_000,
  maxRetries: 3,
  maxRetryWaitMs: 120_000,
  textToolCalls: "off",
  streamUsage: "auto",
};

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Reads settings JSON (as the Engine wrote it); `problems` collects what is wrong. */
export function parseModelSettings(raw: string, where: string, problems: string[]): ModelSettings {
  const out: ModelSettings = { ...DEFAULT_MODEL_SETTINGS, headers: {}, extraBody: {} };
  if (!raw) return out;
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch (err) {
    problems.push(`${where} is not JSON: ${(err as Error).message}`);
    return out;
  }
  if (!isObj(v)) {
    problems.push(`${where} must be a JSON object`);
    return out;
  }
  const num = (key: keyof ModelSettings, min: number): void => {
    const n = v[key];
    if (n === undefined) return;
    if (typeof n !== "number" || !Number.isFinite(n) || n < min)
      problems.push(`${where}.${key} must be a number >= ${String(min)}`);
    else (out as unknown as Record<string, number>)[key] = n;
  };
  if (typeof v.server === "string") out.server = v.server;
  if (v.headers !== undefined) {
    if (!isObj(v.headers) || !Object.values(v.headers).every((h) => typeof h === "string"))
      problems.push(`${where}.headers must map names to strings`);
    else out.headers = v.headers as Record<string, string>;
  }
  if (v.extraBody !== undefined) {
    if (!isObj(v.extraBody)) problems.push(`${where}.extraBody must be an object`);
    else out.extraBody = v.extraBody;
  }
  num("idleTimeoutMs", 1);
  num("requestTimeoutMs", 1);
  num("maxRetries", 0);
  num("maxRetryWaitMs", 0);
  if (v.textToolCalls !== undefined) {
    if (v.textToolCalls !== "auto" && v.textToolCalls !== "off")
      problems.push(`${where}.textToolCalls must be "auto" or "off"`);
    else out.textToolCalls = v.textToolCalls;
  }
  if (v.streamUsage !== undefined) {
    if (v.streamUsage !== "auto" && v.streamUsage !== "on" && v.streamUsage !== "off")
      problems.push(`${where}.streamUsage must be "auto", "on" or "off"`);
    else out.streamUsage = v.streamUsage;
  }
  return out;
}
