import type { ContextMessage, ToolGroup } from "@palisade/protocol/pipeline";
import { TRIM_TOOL_RESULTS_AT, prepareContext } from "./compact.js";
import { estimateTokens, fitToolResults } from "./context.js";
import type { MemoryFlushData } from "./compact.js";
import { AgentFailure } from "./errors.js";
import type {
  CallModel,
  ChatCompletionMessageParam,
  ModelRequest,
  ModelResult,
  ModelToolCall,
  ModelUsage,
} from "./model.js";
import { addUsage, emptyUsage } from "./model.js";
import { LOAD_TOOLS, ToolSet, parseLoadToolsArgs } from "./tools.js";
import type { ToolSpec } from "./tools.js";

const PARAGRAPH = "\n\n";

export const DEFAULT_MAX_TOOL_ROUNDS = 25;

/** Everything one turn needs, as the Engine sent it. */
export interface TurnRequest {
  sessionId: string;
  messageId: string;
  content: string;
  history: readonly ContextMessage[];
  systemPrompt: string;
  model: string;
  /** Initial tools (load_tools) plus the tools already loaded for the session. */
  tools: readonly ToolSpec[];
  groups: readonly ToolGroup[];
  /** 0: DEFAULT_MAX_TOOL_ROUNDS. */
  maxToolRounds: number;
  contextWindow: number;
  /** Off-the-record: compaction still summarizes, but no durable facts are flushed. */
  offTheRecord?: boolean;
}

export interface ToolOutcome {
  content: string;
  isError: boolean;
  /** The tool succeeded and ends the turn (terminal_on_success). */
  terminal: boolean;
}

export interface LoadedTools {
  tools: ToolSpec[];
  unknownGroups: string[];
  loadedGroups: string[];
}

export interface ProposedCall {
  callId: string;
  name: string;
  argumentsJson: string;
}

/** The turn's only ways to reach the outside world. */
export interface TurnPorts {
  callModel: CallModel;
  emitToken(text: string): void;
  /** Streams reasoning ("reasoning") or a notice ("notice") to the clients as it happens. */
  emitThought?(stage: "reasoning" | "notice", text: string): void;
  /** Sends ToolCallProposed and resolves with its ToolResultDelivery. */
  proposeTool(call: ProposedCall, signal: AbortSignal): Promise<ToolOutcome>;
  /** Sends ToolDefsRequest and resolves with its ToolDefsDelivery. */
  loadTools(groups: string[], signal: AbortSignal): Promise<LoadedTools>;
  flushMemory(flush: MemoryFlushData): void;
  /** Returns `proposed` if it is unused, else a fresh unique id. */
  reserveCallId(proposed: string): string;
}

export interface ThoughtData {
  stage: string;
  summary: string;
  detailJson: string;
}

export interface TurnResult {
  content: string;
  thoughts: ThoughtData[];
  usage: ModelUsage;
  llmCalls: number;
  toolRounds: number;
  /** "final": the model answered; "terminal": a terminal tool ended it; "round_limit": the cap. */
  stopReason: "final" | "terminal" | "round_limit";
}

const excerpt = (text: string, max = 300): string => (text.length > max ? `${text.slice(0, max)}…` : text);

export function roundLimitMessage(max: number): string {
  return `[Stopped after ${String(max)} tool rounds without a final answer. Send another message to let me continue.]`;
}

async function loadToolsCall(
  call: ProposedCall,
  tools: ToolSet,
  ports: TurnPorts,
  signal: AbortSignal,
): Promise<ToolOutcome> {
  const args = parseLoadToolsArgs(call.argumentsJson);
  if ("error" in args) return { content: args.error, isError: true, terminal: false };
  const loaded = await ports.loadTools(args.groups, signal);
  tools.add(loaded.tools);
  const parts: string[] = [];
  if (loaded.tools.length > 0)
    parts.push(`Loaded ${String(loaded.tools.length)} tools: ${loaded.tools.map((t) => t.name).join(", ")}.`);
  if (loaded.unknownGroups.length > 0) parts.push(`Unknown groups: ${loaded.unknownGroups.join(", ")}.`);
  if (parts.length === 0) parts.push("No tools were loaded.");
  return { content: parts.join(" "), isError: loaded.tools.length === 0, terminal: false };
}

/**
 * One turn of the LLM loop: context (with compaction), model calls, tool rounds, until the model
 * answers without tools, a terminal tool succeeds, or the round cap is hit. Throws AgentFailure.
 */
