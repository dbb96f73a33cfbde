import type { ChatRequest, ErrorStyle, ScriptedReply, ScriptedToolCall } from "./script.js";
import { messageText } from "./script.js";

/** A tool call with its id and JSON arguments fixed. */
export interface ResolvedToolCall {
  id: string;
  name: string;
  arguments: string;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface CompletionMeta {
  id: string;
  created: number;
  model: string;
}

/** Splits text into word-sized deltas that concatenate back to the original text. */
export function splitWords(text: string): string[] {
  if (text === "") return [];
  return text.match(/\s*\S+\s*/g) ?? [text];
}

/** Splits a string into fragments of at most `size` characters. */
export function fragments(text: string, size = 12): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

export function resolveToolCalls(calls: ScriptedToolCall[] | undefined, nextId: () => string): ResolvedToolCall[] {
  return (calls ?? []).map((c) => ({
    id: c.id ?? nextId(),
    name: c.name,
    arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments ?? {}),
  }));
}

/** Rough token estimate (4 characters per token), enough for usage numbers in tests. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export function usageFor(request: ChatRequest, reply: ScriptedReply, calls: ResolvedToolCall[]): Usage {
  const promptText = request.messages.map((m) => messageText(m) + JSON.stringify(m.tool_calls ?? "")).join("\n");
  const completionText = (reply.content ?? "") + calls.map((c) => c.name + c.arguments).join("");
  const prompt = reply.usage?.promptTokens ?? estimateTokens(promptText);
  const completion = reply.usage?.completionTokens ?? estimateTokens(completionText);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

export function finishReasonOf(reply: ScriptedReply, calls: ResolvedToolCall[]): string {
  return reply.finishReason ?? (calls.length > 0 ? "tool_calls" : "stop");
}

/** The tool calls as a model without a native tool parser writes them. */
export function toolCallText(calls: ResolvedToolCall[], style: "hermes" | "json"): string {
  // Llama-style bare JSON says "parameters"; Hermes/Qwen tags say "arguments".
  const key = style === "json" ? "parameters" : "arguments";
  const body = (c: ResolvedToolCall): string =>
    JSON.stringify({ name: c.name, [key]: JSON.parse(c.arguments) as unknown });
  if (style === "json") return calls.length === 1 && calls[0] ? body(calls[0]) : `[${calls.map(body).join(", ")}]`;
  return calls.map((c) => `<tool_call>\n${body(c)}\n</tool_call>`).join("\n");
}

/** The tool-call deltas of one call, shaped by the reply's quirks. */
function toolCallDeltas(call: ResolvedToolCall, index: number, reply: ScriptedReply): object[] {
  const q = reply.quirks ?? {};
  const at = (extra: object): object => {
    const out: Record<string, unknown> = { ...extra };
    if (!q.noIndex) out.index = q.sameIndex ? 0 : index;
    return out;
  };
  const id = q.noIds ? {} : { id: q.reusedIds ? "call_same" : call.id };
  if (q.objectArgs)
    return [
      at({ ...id, type: "function", function: { name: call.name, arguments: JSON.parse(call.arguments) as unknown } }),
    ];
  const frags = fragments(call.arguments);
  const out: object[] = [at({ ...id, type: "function", function: { name: call.name, arguments: "" } })];
  let sofar = "";
  for (const frag of frags) {
    sofar += frag;
    const fn: Record<string, unknown> = { arguments: q.cumulativeArgs ? sofar : frag };
    if (q.repeatName) fn.name = call.name;
    // Servers that index every call at 0 repeat the id on each delta.
    out.push(at({ ...(q.sameIndex || q.reusedIds ? id : {}), function: fn }));
  }
  return out;
}

/**
 * The `chat.completion.chunk` objects of a streamed reply, in order: role first, reasoning and
 * content word by word, each tool call (index/id/type/name first, argument fragments after), the
 * finish reason, and a usage chunk when asked for; `reply.quirks` bends each of these as real
 * servers do.
 */
export function streamChunks(
  meta: CompletionMeta,
  reply: ScriptedReply,
  calls: ResolvedToolCall[],
  usage: Usage | undefined,
): object[] {
  const q = reply.quirks ?? {};
  const chunk = (delta: object, finish: string | null = null): object => ({
    id: meta.id,
    object: "chat.completion.chunk",
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: q.noFinishReason ? null : finish }],
    ...(q.usageEveryChunk && usage ? { usage } : {}),
  });
  const empty = (): object => ({
    id: meta.id,
    object: "chat.completion.chunk",
    created: meta.created,
    model: meta.model,
    choices: [],
  });
  const out: object[] = q.emptyChoices ? [empty()] : [];
  out.push(chunk({ role: "assistant", content: "" }));
  const field = reply.reasoningField ?? "reasoning_content";
  for (const word of splitWords(reply.reasoning ?? "")) out.push(chunk({ content: null, [field]: word }));
  const asText = q.textToolCalls && calls.length > 0 ? toolCallText(calls, q.textToolCalls) : "";
  const content = [reply.content ?? "", asText].filter(Boolean).join(reply.content ? "\n" : "");
  for (const word of splitWords(content)) out.push(chunk({ content: word }));
  if (!asText) {
    calls.forEach((call, index) => {
      for (const delta of toolCallDeltas(call, index, reply)) out.push(chunk({ tool_calls: [delta] }));
      if (q.emptyChoices) out.push(empty());
    });
  }
  out.push(chunk({}, asText ? "stop" : finishReasonOf(reply, calls)));
  if (usage && !q.usageEveryChunk) out.push({ ...(empty() as Record<string, unknown>), usage });
  return out;
}

/** A non-streamed `chat.completion` object. */
export function completionObject(
  meta: CompletionMeta,
  reply: ScriptedReply,
  calls: ResolvedToolCall[],
  usage: Usage,
): object {
  const message: Record<string, unknown> = {
    role: "assistant",
    content: reply.content ?? (calls.length > 0 ? null : ""),
    refusal: null,
  };
  if (calls.length > 0) {
    message.tool_calls = calls.map((c) => ({
      id: c.id,
      type: "function",
      function: { name: c.name, arguments: c.arguments },
    }));
  }
  return {
    id: meta.id,
    object: "chat.completion",
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReasonOf(reply, calls) }],
    usage,
  };
}

export function errorBody(status: number, message: string, code?: string): object {
  const type = status === 429 ? "rate_limit_exceeded" : status >= 500 ? "server_error" : "invalid_request_error";
  return { error: { message, type, param: null, code: code ?? type } };
}

/** An error body as the given server writes it (undefined: no body at all). */
export function styledErrorBody(style: ErrorStyle, status: number, message: string, code?: string): string | undefined {
  switch (style) {
    case "vllm":
      return JSON.stringify({ object: "error", message, type: "BadRequestError", param: null, code: status });
    case "llamacpp":
      return JSON.stringify({
        error: { code: status, message, type: status >= 500 ? "server_error" : "invalid_request_error" },
      });
    case "ollama":
      return JSON.stringify({ error: message });
    case "text":
      return message;
    case "empty":
      return undefined;
    default:
      return JSON.stringify(errorBody(status, message, code));
  }
}
