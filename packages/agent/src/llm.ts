import type OpenAI from "openai";
import { StreamAccumulator } from "./accumulator.js";
import { AgentFailure } from "./errors.js";
import { sdkTransport } from "./gateway-fetch.js";
import type { ModelEndpoint } from "./gateway-fetch.js";
import type { CallModel, ModelRequest, ModelResult } from "./model.js";
import { classifyModelError, keepErrorBodies } from "./model-errors.js";
import type { ModelFailure } from "./model-errors.js";
import { encodeRequestBody } from "./request-body.js";
import { DEFAULT_RETRY, nextRetryDelay, retryAfterMs } from "./retry.js";
import type { RetryPolicy } from "./retry.js";
import { DEFAULT_MODEL_SETTINGS } from "./settings.js";
import type { ModelSettings } from "./settings.js";
import { sseEvents } from "./sse.js";
import { TextToolCalls } from "./text-tools.js";

export { StreamAccumulator };

export interface ModelClientOptions {
  /** The Engine's model gateway (the Agent process), or an endpoint directly (in-process tests). */
  endpoint: ModelEndpoint;
  retry?: Partial<RetryPolicy>;
  /** Request shaping, time limits and retries (default: DEFAULT_MODEL_SETTINGS). */
  settings?: Partial<ModelSettings>;
  /** Where retries are reported (default: stderr). */
  log?: (line: string) => void;
}

type Sdk = typeof OpenAI;

/** Header naming the session a call is for (the Engine's gateway counts tokens per session). */
export const SESSION_HEADER = "x-palisade-session";

/** A URL without its userinfo and query (where credentials go), for messages. */
function withoutSecrets(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return "the configured model server";
  }
}

function describeEndpoint(endpoint: ModelEndpoint): string {
  if ("gateway" in endpoint) return `the Engine's model gateway (${endpoint.gateway})`;
  return withoutSecrets(endpoint.baseURL || "https://api.openai.com/v1");
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new AgentFailure("CANCELLED", "the turn was cancelled"));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new AgentFailure("CANCELLED", "the turn was cancelled"));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

const seconds = (ms: number): string => `${String(Math.round(ms / 100) / 10)} s`;

/** What a server refused, learned from its errors and remembered for the Agent's life, per model. */
interface ServerQuirks {
  noStreamOptions: boolean;
  noTools: boolean;
  noReasoningEcho: boolean;
  toolsError: string;
}

/** The AgentFailure a classified failure ends the turn with; `where` names the server. */
function failureFor(f: ModelFailure, where: string, s: ModelSettings, cause: unknown): AgentFailure {
  const http = f.status !== undefined ? `HTTP ${String(f.status)}: ` : "";
  switch (f.kind) {
    case "cancelled":
      return new AgentFailure("CANCELLED", "the turn was cancelled", { cause });
    case "no_headers":
      return new AgentFailure(
        "LLM_TIMEOUT",
        `the model server at ${where} sent no response within ${seconds(s.requestTimeoutMs)} (model.request_timeout_s); is it overloaded or still loading the model?`,
        { cause },
      );
    case "stalled":
      return new AgentFailure(
        "LLM_TIMEOUT",
        `the model server at ${where} started answering, then sent nothing for ${seconds(s.idleTimeoutMs)} (model.idle_timeout_s); the answer was cut off`,
        { cause },
      );
    case "connection":
      return new AgentFailure(
        "LLM_CALL_FAILED",
        `cannot reach the model server at ${where}: ${f.message}; check model.base_url (OPENAI_BASE_URL) and that the server runs`,
        { cause },
      );
    case "rate_limit":
      return new AgentFailure(
        "RATE_LIMITED",
        `the model server at ${where} rate-limited the request (${http}${f.message}); wait a little and send the message again`,
        { cause },
      );
    case "quota":
      return new AgentFailure(
        "RATE_LIMITED",
        `the model server at ${where} refused the request for quota or billing (${http}${f.message}); check the account's plan and credits`,
        { cause, recoverable: false },
      );
    case "context":
      return new AgentFailure(
        "CONTEXT_TOO_LONG",
        `the conversation is too long for the model at ${where} (${http}${f.message}); start a new session or raise model.context_window to match the server`,
        { cause },
      );
    case "auth":
      return new AgentFailure(
        "LLM_CALL_FAILED",
        `the model server at ${where} refused the credentials (${http}${f.message}); check model.api_key (OPENAI_API_KEY)`,
        { cause, recoverable: false },
      );
    case "not_found":
      return new AgentFailure(
        "LLM_CALL_FAILED",
        `the model server at ${where} answered 404 (${f.message}); check model.name (PALISADE_MODEL) and model.base_url (OPENAI_BASE_URL)`,
        { cause },
      );
    case "stream_error":
      return new AgentFailure(
        "STREAM_ERROR",
        `the model server at ${where} reported an error in the stream: ${f.message}`,
        { cause },
      );
    case "bad_request":
    case "rejects_stream_options":
    case "rejects_tools":
    case "rejects_reasoning":
      return new AgentFailure(
        "LLM_CALL_FAILED",
        `the model server at ${where} rejected the request (${http}${f.message})`,
        { cause },
      );
    case "cut_off":
      return new AgentFailure(
        "LLM_CALL_FAILED",
        `the model server at ${where} closed the connection before its answer was complete (${f.message}); the answer was cut off`,
        { cause },
      );
    case "server":
      return new AgentFailure(
        "LLM_CALL_FAILED",
        `the model server at ${where} failed (${http}${f.message}); it may be overloaded or down`,
        { cause },
      );
    default:
      return new AgentFailure("LLM_CALL_FAILED", `the model call to ${where} failed: ${f.message}`, { cause });
  }
}