export async function runTurn(req: TurnRequest, ports: TurnPorts, signal: AbortSignal): Promise<TurnResult> {
  const usage = emptyUsage();
  const thoughts: ThoughtData[] = [];
  const tools = new ToolSet(req.tools, req.groups);
  const maxRounds = req.maxToolRounds > 0 ? req.maxToolRounds : DEFAULT_MAX_TOOL_ROUNDS;
  let llmCalls = 0;
  let toolRounds = 0;
  let content = "";
  const cancelled = (): AgentFailure => new AgentFailure("CANCELLED", "the turn was cancelled");

  const prepare = async (contextWindow: number): Promise<ChatCompletionMessageParam[]> => {
    const prepared = await prepareContext({ ...req, contextWindow }, tools.toParams(), ports.callModel, signal);
    if (prepared.compaction) {
      llmCalls++;
      addUsage(usage, prepared.compaction.result.usage);
      const flush = prepared.compaction.flush;
      ports.flushMemory(req.offTheRecord ? { ...flush, content: "" } : flush);
      const n = prepared.compaction.flush.compactedMessages;
      thoughts.push({
        stage: "compaction",
        summary: `Compacted ${String(n)} earlier messages into a summary`,
        detailJson: "",
      });
    }
    return prepared.messages;
  };
  let messages: ChatCompletionMessageParam[] = await prepare(req.contextWindow);
  let shrunk = false;
  /**
   * The server said the context is too long (its window is smaller than model.context_window
   * says): compact to about half of what was sent and try once more; a second refusal ends the turn.
   */
  const callShrinking = async (call: ModelRequest): Promise<ModelResult> => {
    try {
      return await ports.callModel(call);
    } catch (err) {
      if (!(err instanceof AgentFailure) || err.code !== "CONTEXT_TOO_LONG" || shrunk) throw err;
      shrunk = true;
      const window = Math.max(1024, Math.floor(estimateTokens(call.messages, call.tools) / 2));
      ports.emitThought?.(
        "notice",
        "The model server says the conversation is too long for it; compacting and trying again.",
      );
      thoughts.push({
        stage: "compaction",
        summary: `The server refused the context as too long; compacted to about ${String(window)} tokens`,
        detailJson: "",
      });
      if (toolRounds === 0) messages = await prepare(window);
      else fitToolResults(messages, call.tools, window * TRIM_TOOL_RESULTS_AT);
      return ports.callModel({ ...call, messages });
    }
  };

  for (;;) {
    if (signal.aborted) throw cancelled();
    const params = tools.toParams();
    // Tool results can outgrow the window within one turn; the oldest give way first.
    if (toolRounds > 0) fitToolResults(messages, params, req.contextWindow * TRIM_TOOL_RESULTS_AT);
    // Text of successive rounds is one answer: separate paragraphs, in the stream as in the content.
    let separate = content.length > 0 && !/\s$/.test(content);
    const separator = (): void => {
      if (!separate) return;
      separate = false;
      content += PARAGRAPH;
      ports.emitToken(PARAGRAPH);
    };
    const result = await callShrinking({
      model: req.model,
      messages,
      tools: params,
      signal,
      onToken: (text) => {
        if (text) separator();
        ports.emitToken(text);
      },
      onReasoning: (text) => ports.emitThought?.("reasoning", text),
      onNotice: (text) => {
        ports.emitThought?.("notice", text);
        thoughts.push({ stage: "notice", summary: text, detailJson: "" });
      },
    });
    llmCalls++;
    addUsage(usage, result.usage);
    if (result.content) separator();
    content += result.content;
    if (result.reasoning)
      thoughts.push({ stage: "reasoning", summary: excerpt(result.reasoning, 2000), detailJson: "" });
    if (result.toolCalls.length === 0) {
      return { content, thoughts, usage, llmCalls, toolRounds, stopReason: "final" };
    }

    const calls: ModelToolCall[] = result.toolCalls.map((c) => ({ ...c, id: ports.reserveCallId(c.id) }));
    if (result.content) thoughts.push({ stage: "reasoning", summary: excerpt(result.content, 2000), detailJson: "" });
    const assistant: ChatCompletionMessageParam = {
      role: "assistant",
      content: result.content || null,
      tool_calls: calls.map((c) => ({
        id: c.id,
        type: "function",
        function: { name: c.name, arguments: c.arguments },
      })),
    };
    // Servers that reason (DeepSeek-style) want the reasoning back within a tool loop, in the
    // field they sent it in.
    if (result.reasoning && result.reasoningField)
      Object.assign(assistant, { [result.reasoningField]: result.reasoning });
    messages.push(assistant);

    const outcomes = await Promise.all(
      calls.map((c) => {
        const call = { callId: c.id, name: c.name, argumentsJson: c.arguments };
        return c.name === LOAD_TOOLS ? loadToolsCall(call, tools, ports, signal) : ports.proposeTool(call, signal);
      }),
    );
    if (signal.aborted) throw cancelled();
    toolRounds++;
    calls.forEach((c, i) => {
      const out = outcomes[i] ?? { content: "", isError: true, terminal: false };
      messages.push({ role: "tool", tool_call_id: c.id, content: out.content });
      thoughts.push({
        stage: "tool_call",
        summary: `${c.name}(${excerpt(c.arguments, 120)})${out.isError ? " failed" : ""}`,
        detailJson: JSON.stringify({
          call_id: c.id,
          tool_name: c.name,
          arguments_json: c.arguments,
          is_error: out.isError,
          result: excerpt(out.content),
        }),
      });
    });

    const terminal = outcomes.find((o) => o.terminal && !o.isError);
    if (terminal) {
      return { content: content || terminal.content, thoughts, usage, llmCalls, toolRounds, stopReason: "terminal" };
    }
    if (toolRounds >= maxRounds) {
      const note = roundLimitMessage(maxRounds);
      const sep = content ? "\n\n" : "";
      ports.emitToken(sep + note);
      thoughts.push({ stage: "limit", summary: note, detailJson: "" });
      return { content: content + sep + note, thoughts, usage, llmCalls, toolRounds, stopReason: "round_limit" };
    }
  }
}
