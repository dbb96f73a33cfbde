import { continuesPaste, foldPaste, placeholderBefore, shouldFold } from "./paste.js";
import type { Key } from "./key.js";
import type { EditorState } from "./types.js";

/** Pure multi-line text editing: every function returns a new EditorState. */

export const emptyEditor = (history: string[] = []): EditorState => ({
  text: "",
  cursor: 0,
  history,
  historyIndex: null,
  draft: "",
  completions: [],
});

export function insert(e: EditorState, s: string): EditorState {
  // Pasted text arrives in one chunk; terminals send CR for newlines.
  const clean = s.replace(/\r\n?/g, "\n").replace(/\t/g, "  ");
  if (shouldFold(clean) || continuesPaste(e, clean)) return foldPaste(e, clean);
  return {
    ...e,
    lastPaste: undefined,
    text: e.text.slice(0, e.cursor) + clean + e.text.slice(e.cursor),
    cursor: e.cursor + clean.length,
    completions: [],
  };
}

export function setText(e: EditorState, text: string): EditorState {
  return { ...e, text, cursor: text.length, completions: [] };
}

function lineStart(text: string, pos: number): number {
  return text.lastIndexOf("\n", pos - 1) + 1;
}

function lineEnd(text: string, pos: number): number {
  const i = text.indexOf("\n", pos);
  return i < 0 ? text.length : i;
}

/** Row and column of the cursor. */
export function cursorPosition(e: EditorState): { row: number; col: number } {
  const before = e.text.slice(0, e.cursor);
  const row = before.split("\n").length - 1;
  return { row, col: e.cursor - lineStart(e.text, e.cursor) };
}

function moveVertical(e: EditorState, delta: -1 | 1): EditorState | undefined {
  const start = lineStart(e.text, e.cursor);
  const col = e.cursor - start;
  if (delta < 0) {
    if (start === 0) return undefined;
    const prevStart = lineStart(e.text, start - 1);
    return { ...e, cursor: Math.min(prevStart + col, start - 1) };
  }
  const end = lineEnd(e.text, e.cursor);
  if (end >= e.text.length) return undefined;
  const nextStart = end + 1;
  return { ...e, cursor: Math.min(nextStart + col, lineEnd(e.text, nextStart)) };
}

function historyStep(e: EditorState, delta: -1 | 1): EditorState {
  if (e.history.length === 0) return e;
  if (delta < 0) {
    const index = e.historyIndex === null ? e.history.length - 1 : Math.max(0, e.historyIndex - 1);
    const draft = e.historyIndex === null ? e.text : e.draft;
    const text = e.history[index] ?? "";
    return { ...e, historyIndex: index, draft, text, cursor: text.length };
  }
  if (e.historyIndex === null) return e;
  const index = e.historyIndex + 1;
  if (index >= e.history.length) return { ...e, historyIndex: null, text: e.draft, cursor: e.draft.length };
  const text = e.history[index] ?? "";
  return { ...e, historyIndex: index, text, cursor: text.length };
}

function deleteWordBefore(e: EditorState): EditorState {
  const before = e.text.slice(0, e.cursor).replace(/\S*\s*$/, "");
  return { ...e, text: before + e.text.slice(e.cursor), cursor: before.length };
}

/** Applies an editing key; returns undefined when the key is not an editing key. */
export function editKey(typed: EditorState, key: Key): EditorState | undefined {
  // Text goes to insert, which knows whether it continues a paste; any other key ends the paste.
  const e =
    key.input && !key.ctrl && !key.return && !key.tab && !key.escape ? typed : { ...typed, lastPaste: undefined };
  if (key.leftArrow) return { ...e, cursor: Math.max(0, e.cursor - 1) };
  if (key.rightArrow) return { ...e, cursor: Math.min(e.text.length, e.cursor + 1) };
  if (key.home || (key.ctrl && key.input === "a")) return { ...e, cursor: lineStart(e.text, e.cursor) };
  if (key.end || (key.ctrl && key.input === "e")) return { ...e, cursor: lineEnd(e.text, e.cursor) };
  if (key.upArrow) return moveVertical(e, -1) ?? historyStep(e, -1);
  if (key.downArrow) return moveVertical(e, 1) ?? historyStep(e, 1);
  // Most terminals send DEL (0x7f) for Backspace, which ink reports as `delete`.
  if (key.backspace || key.delete) {
    if (e.cursor === 0) return e;
    const label = placeholderBefore(e);
    if (label)
      return {
        ...e,
        text: e.text.slice(0, e.cursor - label.length) + e.text.slice(e.cursor),
        cursor: e.cursor - label.length,
        completions: [],
      };
    return {
      ...e,
      text: e.text.slice(0, e.cursor - 1) + e.text.slice(e.cursor),
      cursor: e.cursor - 1,
      completions: [],
    };
  }
  if (key.ctrl && key.input === "u") {
    const start = lineStart(e.text, e.cursor);
    return { ...e, text: e.text.slice(0, start) + e.text.slice(e.cursor), cursor: start };
  }
  if (key.ctrl && key.input === "k")
    return { ...e, text: e.text.slice(0, e.cursor) + e.text.slice(lineEnd(e.text, e.cursor)) };
  if (key.ctrl && key.input === "w") return deleteWordBefore(e);
  if (key.return && key.meta) return insert(e, "\n");
  if (!key.ctrl && !key.meta && key.input && !key.return && !key.tab && !key.escape) return insert(e, key.input);
  if (key.meta && key.input && key.input.length > 1) return insert(e, key.input);
  return undefined;
}

/** Records a submitted text in history (no duplicates in a row) and clears the editor. */
export function commit(e: EditorState): EditorState {
  const t = e.text.trim();
  const history = t && e.history[e.history.length - 1] !== e.text ? [...e.history, e.text].slice(-500) : e.history;
  return emptyEditor(history);
}
