// What a failed model call means, from what servers really answer: OpenAI-style
// `{"error": {...}}`, vLLM's `{"object": "error", ...}`, Ollama's `{"error": "text"}`,
// llama.cpp's 500 with its message, plain text, or nothing at all.
import type OpenAI from "openai";
import { StreamErrorEvent } from "./accumulator.js";
import { StreamStalled } from "./sse.js";

export type FailureKind =
  | "cancelled"
  | "no_headers"
  | "stalled"
  | "connection"
  | "rate_limit"
  | "quota"
  | "context"
  | "rejects_stream_options"
  | "rejects_tools"
  | "rejects_reasoning"
  | "auth"
  | "not_found"
  | "bad_request"
  | "server"
  | "stream_error"
  | "cut_off"
  | "other";

export interface ModelFailure {
  kind: FailureKind;
  /** The server's own words (or ours, when it said nothing). */
  message: string;
  status: number | undefined;
  retryAfterMs: number | undefined;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

const CONTEXT =
  /context[_ ]length|maximum context|context (size|window)|too many tokens|prompt is too long|input is too long|exceeds? (the )?(available |maximum )?context|reduce the length of the (messages|prompt)|exceed_context_size/i;
const TOOLS =
  /does not support tools|tools? (is |are )?not supported|enable-auto-tool-choice|tool[_ ]choice|unsupported.*\btools?\b|\btools?\b.*(not permitted|unrecognized|unexpected|not allowed|extra (inputs|fields))/i;
const STREAM_OPTIONS = /stream_options/i;
const REASONING =
  /reasoning(_content)?\b.*(not permitted|unrecognized|unexpected|not allowed|extra (inputs|fields)|unknown)|remove the reasoning/i;

/** Turns any error body into `{"error": {"message": …}}`, so the SDK's error keeps the server's words. */
export function normalizeErrorBody(status: number, statusText: string, text: string): string {
  const trimmed = text.trim();
  let parsed: unknown;
  try {
    parsed = trimmed ? JSON.parse(trimmed) : undefined;
  } catch {
    parsed = undefined;
  }
  const message = (m: string): string => JSON.stringify({ error: { message: m } });
  if (!trimmed) return message(`HTTP ${String(status)}${statusText ? ` ${statusText}` : ""} with an empty body`);
  if (!isObj(parsed)) return message(trimmed.length > 2000 ? `${trimmed.slice(0, 2000)}…` : trimmed);
  const err = parsed.error;
  if (isObj(err) && typeof err.message === "string") return trimmed;
  if (typeof err === "string") return JSON.stringify({ error: { ...parsed, message: err } });
  // vLLM and FastAPI-style bodies: the message is at the top level (or in `detail`).
  const top = parsed.message ?? parsed.detail ?? err;
  const text2 = typeof top === "string" ? top : JSON.stringify(top ?? parsed);
  return JSON.stringify({ error: { ...parsed, ...(isObj(err) ? err : {}), message: text2 } });
}

/** Wraps a fetch so error responses always carry a message the SDK can read. */
export function keepErrorBodies(inner: typeof fetch): typeof fetch {
  return async (input, init) => {
    const res = await inner(input, init);
    if (res.status < 400) return res;
    const text = await res.text().catch(() => "");
    const headers = new Headers(res.headers);
    headers.delete("content-length");
    headers.delete("content-encoding");
    headers.set("content-type", "application/json");
    return new Response(normalizeErrorBody(res.status, res.statusText, text), {
      status: res.status,
      statusText: res.statusText,
      headers,
    });
  };
}

function bodyOf(err: { error?: unknown }): Obj {
  return isObj(err.error) ? err.error : {};
}

/** Classifies what the SDK (or the stream reader) threw. */
export function classifyModelError(
  sdk: typeof OpenAI,
  err: unknown,
  retryAfter: (h: Headers | undefined) => number | undefined,
): ModelFailure {
  const base = { status: undefined, retryAfterMs: undefined };
  if (err instanceof sdk.APIUserAbortError || (err instanceof Error && err.name === "AbortError"))
    return { ...base, kind: "cancelled", message: "cancelled" };
  if (err instanceof StreamStalled) return { ...base, kind: "stalled", message: err.message };
  if (err instanceof StreamErrorEvent)
    return { ...base, kind: CONTEXT.test(err.message) ? "context" : "stream_error", message: err.message };
  if (err instanceof sdk.APIConnectionTimeoutError) return { ...base, kind: "no_headers", message: "no response" };
  if (err instanceof sdk.APIConnectionError) {
    const cause = err.cause instanceof Error ? `: ${err.cause.message}` : "";
    return { ...base, kind: "connection", message: `${err.message}${cause}` };
  }
  if (err instanceof sdk.APIError) {
    const status = err.status;
    const body = bodyOf(err);
    const raw = typeof body.message === "string" ? body.message : err.message;
    const word = (v: unknown): string => (typeof v === "string" || typeof v === "number" ? String(v) : "");
    const code = `${word(body.code)} ${word(body.type)}`;
    const all = `${raw} ${code}`;
    const out = { status, retryAfterMs: retryAfter(err.headers), message: raw };
    if (status === undefined) return { ...out, kind: CONTEXT.test(all) ? "context" : "stream_error" };
    if (CONTEXT.test(all) && (status === 400 || status === 413 || status >= 500)) return { ...out, kind: "context" };
    if (status === 429)
      return { ...out, kind: /insufficient_quota|quota|billing|credits/i.test(all) ? "quota" : "rate_limit" };
    if (status === 401 || status === 403) return { ...out, kind: "auth" };
    if (status === 404) return { ...out, kind: TOOLS.test(all) ? "rejects_tools" : "not_found" };
    if (status >= 400 && status < 500) {
      if (STREAM_OPTIONS.test(all)) return { ...out, kind: "rejects_stream_options" };
      if (REASONING.test(all)) return { ...out, kind: "rejects_reasoning" };
      if (TOOLS.test(all)) return { ...out, kind: "rejects_tools" };
      return { ...out, kind: status === 408 || status === 409 ? "server" : "bad_request" };
    }
    if (status >= 500 && TOOLS.test(all)) return { ...out, kind: "rejects_tools" };
    return { ...out, kind: "server" };
  }
  const message = err instanceof Error ? err.message : String(err);
  if (cutOff(err)) return { ...base, kind: "cut_off", message };
  return { ...base, kind: "other", message };
}

/** The connection ended while the answer was being read (undici's SocketError, a reset): not a refusal. */
function cutOff(err: unknown): boolean {
  const e = err instanceof Error && err.message === "terminated" && err.cause instanceof Error ? err.cause : err;
  const code = e instanceof Error ? (e as Error & { code?: unknown }).code : undefined;
  return code === "UND_ERR_SOCKET" || code === "ECONNRESET" || code === "EPIPE";
}
