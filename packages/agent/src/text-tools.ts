// Tool calls written as text by models served without a native tool parser: Hermes/Qwen
// `<tool_call>{"name": …, "arguments": …}</tool_call>` blocks, or an answer that is nothing but
// a JSON object naming an offered tool. Text that may be such a call is held back from the
// stream until the answer ends, so a recognized call is never shown as the answer.
import type { ModelToolCall } from "./model.js";

const OPEN = "<tool_call>";
const BLOCK = /<tool_call>\s*([\s\S]*?)\s*(?:<\/tool_call>|$)/g;

export interface TextToolCallsResult {
  /** The answer without the call text. */
  content: string;
  /** Text held back that is part of the answer: to be shown now. */
  release: string;
  calls: ModelToolCall[];
}

function asCall(value: unknown, offered: ReadonlySet<string>): ModelToolCall | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  const fn = typeof v.function === "object" && v.function !== null ? (v.function as Record<string, unknown>) : v;
  const name = fn.name;
  if (typeof name !== "string" || !offered.has(name)) return undefined;
  const args = fn.arguments ?? fn.parameters ?? {};
  return { id: "", name, arguments: typeof args === "string" ? args : JSON.stringify(args) };
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Recognizes text tool calls in a streamed answer. */
export class TextToolCalls {
  private all = "";
  private shown = 0;

  constructor(private readonly offered: ReadonlySet<string>) {}

  /** Adds streamed text; returns the part that is safe to show now. */
  push(text: string): string {
    this.all += text;
    const safe = this.safeEnd();
    const out = this.all.slice(this.shown, safe);
    this.shown = Math.max(this.shown, safe);
    return out;
  }

  private safeEnd(): number {
    // An answer that starts with "{" or "[" may be bare JSON calls: hold it all.
    if (this.shown === 0) {
      const first = this.all.trimStart();
      if (first === "" || first.startsWith("{") || first.startsWith("[")) return 0;
    }
    const tag = this.all.indexOf(OPEN, this.shown);
    if (tag >= 0) return tag;
    // Hold a tail that may be the start of "<tool_call>".
    for (let i = Math.max(this.shown, this.all.length - OPEN.length + 1); i < this.all.length; i++) {
      if (this.all[i] === "<" && OPEN.startsWith(this.all.slice(i))) return i;
    }
    return this.all.length;
  }

  /** At the end of the answer: the calls found, the answer without them, and what to show now. */
  finish(): TextToolCallsResult {
    const calls: ModelToolCall[] = [];
    for (const m of this.all.matchAll(BLOCK)) {
      const parsed = parse(m[1] ?? "");
      for (const item of Array.isArray(parsed) ? parsed : [parsed]) {
        const call = asCall(item, this.offered);
        if (call) calls.push(call);
      }
    }
    if (calls.length > 0) {
      const content = this.all.replace(BLOCK, "").trim();
      const release = this.all.slice(this.shown).replace(BLOCK, "").trimEnd();
      return { content, release, calls };
    }
    const whole = parse(this.all.trim());
    for (const item of Array.isArray(whole) ? whole : [whole]) {
      const call = asCall(item, this.offered);
      if (call) calls.push(call);
    }
    if (calls.length > 0 && this.shown === 0) return { content: "", release: "", calls };
    return { content: this.all, release: this.all.slice(this.shown), calls: [] };
  }
}
