import type { ContextMessage } from "@palisade/protocol/pipeline";
import type { ChatCompletionMessageParam, ChatCompletionTool } from "./model.js";

/**
 * The chat message of each history message, made once: the Agent keeps a session's history between
 * turns, and the same objects are sent (and their bytes kept, request-body.ts) at every call.
 * Frozen, since they are shared by every turn that sends them.
 */
const chatOf = new WeakMap<ContextMessage, ChatCompletionMessageParam>();

function chatMessage(m: ContextMessage): ChatCompletionMessageParam {
  let out = chatOf.get(m);
  if (out) return out;
  if (m.role === "tool") out = { role: "tool", tool_call_id: m.toolCallId, content: m.content };
  else if (m.role === "assistant" && m.toolCalls.length > 0) {
    const calls = m.toolCalls.map((c) =>
      Object.freeze({
        id: c.id,
        type: "function" as const,
        function: Object.freeze({ name: c.name, arguments: c.argumentsJson || "{}" }),
      }),
    );
    out = { role: "assistant", content: m.content || null, tool_calls: Object.freeze(calls) as typeof calls };
  } else if (m.role === "assistant") out = { role: "assistant", content: m.content };
  else if (m.role === "system") out = { role: "system", content: m.content };
  else out = { role: "user", content: m.content };
  chatOf.set(m, Object.freeze(out));
  return out;
}

/** The system prompts sent lately, each as one message object (sessions share a prompt or have their own). */
const systemMessages = new Map<string, ChatCompletionMessageParam>();
const SYSTEM_MESSAGES_KEPT = 64;

/** The system message for `prompt`: the same frozen object while the prompt is among the last used. */
export function systemMessage(prompt: string): ChatCompletionMessageParam {
  let m = systemMessages.get(prompt);
  if (m) return m;
  m = Object.freeze({ role: "system", content: prompt });
  systemMessages.set(prompt, m);
  if (systemMessages.size > SYSTEM_MESSAGES_KEPT) systemMessages.delete(systemMessages.keys().next().value ?? "");
  return m;
}

