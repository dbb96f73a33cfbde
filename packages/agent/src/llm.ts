import type OpenAI from "openai";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { AgentFailure } from "./errors.js";
import { createHttpFetch } from "./http-fetch.js";
import type { CallModel, ModelRequest, ModelResult, ModelToolCall } from "./model.js";
import { emptyUsage } from "./model.js";
import { DEFAULT_RETRY, nextRetryDelay, retryAfterMs } from "./retry.js";
import type { RetryPolicy } from "./retry.js";

export interface ModelClientOptions {
  baseURL: string;
  apiKey: string;
  retry?: Partial<RetryPolicy>;
  /** Per-request timeout (default 300 s). */
  timeoutMs?: number;
  /** Where retries are reported (default: stderr). */
  log?: (line: string) => void;
}

/** Why one attempt failed, and whether another may help. */
interface AttemptError {
  retryable: boolean;
  retryAfterMs: number | undefined;
  failure: AgentFailure;
}

function hintFor(status: number | undefined): string {
  if (status === 401 || status === 403) return "check OPENAI_API_KEY";
  if (status === 404) return "check PALISADE_MODEL and OPENAI_BASE_URL";
  if (status === 400) return "the request was rejected; the conversation or tool schemas may not suit this model";
  return "the model endpoint may be overloaded or down";
}

type Sdk = typeof OpenAI;

function classify(OpenAI: Sdk, err: unknown, emitted: boolean, baseURL: string): AttemptError {
  if (err instanceof OpenAI.APIUserAbortError || (err instanceof Error && err.name === "AbortError")) {
    return { retryable: false, retryAfterMs: undefined, failure: new AgentFailure("CANCELLED", "the turn was cancelled", { cause: err }) };
  }
  const where = baseURL || "the default OpenAI endpoint";
  if (err instanceof OpenAI.APIConnectionError) {
    const failure = new AgentFailure("LLM_CALL_FAILED", `cannot reach the model at ${where}: ${err.message}; check OPENAI_BASE_URL`, { cause: err });
    return { retryable: !emitted, retryAfterMs: undefined, failure };
  }
  if (err instanceof OpenAI.APIError) {
    const status = err.status;
    if (status === undefined) {
      // An error event inside an SSE stream.
      const failure = new AgentFailure(emitted ? "STREAM_ERROR" : "LLM_CALL_FAILED", `the model stream failed: ${err.message}`, { cause: err });
      return { retryable: !emitted, retryAfterMs: undefined, failure };
    }
    const retryable = status === 408 || status === 409 || status === 429 || status >= 500;
    const failure = new AgentFailure("LLM_CALL_FAILED", `model call to ${where} failed with HTTP ${String(status)}: ${err.message} (${hintFor(status)})`, {
      cause: err,
      recoverable: retryable,
    });
    return { retryable: retryable && !emitted, retryAfterMs: retryAfterMs(err.headers), failure };
  }
  const message = err instanceof Error ? err.message : String(err);
  const failure = new AgentFailure(emitted ? "STREAM_ERROR" : "LLM_CALL_FAILED", `the model call failed: ${message}`, { cause: err });
  return { retryable: !emitted, retryAfterMs: undefined, failure };
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

/** Folds streamed chunks into a ModelResult; tool-call fragments are joined by `index`. */
export class StreamAccumulator {
  private content = "";
  private reasoning = "";
  private finishReason = "";
  private readonly calls = new Map<number, ModelToolCall>();
  private readonly usage = emptyUsage();
  emitted = false;

  add(chunk: ChatCompletionChunk, onToken?: (text: string) => void): void {
    if (chunk.usage) {
      this.usage.inputTokens = chunk.usage.prompt_tokens;
      this.usage.outputTokens = chunk.usage.completion_tokens;
      this.usage.cacheReadTokens = chunk.usage.prompt_tokens_details?.cached_tokens ?? 0;
    }
    const choice = chunk.choices[0];
    if (!choice) return;
    const delta = choice.delta as ChatCompletionChunk.Choice.Delta & { reasoning_content?: string; reasoning?: string };
    const thinking = delta.reasoning_content ?? delta.reasoning;
    if (typeof thinking === "string") this.reasoning += thinking;
    if (delta.content) {
      this.content += delta.content;
      this.emitted = true;
      onToken?.(delta.content);
    }
    for (const tc of delta.tool_calls ?? []) {
      const cur = this.calls.get(tc.index) ?? { id: "", name: "", arguments: "" };
      if (tc.id) cur.id = tc.id;
      if (tc.function?.name) cur.name += tc.function.name;
      if (tc.function?.arguments) cur.arguments += tc.function.arguments;
      this.calls.set(tc.index, cur);
    }
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
  }

  result(): ModelResult {
    const toolCalls = [...this.calls.entries()].sort(([a], [b]) => a - b).map(([, c]) => c);
    return { content: this.content, reasoning: this.reasoning, toolCalls, finishReason: this.finishReason, usage: this.usage };
  }
}

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
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...options.retry };
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  let client: Promise<{ OpenAI: Sdk; client: OpenAI }> | undefined;
  const getClient = (): Promise<{ OpenAI: Sdk; client: OpenAI }> =>
    (client ??= preloadModelSdk().then((OpenAI) => ({
      OpenAI,
      client: new OpenAI({
        apiKey: options.apiKey,
        ...(options.baseURL ? { baseURL: options.baseURL } : {}),
        // Retries are ours: bounded in total time and aware of partially streamed output.
        maxRetries: 0,
        timeout: options.timeoutMs ?? 300_000,
        fetch: createHttpFetch(),
      }),
    })));

  const attempt = async (client: OpenAI, request: ModelRequest, acc: StreamAccumulator): Promise<ModelResult> => {
    const stream = await client.chat.completions.create(
      {
        model: request.model,
        messages: request.messages,
        ...(request.tools.length > 0 ? { tools: request.tools } : {}),
        stream: true,
        stream_options: { include_usage: true },
      },
      { signal: request.signal },
    );
    for await (const chunk of stream) acc.add(chunk, request.onToken);
    // The SDK ends a stream quietly when its signal fires.
    if (request.signal.aborted) throw new AgentFailure("CANCELLED", "the turn was cancelled");
    return acc.result();
  };

  return async (request) => {
    const { OpenAI, client } = await getClient();
    const state = { attempts: 0, waitedMs: 0 };
    for (;;) {
      const acc = new StreamAccumulator();
      try {
        return await attempt(client, request, acc);
      } catch (err) {
        if (err instanceof AgentFailure) throw err;
        state.attempts++;
        const outcome = classify(OpenAI, err, acc.emitted, options.baseURL);
        if (request.signal.aborted) throw new AgentFailure("CANCELLED", "the turn was cancelled", { cause: err });
        const wait = outcome.retryable ? nextRetryDelay(policy, state, outcome.retryAfterMs) : undefined;
        if (wait === undefined) {
          if (!outcome.retryable || outcome.failure.code !== "LLM_CALL_FAILED") throw outcome.failure;
          throw new AgentFailure(
            "LLM_CALL_FAILED",
            `${outcome.failure.message}; gave up after ${String(state.attempts)} attempt(s) and ${String(state.waitedMs)} ms of backoff`,
            { cause: err, recoverable: true },
          );
        }
        log(`palisade-agent: model call failed (${outcome.failure.message}); retrying in ${String(wait)} ms`);
        await abortableSleep(wait, request.signal);
        state.waitedMs += wait;
      }
    }
  };
}
