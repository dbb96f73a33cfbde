/** What the scripted model server answers to one chat completion request. Plain data. */
export interface ScriptedReply {
  /** Assistant text, streamed word by word. */
  content?: string;
  toolCalls?: ScriptedToolCall[];
  /** Default: "tool_calls" when there are tool calls, else "stop". */
  finishReason?: "stop" | "tool_calls" | "length" | "content_filter";
  /** Overrides the token counts the server estimates. */
  usage?: { promptTokens?: number; completionTokens?: number };
  /** Delay before the response headers are sent. */
  latencyMs?: number;
  /** Delay between streamed chunks. */
  tokenDelayMs?: number;
  /** An HTTP error instead of a completion (429, 500, ...). */
  status?: number;
  /** Seconds, sent as `retry-after` (with `retry-after-ms`) on an error status. */
  retryAfter?: number;
  errorMessage?: string;
  /** Streaming only: fail after this many chunks have been written. */
  failAfterChunks?: number;
  /**
   * "error": an SSE `{error}` event then end; "disconnect": destroy the socket; "finish_error": a
   * chunk with `finish_reason: "error"` and no error object. Default "error".
   */
  failMode?: "error" | "disconnect" | "finish_error";
  /** Streaming only: after this many chunks (0: right after the headers), send nothing more, ever. */
  stallAfterChunks?: number;
  /** Reasoning streamed before the content, as a model that thinks does. */
  reasoning?: string;
  /** The delta field that carries `reasoning` (default "reasoning_content", as DeepSeek and vLLM). */
  reasoningField?: "reasoning_content" | "reasoning";
  /** Shape of the error body when `status` is an error (default "openai"). */
  errorStyle?: ErrorStyle;
  /** How the stream deviates from OpenAI's, one flag per behaviour real servers show. */
  quirks?: StreamQuirks;
}

/**
 * Error bodies as servers write them: OpenAI `{"error": {message, type, code}}`, vLLM
 * `{"object": "error", "message", ...}`, llama.cpp `{"error": {"code": 500, "message", "type": "server_error"}}`,
 * Ollama `{"error": "text"}`, a plain-text body, or none at all.
 */
export type ErrorStyle = "openai" | "vllm" | "llamacpp" | "ollama" | "text" | "empty";

/** Stream deviations (each seen from a real server; see the docs' server table). */
export interface StreamQuirks {
  /** Tool-call deltas without `index` (some Gemini-compatible proxies). */
  noIndex?: boolean;
  /** Every tool call at `index: 0`, told apart by id only (Ollama 0.20, LM Studio). */
  sameIndex?: boolean;
  /** The function name repeated in every tool-call delta (older llama.cpp). */
  repeatName?: boolean;
  /** Each arguments delta repeats everything so far. */
  cumulativeArgs?: boolean;
  /** Arguments as a JSON object instead of a string, in one delta. */
  objectArgs?: boolean;
  /** Tool calls without `id`. */
  noIds?: boolean;
  /** Every tool call with the same id. */
  reusedIds?: boolean;
  /** No chunk carries a `finish_reason`. */
  noFinishReason?: boolean;
  /** The stream ends without `data: [DONE]`. */
  noDone?: boolean;
  /** Every chunk carries running `usage` (whether asked or not). */
  usageEveryChunk?: boolean;
  /** Chunks with `choices: []` between the others (Azure's filter results, usage chunks). */
  emptyChoices?: boolean;
  /** SSE comment lines between chunks (OpenRouter's ": OPENROUTER PROCESSING"). */
  comments?: boolean;
  /** The tool calls written into the content as text: Hermes/Qwen tags or a bare JSON object. */
  textToolCalls?: "hermes" | "json";
  /** A complete `chat.completion` JSON body although streaming was asked for. */
  ignoreStream?: boolean;
}

/** Requests a server refuses, as real servers do (set on the server, checked on every request). */
export interface ServerRefusals {
  /** 400 when the request has `stream_options` (Mistral, Groq, older vLLM). */
  streamOptions?: boolean;
  /** 400 when the request has `tools` (Ollama models without tool support). */
  tools?: boolean;
  /** 400 when an assistant tool-call message of the current exchange lacks `reasoning_content` (DeepSeek thinking mode). */
  missingReasoning?: boolean;
  /** 400 when any message carries `reasoning_content` (DeepSeek R1: "please remove the reasoning_content"). */
  reasoningEcho?: boolean;
  /** A context-too-long error when the prompt has more estimated tokens than this. */
  contextTokens?: number;
  /** The body style of that error (default "openai"). */
  contextStyle?: ErrorStyle;
}

export interface ScriptedToolCall {
  /** Default: `call_<n>` unique within the server. */
  id?: string;
  name: string;
  /** A JSON string, or a value that is JSON-encoded. */
  arguments?: string | Record<string, unknown>;
}

/** The OpenAI chat message shape as the server receives it (loosely typed on purpose). */
export interface ChatMessage {
  role: string;
  content?: unknown;
  tool_call_id?: string;
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
  name?: string;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  tools?: { type: string; function: { name: string; description?: string; parameters?: unknown } }[];
  [key: string]: unknown;
}

export type TextMatcher = string | RegExp;

/** Conditions on the request, all of which must hold. */
export interface RuleMatch {
  /** Role of the last message. */
  role?: string;
  /** Text of the last message (any role). A string matches as a substring. */
  content?: TextMatcher;
  /** The last message is a tool result whose content matches. */
  toolResult?: TextMatcher;
  /** The request offers a tool of this name. */
  hasTool?: string;
  model?: string;
  when?: (request: ChatRequest) => boolean;
}

export interface ScriptRule {
  match: RuleMatch;
  reply: ScriptedReply | ((request: ChatRequest) => ScriptedReply);
  /** How many times the rule may fire (default: unlimited). */
  times?: number;
}

/** Text content of a message, flattening content parts. */
export function messageText(message: ChatMessage | undefined): string {
  if (!message) return "";
  const c = message.content;
  if (typeof c === "string") return c;
  if (Array.isArray(c)) {
    return c
      .map((part: unknown) => (typeof part === "object" && part !== null && "text" in part ? String(part.text) : ""))
      .join("");
  }
  return "";
}

function matchesText(matcher: TextMatcher, text: string): boolean {
  return typeof matcher === "string" ? text.includes(matcher) : matcher.test(text);
}

export function ruleMatches(match: RuleMatch, request: ChatRequest): boolean {
  const last = request.messages.at(-1);
  const text = messageText(last);
  if (match.role !== undefined && last?.role !== match.role) return false;
  if (match.content !== undefined && !matchesText(match.content, text)) return false;
  if (match.toolResult !== undefined && (last?.role !== "tool" || !matchesText(match.toolResult, text))) return false;
  if (match.hasTool !== undefined && !(request.tools ?? []).some((t) => t.function.name === match.hasTool))
    return false;
  if (match.model !== undefined && request.model !== match.model) return false;
  if (match.when !== undefined && !match.when(request)) return false;
  return true;
}

/** Convenience constructors for the common replies. */
export const reply = {
  text: (content: string, extra: Partial<ScriptedReply> = {}): ScriptedReply => ({ content, ...extra }),
  toolCalls: (calls: ScriptedToolCall[], extra: Partial<ScriptedReply> = {}): ScriptedReply => ({
    toolCalls: calls,
    ...extra,
  }),
  error: (status: number, extra: Partial<ScriptedReply> = {}): ScriptedReply => ({ status, ...extra }),
};
