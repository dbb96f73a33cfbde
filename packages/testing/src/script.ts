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
  /** "error": an SSE `{error}` event then end; "disconnect": destroy the socket. Default "error". */
  failMode?: "error" | "disconnect";
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
    return c.map((part: unknown) => (typeof part === "object" && part !== null && "text" in part ? String(part.text) : "")).join("");
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
  if (match.hasTool !== undefined && !(request.tools ?? []).some((t) => t.function.name === match.hasTool)) return false;
  if (match.model !== undefined && request.model !== match.model) return false;
  if (match.when !== undefined && !match.when(request)) return false;
  return true;
}

/** Convenience constructors for the common replies. */
export const reply = {
  text: (content: string, extra: Partial<ScriptedReply> = {}): ScriptedReply => ({ content, ...extra }),
  toolCalls: (calls: ScriptedToolCall[], extra: Partial<ScriptedReply> = {}): ScriptedReply => ({ toolCalls: calls, ...extra }),
  error: (status: number, extra: Partial<ScriptedReply> = {}): ScriptedReply => ({ status, ...extra }),
};
