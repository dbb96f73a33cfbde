/**
 * Text from the model, a tool or a capability server, made safe to print: every character a
 * terminal would interpret or hide (ESC and the ANSI sequences it starts, OSC 52 clipboard writes,
 * cursor movement, C1 controls such as U+009B, CR, bidi overrides, zero-width characters) is shown
 * as a visible escape (`\e[1A`, `\x9b`, `\u202e`). One rule for every place such text reaches a
 * terminal: `run`'s output and approval prompt, the chat's transcript and cards (sanitized as the
 * events arrive), `sessions show` and exports. The rule itself is the Shield's (`visible`).
 */
import { visible, visibleJson } from "@palisade/shield/visible";

/** Text for the terminal; newlines and tabs stay. */
export function shown(text: string): string {
  return visible(text, true);
}

/** One line for the terminal: newlines too are shown as `\n`. */
export function shownLine(text: string): string {
  return visible(text, false);
}

function shownValue(v: unknown): unknown {
  if (typeof v === "string") return shown(v);
  if (Array.isArray(v)) return v.map(shownValue);
  if (v !== null && typeof v === "object")
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [shown(k), shownValue(x)]));
  return v;
}

/**
 * A JSON document (tool arguments, a result) whose string values are made visible: once parsed
 * for display, no value carries a raw control character. Not JSON: shown as text.
 */
export function shownJson(json: string): string {
  if (json === "") return json;
  try {
    return JSON.stringify(shownValue(JSON.parse(json)));
  } catch {
    return shown(json);
  }
}

/** A JSON line for a program to read (`--json`): the same value, with C1, bidi and zero-width characters as `\uXXXX`. */
export function jsonLine(json: string): string {
  return visibleJson(json);
}

/**
 * A message from the Engine (a pipeline event, a history page) with every string made visible,
 * `…Json` fields as shownJson: what the chat keeps and draws holds no raw terminal control.
 * Bytes, numbers and enums are left as they are; a new object is returned.
 */
export function shownMessage<T>(message: T): T {
  return walk(message, "") as T;
}

function walk(v: unknown, key: string): unknown {
  if (typeof v === "string") return key.endsWith("Json") ? shownJson(v) : shown(v);
  if (Array.isArray(v)) return v.map((x) => walk(x, key));
  if (v === null || typeof v !== "object" || v instanceof Uint8Array) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = k === "$typeName" ? x : walk(x, k);
  return out;
}
