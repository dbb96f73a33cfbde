// Folds the chunks of a streamed chat completion into one ModelResult, for servers as they are:
// tool-call deltas without `index` or all with `index: 0`, the function name repeated in every
// delta, arguments cumulative or sent as a JSON object, usage on every chunk, empty `choices`,
// reasoning under `reasoning_content` or `reasoning`, and error events inside the stream.
import type { ModelResult, ModelToolCall, ModelUsage } from "./model.js";
import { emptyUsage } from "./model.js";

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

interface CallState {
  id: string;
  name: string;
  arguments: string;
  index: number | undefined;
  /** A name arrived for a call whose arguments were complete: the next arguments start a new call. */
  pendingName: string | undefined;
}

/** True when `text` is one complete JSON value. */
function completeJson(text: string): boolean {
  if (text.trim() === "") return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** A streamed error: `data: {"error": …}`, a vLLM `{"object":"error", …}` or `finish_reason: "error"`. */
export class StreamErrorEvent extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

function errorMessageOf(chunk: Obj): string | undefined {
  const err = chunk.error;
  if (isObj(err)) return str(err.message) ?? JSON.stringify(err);
  if (typeof err === "string") return err;
  if (chunk.object === "error") return str(chunk.message) ?? JSON.stringify(chunk);
  return undefined;
}

export interface ChunkSink {
  /** Answer text as it arrives. */
  onToken?: (text: string) => void;
  /** Reasoning text as it arrives. */
  onReasoning?: (text: string) => void;
}

export class StreamAccumulator {
  private content = "";
  private reasoning = "";
  private reasoningField: "reasoning_content" | "reasoning" | undefined;
  private finishReason = "";
  private readonly calls: CallState[] = [];
  private usage: ModelUsage = emptyUsage();
  /** Something reached the user (text or reasoning): a retry would show it twice. */
  emitted = false;
  /** At least one chunk was parsed. */
  chunks = 0;

  constructor(private readonly sink: ChunkSink = {}) {}

  /** Adds one parsed SSE data object (`onToken` overrides the sink's). Throws StreamErrorEvent for an error event. */
  add(raw: unknown, onToken?: (text: string) => void): void {
    if (!isObj(raw)) return;
    this.chunks++;
    const error = errorMessageOf(raw);
    if (error !== undefined) throw new StreamErrorEvent(error);
    if (isObj(raw.usage)) this.addUsage(raw.usage);
    const choices = Array.isArray(raw.choices) ? (raw.choices as unknown[]) : [];
    const choice = choices.find((c) => isObj(c) && (c.index === undefined || c.index === 0)) ?? choices[0];
    if (!isObj(choice)) return;
    const delta = isObj(choice.delta) ? choice.delta : isObj(choice.message) ? choice.message : {};
    const field =
      typeof delta.reasoning_content === "string"
        ? "reasoning_content"
        : typeof delta.reasoning === "string"
          ? "reasoning"
          : undefined;
    const thinking = field ? str(delta[field]) : undefined;
    if (field && thinking) {
      this.reasoningField ??= field;
      this.reasoning += thinking;
      this.emitted = true;
      this.sink.onReasoning?.(thinking);
    }
    const text = str(delta.content);
    if (text) {
      this.content += text;
      this.emitted = true;
      (onToken ?? this.sink.onToken)?.(text);
    }
    if (Array.isArray(delta.tool_calls))
      for (const tc of delta.tool_calls as unknown[]) if (isObj(tc)) this.addToolCall(tc);
    const finish = str(choice.finish_reason);
    if (finish === "error")
      throw new StreamErrorEvent(errorMessageOf(choice) ?? 'the server ended the stream with finish_reason "error"');
    if (finish) this.finishReason = finish;
  }

  private addUsage(u: Obj): void {
    // Servers that send usage on every chunk send running totals: the last one wins.
    const n = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);
    const details = isObj(u.prompt_tokens_details) ? u.prompt_tokens_details : {};
    this.usage = {
      inputTokens: n(u.prompt_tokens),
      outputTokens: n(u.completion_tokens),
      cacheReadTokens: n(details.cached_tokens),
    };
  }

  /** The call a delta continues, or undefined when it starts a new one. */
  private target(tc: Obj, id: string | undefined, name: string | undefined): CallState | undefined {
    const index = typeof tc.index === "number" ? tc.index : undefined;
    const byId = id ? this.calls.find((c) => c.id === id) : undefined;
    let call: CallState | undefined;
    if (byId && (index === undefined || byId.index === undefined || byId.index === index)) {
      call = byId;
    } else {
      // Without an index a delta continues the latest call; with one, the latest call of that index.
      call = index === undefined ? this.calls.at(-1) : this.calls.findLast((c) => c.index === index);
      if (!call) return undefined;
      // A new id on a known index (Ollama, LM Studio: every call at index 0) is a new call.
      if (id && call.id && id !== call.id) return undefined;
    }
    if (name && call.arguments) {
      // A different name after arguments began is a new call; the same name again (llama.cpp
      // repeats it in every delta) continues unless the arguments were already complete.
      if (name !== call.name && !name.startsWith(call.name)) return undefined;
      if (completeJson(call.arguments) && !this.continues(call, tc.function)) {
        if (this.startsValue(tc.function)) return undefined;
        call.pendingName = name;
        return call;
      }
    }
    if (call.pendingName !== undefined && this.startsValue(tc.function)) return undefined;
    return call;
  }

  /** The delta's arguments repeat the call's so far (cumulative streaming). */
  private continues(call: CallState, fn: unknown): boolean {
    const args = isObj(fn) ? fn.arguments : undefined;
    return typeof args === "string" && args.length > 0 && args.startsWith(call.arguments);
  }

  private startsValue(fn: unknown): boolean {
    const args = isObj(fn) ? fn.arguments : undefined;
    return isObj(args) || (typeof args === "string" && args.trimStart().startsWith("{"));
  }

  private addToolCall(tc: Obj): void {
    const fn = isObj(tc.function) ? tc.function : {};
    const id = str(tc.id) || undefined;
    const name = str(fn.name) || undefined;
    let call = this.target(tc, id, name);
    if (!call) {
      const pending = this.calls.at(-1)?.pendingName;
      call = {
        id: id ?? "",
        name: name ?? pending ?? "",
        arguments: "",
        index: typeof tc.index === "number" ? tc.index : undefined,
        pendingName: undefined,
      };
      for (const c of this.calls) c.pendingName = undefined;
      this.calls.push(call);
    } else {
      if (id && !call.id) call.id = id;
      // A repeated name is not appended; a longer one that repeats it replaces it; else a fragment.
      if (name && name !== call.name && call.pendingName === undefined)
        call.name = name.startsWith(call.name) ? name : call.name + name;
    }
    const args = fn.arguments;
    if (isObj(args) || Array.isArray(args)) {
      call.arguments = JSON.stringify(args);
    } else if (typeof args === "string" && args !== "") {
      // Cumulative servers resend everything so far; incremental ones send the next fragment.
      call.arguments = call.arguments && args.startsWith(call.arguments) ? args : call.arguments + args;
    }
  }

  get text(): string {
    return this.content;
  }

  result(): ModelResult {
    const toolCalls: ModelToolCall[] = this.calls
      .filter((c) => c.name !== "")
      .map((c) => ({ id: c.id, name: c.name, arguments: c.arguments.trim() === "" ? "{}" : c.arguments }));
    return {
      content: this.content,
      reasoning: this.reasoning,
      ...(this.reasoningField ? { reasoningField: this.reasoningField } : {}),
      toolCalls,
      finishReason: this.finishReason,
      usage: this.usage,
    };
  }
}
