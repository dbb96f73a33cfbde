// A stored assistant message holds a turn's whole text and its tool calls, each call with the
// length of the text that came before it. Readers (the chat's transcript, exports) show them
// in the order they happened.

/** One piece of a message in the order it happened: a stretch of its text, or one of its calls. */
export type InOrder<C> = { kind: "text"; text: string } | { kind: "call"; call: C };

/**
 * The message's text cut at its calls' offsets, with each call between the pieces. Calls at the
 * same offset keep their order; an offset past the text (the text was cut short) puts the call
 * at the end, a missing one (0, NaN) at the start. Pieces of text are never empty.
 */
export function inTextOrder<C extends { textOffset: number }>(content: string, calls: readonly C[]): InOrder<C>[] {
  const out: InOrder<C>[] = [];
  const sorted = calls
    .map((call, i) => ({ call, i, at: Math.min(Math.max(0, call.textOffset || 0), content.length) }))
    .sort((a, b) => a.at - b.at || a.i - b.i);
  let from = 0;
  for (const { call, at } of sorted) {
    if (at > from) out.push({ kind: "text", text: content.slice(from, at) });
    from = Math.max(from, at);
    out.push({ kind: "call", call });
  }
  if (from < content.length) out.push({ kind: "text", text: content.slice(from) });
  return out;
}
