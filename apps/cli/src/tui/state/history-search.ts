// Ctrl+R over the prompts sent before (its state, HistorySearch, is in types.ts).
import type { Key } from "./key.js";
import type { EditorState } from "./types.js";

function find(history: readonly string[], query: string, before: number): number | undefined {
  const q = query.toLowerCase();
  for (let i = Math.min(before, history.length) - 1; i >= 0; i--)
    if ((history[i] ?? "").toLowerCase().includes(q)) return i;
  return undefined;
}

export function startSearch(e: EditorState): EditorState {
  const match = e.history.length > 0 ? e.history.length - 1 : undefined;
  return { ...e, search: { query: "", match, draft: e.text } };
}

/** A key while searching; returns the editor after it. */
export function searchKey(e: EditorState, key: Key): EditorState {
  const s = e.search;
  if (!s) return e;
  const take = (text: string): EditorState => ({
    ...e,
    search: undefined,
    text,
    cursor: text.length,
    historyIndex: null,
    completions: [],
  });
  if (key.escape || (key.ctrl && key.input === "g")) return take(s.draft);
  if (key.ctrl && key.input === "r") {
    const older = s.match === undefined ? undefined : find(e.history, s.query, s.match);
    return older === undefined ? e : { ...e, search: { ...s, match: older } };
  }
  if (key.return || key.leftArrow || key.rightArrow || key.upArrow || key.downArrow || key.tab)
    return take(s.match === undefined ? s.draft : (e.history[s.match] ?? s.draft));
  if (key.backspace || key.delete) {
    const query = s.query.slice(0, -1);
    return { ...e, search: { ...s, query, match: find(e.history, query, e.history.length) } };
  }
  if (key.input && !key.ctrl && !key.meta) {
    const query = s.query + key.input.replace(/[\r\n]+/g, " ");
    return { ...e, search: { ...s, query, match: find(e.history, query, e.history.length) } };
  }
  return e;
}

/** What the input box shows while searching. */
export function searchLine(e: EditorState): string | undefined {
  const s = e.search;
  if (!s) return undefined;
  const found = s.match === undefined ? (s.query ? "no match" : "") : (e.history[s.match] ?? "");
  return `(search past prompts) “${s.query}”: ${found}`;
}
