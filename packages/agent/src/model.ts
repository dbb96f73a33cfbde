import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";

export type { ChatCompletionMessageParam, ChatCompletionTool };

/** A tool call the model made, with its arguments fully assembled. */
export interface ModelToolCall {
  id: string;
  name: string;
  arguments: string;
}

export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
}

/** One model call's result. */
export interface ModelResult {
  content: string;
  /** Reasoning text some servers stream (`reasoning_content` / `reasoning`). */
  reasoning: string;
  /** The field the reasoning came in, to send it back the same way. */
  reasoningField?: "reasoning_content" | "reasoning";
  toolCalls: ModelToolCall[];
  finishReason: string;
  usage: ModelUsage;
}

export interface ModelRequest {
  model: string;
  messages: ChatCompletionMessageParam[];
  tools: ChatCompletionTool[];
  signal: AbortSignal;
  /** The session the call is for (the Engine's gateway counts tokens per session). */
  sessionId?: string;
  /** Called with each content delta as it arrives; absent for internal calls (compaction). */
  onToken?: (text: string) => void;
  /** Called with each reasoning delta as it arrives. */
  onReasoning?: (text: string) => void;
  /** Things the user should know now: a rate-limit wait, tools unavailable with this model. */
  onNotice?: (text: string) => void;
}

/**
 * The one seam to the LLM. Throws AgentFailure (LLM_CALL_FAILED, STREAM_ERROR, CANCELLED)
 * after its own retries.
 */
export type CallModel = (request: ModelRequest) => Promise<ModelResult>;

export const emptyUsage = (): ModelUsage => ({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0 });

export function addUsage(into: ModelUsage, more: ModelUsage): void {
  into.inputTokens += more.inputTokens;
  into.outputTokens += more.outputTokens;
  into.cacheReadTokens += more.cacheReadTokens;
}