/** Chat messages of the history, repaired so every tool call has exactly one result after it. */
export function toChatMessages(history: readonly ContextMessage[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  let open: string[] = []; // ids of tool calls still waiting for a result
  const closeOpen = (): void => {
    for (const id of open)
      out.push({ role: "tool", tool_call_id: id, content: "No result was recorded for this call." });
    open = [];
  };
  for (const m of history) {
    if (m.role === "tool") {
      const i = open.indexOf(m.toolCallId);
      if (i < 0) continue; // a result without its call: the API would reject it
      open.splice(i, 1);
      out.push(chatMessage(m));
      continue;
    }
    closeOpen();
    out.push(chatMessage(m));
    if (m.role === "assistant" && m.toolCalls.length > 0) open = m.toolCalls.map((c) => c.id);
  }
  closeOpen();
  return out;
}

/** Per-message characters beyond the text: role, keys, quotes. */
const MESSAGE_OVERHEAD = 48;
const TOOL_CALL_OVERHEAD = 64;
/** Serialized size of tool parameter schemas, which are shared between turns (see ToolSet). */
const schemaChars = new WeakMap<object, number>();

function messageChars(m: ChatCompletionMessageParam): number {
  let n = MESSAGE_OVERHEAD;
  const content = (m as { content?: unknown }).content;
  if (typeof content === "string") n += content.length;
  else if (content != null) n += JSON.stringify(content).length;
  if (m.role === "assistant")
    for (const c of m.tool_calls ?? [])
      n +=
        TOOL_CALL_OVERHEAD + c.id.length + ("function" in c ? c.function.name.length + c.function.arguments.length : 0);
  if (m.role === "tool") n += m.tool_call_id.length;
  return n;
}

function toolChars(t: ChatCompletionTool): number {
  if (t.type !== "function") return JSON.stringify(t).length;
  const params = t.function.parameters;
  let p = params ? schemaChars.get(params) : 0;
  if (p === undefined && params) {
    p = JSON.stringify(params).length;
    schemaChars.set(params, p);
  }
  return MESSAGE_OVERHEAD + t.function.name.length + (t.function.description?.length ?? 0) + (p ?? 0);
}

/**
 * A rough token count (4 characters per token plus per-message overhead); no tokenizer needed.
 * Counts characters without serializing the context: it runs before every model call.
 */
export function estimateTokens(
  messages: readonly ChatCompletionMessageParam[],
  tools: readonly ChatCompletionTool[] = [],
): number {
  let chars = 0;
  for (const m of messages) chars += messageChars(m);
  for (const t of tools) chars += toolChars(t);
  return Math.ceil(chars / 4);
}

export function estimateHistoryTokens(history: readonly ContextMessage[]): number {
  return estimateTokens(toChatMessages(history));
}

export interface CompactionPlan {
  older: ContextMessage[];
  recent: ContextMessage[];
}

/**
 * Splits the history at a user message so that the recent part fits `recentBudget` tokens
 * (always keeping at least the latest user exchange). Undefined when nothing older exists.
 */
export function planCompaction(history: readonly ContextMessage[], recentBudget: number): CompactionPlan | undefined {
  const userIdx = history.flatMap((m, i) => (m.role === "user" ? [i] : []));
  if (userIdx.length === 0) return undefined;
  let split = userIdx[userIdx.length - 1] ?? 0;
  for (let k = userIdx.length - 2; k >= 0; k--) {
    const candidate = userIdx[k] ?? 0;
    if (estimateHistoryTokens(history.slice(candidate)) > recentBudget) break;
    split = candidate;
  }
  if (split <= 0) return undefined;
  return { older: history.slice(0, split), recent: history.slice(split) };
}

const COMPACTION_INSTRUCTIONS = [
  "You compact the earlier part of a conversation between a user and an AI assistant so the assistant can continue it.",
  "Answer with exactly two sections and nothing else:",
  "FACTS:",
  "- one durable fact per line worth remembering beyond this conversation (user preferences, names, decisions, paths, open tasks); write none if there are none",
  "SUMMARY:",
  "a concise account of what was asked, what was done (tools used and their outcomes) and where things stand.",
].join("\n");

/** Messages for the one summarization call; the transcript is cut from the front to fit `maxChars`. */
export function compactionMessages(older: readonly ContextMessage[], maxChars: number): ChatCompletionMessageParam[] {
  const lines = older.map((m) => {
    const calls = m.toolCalls.map((c) => ` [called ${c.name} ${c.argumentsJson.slice(0, 500)}]`).join("");
    const body = m.role === "tool" ? m.content.slice(0, 2000) : m.content;
    return `${m.role}: ${body}${calls}`;
  });
  let transcript = lines.join("\n");
  if (transcript.length > maxChars) transcript = `[...]\n${transcript.slice(transcript.length - maxChars)}`;
  return [
    { role: "system", content: COMPACTION_INSTRUCTIONS },
    { role: "user", content: `Conversation to compact:\n\n${transcript}` },
  ];
}

/** Reads the FACTS/SUMMARY answer; a reply without the sections is taken as the summary. */
export function parseCompaction(text: string): { facts: string; summary: string } {
  const m = /FACTS:\s*([\s\S]*?)\n\s*SUMMARY:\s*([\s\S]*)$/i.exec(text.trim());
  if (!m) return { facts: "", summary: text.trim() };
  const facts = (m[1] ?? "").trim();
  return { facts: /^-?\s*none\.?$/i.test(facts) ? "" : facts, summary: (m[2] ?? "").trim() };
}

export function summaryMessage(summary: string): ChatCompletionMessageParam {
  return { role: "system", content: `Summary of the earlier conversation (older turns were compacted):\n${summary}` };
}

const CUT_MARK = "cut to fit the context window]";

/**
 * Keeps a long turn inside the context window: shortens tool results, oldest first, to
 * `keepChars` each until the estimate fits `budget` tokens. Mutates `messages`; returns how many
 * results were shortened.
 */
export function fitToolResults(
  messages: ChatCompletionMessageParam[],
  tools: readonly ChatCompletionTool[],
  budget: number,
  keepChars = 1000,
): number {
  let total = estimateTokens(messages, tools);
  let shortened = 0;
  for (let i = 0; i < messages.length && total > budget; i++) {
    const m = messages[i];
    if (
      m?.role !== "tool" ||
      typeof m.content !== "string" ||
      m.content.length <= keepChars ||
      m.content.endsWith(CUT_MARK)
    )
      continue;
    const removed = m.content.length - keepChars;
    messages[i] = { ...m, content: `${m.content.slice(0, keepChars)}\n[... ${String(removed)} characters ${CUT_MARK}` };
    total -= Math.floor(removed / 4);
    shortened++;
  }
  return shortened;
}
