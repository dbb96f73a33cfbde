import { formatBytes } from "../components/format.js";
import { TRANSPORT_LIMIT_BYTES, tooLargeMessage } from "../../format/message-limit.js";
import type { EditorState } from "./types.js";

/**
 * Large pastes. Drawing a pasted megabyte in the input box (thousands of lines, laid out on every
 * frame) stalls the chat, so a paste this long is kept aside and shown as one short placeholder;
 * the message sent has the whole text in its place.
 */
export const FOLD_CHARS = 2_000;
export const FOLD_LINES = 20;

/**
 * The most the Engine takes per ClientService request unless configured otherwise
 * (`limits.client_max_message`, 1 MiB by default, at most 16 MiB: the transport's limit).
 */
export const DEFAULT_ENGINE_LIMIT_BYTES = 1024 * 1024;
export { TRANSPORT_LIMIT_BYTES };

/** Room the rest of a SendMessage request takes beside the text (ids, workspace, model). */
const REQUEST_OVERHEAD_BYTES = 8 * 1024;

const PLACEHOLDER = /\[pasted text #\d+: [^\]]*\]/g;

export function shouldFold(text: string): boolean {
  if (text.length >= FOLD_CHARS) return true;
  let lines = 1;
  for (let i = text.indexOf("\n"); i >= 0 && lines < FOLD_LINES; i = text.indexOf("\n", i + 1)) lines++;
  return lines >= FOLD_LINES;
}

/**
 * A terminal delivers a large paste in chunks of a few kB: a chunk of more than one character
 * right after the paste just folded (nothing else typed since) is more of it.
 */
export function continuesPaste(e: EditorState, chunk: string): boolean {
  return chunk.length > 1 && e.lastPaste !== undefined && e.text.slice(0, e.cursor).endsWith(e.lastPaste);
}

function labelFor(n: number, text: string): string {
  const lines = text.split("\n").length;
  return `[pasted text #${n}: ${lines.toLocaleString("en-US")} line${lines === 1 ? "" : "s"}, ${formatBytes(Buffer.byteLength(text))}]`;
}

/** Inserts `text` at the cursor as a placeholder (or adds it to the paste it continues), keeping the text itself aside. */
export function foldPaste(e: EditorState, text: string): EditorState {
  const { [e.lastPaste ?? ""]: previous, ...others } = e.pastes ?? {};
  const continued = continuesPaste(e, text) && previous !== undefined;
  const n = continued ? (e.pasteSeq ?? 1) : (e.pasteSeq ?? 0) + 1;
  const body = continued ? previous + text : text;
  const label = labelFor(n, body);
  const start = continued ? e.cursor - (e.lastPaste ?? "").length : e.cursor;
  return {
    ...e,
    text: e.text.slice(0, start) + label + e.text.slice(e.cursor),
    cursor: start + label.length,
    completions: [],
    pastes: { ...(continued ? others : e.pastes), [label]: body },
    lastPaste: label,
    pasteSeq: n,
  };
}

/** The text with every placeholder still in it replaced by what was pasted. */
export function expandPastes(text: string, pastes: Readonly<Record<string, string>> | undefined): string {
  if (!pastes || Object.keys(pastes).length === 0) return text;
  return text.replace(PLACEHOLDER, (label) => pastes[label] ?? label);
}

/** The placeholder that ends right before the cursor (Backspace removes it whole), if any. */
export function placeholderBefore(e: EditorState): string | undefined {
  if (!e.pastes || !e.text.slice(0, e.cursor).endsWith("]")) return undefined;
  return Object.keys(e.pastes).find((label) => e.text.slice(0, e.cursor).endsWith(label));
}

/** The largest message text that fits in a request of `limitBytes`. */
export function textLimit(limitBytes: number): number {
  return limitBytes - REQUEST_OVERHEAD_BYTES;
}

/** Why a message of `bytes` is not sent, and what to do instead. */
export function tooLargeText(bytes: number, limitBytes: number): string {
  return tooLargeMessage(bytes, limitBytes, "; your text is back in the input box");
}
