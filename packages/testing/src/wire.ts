import type { ChatRequest, ScriptedReply, ScriptedToolCall } from "./script.js";
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

/**
 * The `chat.completion.chunk` objects of a streamed reply, in order: role first, content word by
 * word, each tool call (index/id/type/name first, argument fragments after), the finish reason,
 * and a usage chunk when asked for.
 */
export function streamChunks(
  meta: CompletionMeta,
  reply: ScriptedReply,
  calls: ResolvedToolCall[],
  usage: Usage | undefined,
): object[] {
  const chunk = (delta: object, finish: string | null = null): object => ({
    id: meta.id,
    object: "chat.completion.chunk",
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  const out: object[] = [chunk({ role: "assistant", content: "" })];
  for (const word of splitWords(reply.content ?? "")) out.push(chunk({ content: word }));
  calls.forEach((call, index) => {
    out.push(chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }));
    for (const frag of fragments(call.arguments)) out.push(chunk({ tool_calls: [{ index, function: { arguments: frag } }] }));
  });
  out.push(chunk({}, finishReasonOf(reply, calls)));
  if (usage) out.push({ id: meta.id, object: "chat.completion.chunk", created: meta.created, model: meta.model, choices: [], usage });
  return out;
}

/** A non-streamed `chat.completion` object. */
export function completionObject(meta: CompletionMeta, reply: ScriptedReply, calls: ResolvedToolCall[], usage: Usage): object {
  const message: Record<string, unknown> = { role: "assistant", content: reply.content ?? (calls.length > 0 ? null : ""), refusal: null };
  if (calls.length > 0) {
    message.tool_calls = calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } }));
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

export function errorBody(status: number, message: string): object {
  const type = status === 429 ? "rate_limit_exceeded" : status >= 500 ? "server_error" : "invalid_request_error";
  return { error: { message, type, param: null, code: type } };
}