const RETRYABLE = new Set(["connection", "rate_limit", "server", "stream_error", "cut_off"]);

let sdk: Promise<Sdk> | undefined;
/**
 * The SDK is imported on first use (or by `preloadModelSdk`) so the Agent can announce itself to
 * the Engine while the import is still running: AgentReady does not wait for it.
 */
export function preloadModelSdk(): Promise<Sdk> {
  sdk ??= import("openai").then((m) => m.default);
  return sdk;
}

/** A CallModel backed by the official `openai` SDK (streaming Chat Completions) with bounded retries. */
export function createModelCaller(options: ModelClientOptions): CallModel {
  const settings: ModelSettings = { ...DEFAULT_MODEL_SETTINGS, ...options.settings };
  const policy: RetryPolicy = {
    ...DEFAULT_RETRY,
    maxAttempts: settings.maxRetries + 1,
    maxTotalDelayMs: Math.max(DEFAULT_RETRY.maxTotalDelayMs, settings.maxRetryWaitMs),
    ...options.retry,
  };
  const where = settings.server || describeEndpoint(options.endpoint);
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const quirks = new Map<string, ServerQuirks>();
  const quirksOf = (model: string): ServerQuirks => {
    let q = quirks.get(model);
    if (!q)
      quirks.set(
        model,
        (q = {
          noStreamOptions: settings.streamUsage === "off",
          noTools: false,
          noReasoningEcho: false,
          toolsError: "",
        }),
      );
    return q;
  };
  let client: Promise<{ OpenAI: Sdk; client: OpenAI }> | undefined;
  const getClient = (): Promise<{ OpenAI: Sdk; client: OpenAI }> =>
    (client ??= Promise.all([preloadModelSdk(), sdkTransport(options.endpoint)]).then(([OpenAI, transport]) => ({
      OpenAI,
      client: new OpenAI({
        apiKey: transport.apiKey,
        ...(transport.baseURL ? { baseURL: transport.baseURL } : {}),
        // Retries are ours: bounded in total time and aware of partially streamed output.
        maxRetries: 0,
        timeout: settings.requestTimeoutMs,
        // Whatever fetch reaches the model, keep this wrap: it rewrites error bodies of every
        // shape (vLLM, Ollama, llama.cpp, plain text, none) so the SDK's error keeps the server's words.
        fetch: keepErrorBodies(transport.fetch ?? globalThis.fetch),
      }),
    })));

  const body = (request: ModelRequest, q: ServerQuirks): Record<string, unknown> => {
    const messages = q.noReasoningEcho
      ? request.messages.map((m) => {
          if (m.role !== "assistant") return m;
          const {
            reasoning_content: _a,
            reasoning: _b,
            ...rest
          } = m as typeof m & { reasoning_content?: unknown; reasoning?: unknown };
          return rest;
        })
      : request.messages;
    return {
      ...settings.extraBody,
      model: request.model,
      messages,
      ...(request.tools.length > 0 && !q.noTools ? { tools: request.tools } : {}),
      stream: true,
      ...(q.noStreamOptions ? {} : { stream_options: { include_usage: true } }),
    };
  };

  const attempt = async (
    client: OpenAI,
    request: ModelRequest,
    q: ServerQuirks,
    acc: StreamAccumulator,
  ): Promise<void> => {
    // The SDK's own request (auth, headers, time limit, errors) with a body it sends as is:
    // chat.completions.create would serialize the whole conversation again at every call.
    const response = await client
      .post("/chat/completions", {
        body: encodeRequestBody(body(request, q)),
        stream: true,
        signal: request.signal,
        timeout: settings.requestTimeoutMs,
        headers: {
          "content-type": "application/json",
          ...settings.headers,
          ...(request.sessionId ? { [SESSION_HEADER]: request.sessionId } : {}),
        },
      })
      .asResponse();
    if (!response.body) return;
    if ((response.headers.get("content-type") ?? "").includes("application/json")) {
      // A server that ignores `stream: true` answers with one chat.completion object.
      const text = await response.text();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (err) {
        const start = JSON.stringify(text.slice(0, 80));
        throw new AgentFailure(
          "LLM_CALL_FAILED",
          `the model server at ${where} answered HTTP ${String(response.status)} with a body that is not valid JSON (${start}${text.length > 80 ? "…" : ""}): ${(err as Error).message}`,
          { cause: err },
        );
      }
      acc.add(parsed);
      return;
    }
    for await (const event of sseEvents(response.body, settings.idleTimeoutMs)) {
      if (!event.data.trim()) continue;
      let data: unknown;
      try {
        data = JSON.parse(event.data);
      } catch {
        log(
          `palisade-agent: skipped a stream event from ${where} that is not JSON: ${JSON.stringify(event.data.slice(0, 120))}`,
        );
        continue;
      }
      acc.add(
        event.event === "error" && typeof data === "object" && data !== null && !("error" in data)
          ? { error: data }
          : data,
      );
    }
    // The SDK ends a stream quietly when its signal fires.
    if (request.signal.aborted) throw new AgentFailure("CANCELLED", "the turn was cancelled");
  };

  return async (request) => {
    const { OpenAI, client } = await getClient();
    const q = quirksOf(request.model);
    const state = { attempts: 0, waitedMs: 0 };
    const adapted = new Set<string>();
    if (q.noTools && request.tools.length > 0)
      request.onNotice?.(
        `Tools are unavailable with this model (the server said: ${q.toolsError}); answering without them.`,
      );
    for (;;) {
      const names = new Set(request.tools.map((t) => (t.type === "function" ? t.function.name : "")));
      const text =
        settings.textToolCalls === "auto" && request.tools.length > 0 && !q.noTools
          ? new TextToolCalls(names)
          : undefined;
      const onToken = text
        ? (t: string): void => {
            const shown = text.push(t);
            if (shown) request.onToken?.(shown);
          }
        : request.onToken;
      const acc = new StreamAccumulator({
        ...(onToken ? { onToken } : {}),
        ...(request.onReasoning ? { onReasoning: request.onReasoning } : {}),
      });
      try {
        await attempt(client, request, q, acc);
        return finish(acc.result(), text, request);
      } catch (err) {
        if (err instanceof AgentFailure) throw err;
        if (request.signal.aborted) throw new AgentFailure("CANCELLED", "the turn was cancelled", { cause: err });
        const f = classifyModelError(OpenAI, err, retryAfterMs);
        // A server that refuses a part of the request is asked once more without it.
        if (
          f.kind === "rejects_stream_options" &&
          !q.noStreamOptions &&
          settings.streamUsage !== "on" &&
          !adapted.has(f.kind)
        ) {
          adapted.add(f.kind);
          q.noStreamOptions = true;
          log(`palisade-agent: ${where} rejects stream_options (${f.message}); asking without it from now on`);
          continue;
        }
        if (f.kind === "rejects_tools" && request.tools.length > 0 && !q.noTools && !adapted.has(f.kind)) {
          adapted.add(f.kind);
          q.noTools = true;
          q.toolsError = f.message;
          request.onNotice?.(
            `Tools are unavailable with this model (the server said: ${f.message}); answering without them.`,
          );
          continue;
        }
        if (f.kind === "rejects_reasoning" && !q.noReasoningEcho && !adapted.has(f.kind)) {
          adapted.add(f.kind);
          q.noReasoningEcho = true;
          continue;
        }
        state.attempts++;
        const failure = failureFor(f, where, settings, err);
        if (!RETRYABLE.has(f.kind) || acc.emitted) throw failure;
        if (f.retryAfterMs !== undefined && f.retryAfterMs > settings.maxRetryWaitMs) {
          throw new AgentFailure(
            failure.code,
            `${failure.message}; the server asks to wait ${seconds(f.retryAfterMs)}, more than model.max_retry_wait_s (${seconds(settings.maxRetryWaitMs)})`,
            { cause: err },
          );
        }
        const wait = nextRetryDelay(policy, state, f.retryAfterMs);
        if (wait === undefined) {
          throw new AgentFailure(
            failure.code,
            `${failure.message}; gave up after ${String(state.attempts)} attempt(s) and ${String(state.waitedMs)} ms of backoff`,
            {
              cause: err,
              recoverable: true,
            },
          );
        }
        if (f.kind === "rate_limit")
          request.onNotice?.(
            `Rate limited by the model server, retrying in ${String(Math.max(1, Math.ceil(wait / 1000)))} s`,
          );
        log(`palisade-agent: ${failure.message}; retrying in ${String(wait)} ms`);
        await abortableSleep(wait, request.signal);
        state.waitedMs += wait;
      }
    }
  };
}

/** Applies text tool-call recognition to a finished answer. */
function finish(result: ModelResult, text: TextToolCalls | undefined, request: ModelRequest): ModelResult {
  if (!text) return result;
  const found = text.finish();
  if (result.toolCalls.length > 0 || found.calls.length === 0) {
    if (found.release) request.onToken?.(found.release);
    return result;
  }
  if (found.release) request.onToken?.(found.release);
  return { ...result, content: found.content, toolCalls: found.calls, finishReason: "tool_calls" };
}
