import type { ContextMessage } from "@palisade/protocol/pipeline";
import {
  compactionMessages,
  estimateTokens,
  parseCompaction,
  planCompaction,
  summaryMessage,
  systemMessage,
  toChatMessages,
} from "./context.js";
import { AgentFailure } from "./errors.js";
import type { CallModel, ChatCompletionMessageParam, ChatCompletionTool, ModelResult } from "./model.js";

/** Compaction starts when the estimated prompt exceeds this share of the context window. */
export const COMPACT_AT = 0.7;
/** The recent turns kept verbatim after compaction fit this share of the window. */
export const KEEP_RECENT = 0.35;
/** Within a turn, the oldest tool results are shortened when the prompt passes this share. */
export const TRIM_TOOL_RESULTS_AT = 0.85;

export interface MemoryFlushData {
  /** Durable facts (one per line) to persist beyond the conversation. */
  content: string;
  summary: string;
  compactedMessages: number;
}

export interface ContextInput {
  systemPrompt: string;
  history: readonly ContextMessage[];
  content: string;
  model: string;
  contextWindow: number;
}

export interface PreparedContext {
  messages: ChatCompletionMessageParam[];
  /** Set when a summarization call was made. */
  compaction?: { flush: MemoryFlushData; result: ModelResult };
}

/**
 * The messages for the turn's first model call: system prompt, history, the new user message.
 * Over 70% of the context window, older turns are summarized with one model call first.
 */
export async function prepareContext(
  input: ContextInput,
  tools: readonly ChatCompletionTool[],
  callModel: CallModel,
  signal: AbortSignal,
): Promise<PreparedContext> {
  const system: ChatCompletionMessageParam[] = input.systemPrompt ? [systemMessage(input.systemPrompt)] : [];
  const user: ChatCompletionMessageParam = { role: "user", content: input.content };
  const full = [...system, ...toChatMessages(input.history), user];
  if (estimateTokens(full, tools) <= input.contextWindow * COMPACT_AT) return { messages: full };

  const plan = planCompaction(input.history, Math.floor(input.contextWindow * KEEP_RECENT));
  if (!plan) return { messages: full };

  let result: ModelResult;
  try {
    // Half the window (in characters, 4 per token) for the transcript leaves room for the answer.
    const maxChars = input.contextWindow * 2;
    result = await callModel({
      model: input.model,
      messages: compactionMessages(plan.older, maxChars),
      tools: [],
      signal,
    });
  } catch (err) {
    if (err instanceof AgentFailure && err.code === "CANCELLED") throw err;
    const why = err instanceof Error ? err.message : String(err);
    throw new AgentFailure(
      "CONTEXT_FAILED",
      `the conversation is too long for the context window and summarizing it failed: ${why}`,
      {
        cause: err,
      },
    );
  }
  const { facts, summary } = parseCompaction(result.content);
  const flush = { content: facts, summary, compactedMessages: plan.older.length };
  return {
    messages: [...system, summaryMessage(summary), ...toChatMessages(plan.recent), user],
    compaction: { flush, result },
  };
}
