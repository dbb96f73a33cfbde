import { Box, renderToString } from "ink";
import type { ChatMessage } from "@palisade/protocol/types";
import type { TranscriptLayout } from "../state/types.js";
import { messagesToEntries } from "../state/history.js";
import { EntryView } from "../components/EntryView.js";

/**
 * The transcript viewer draws a window of pre-rendered lines. Laying out many wrapped entries in
 * one fixed-height box lets the layout engine shrink them below their text's height, and lines
 * then land on top of each other; measuring each message's lines first (rendered at the viewer's
 * width, as the chat draws them) makes every screen row exactly one line of one message.
 * The layout is computed by the reducer (outside React's render: `renderToString` must not run
 * inside another render) and kept in the overlay's state; the view only slices it.
 */
/** Rows the viewer's frame, its header line, the status line and a banner take (see TranscriptView). */
const CHROME_ROWS = 8;

/** Width the messages are rendered at, and how many of their lines fit, for a terminal of this size. */
export function transcriptViewport(columns: number, rows: number): { width: number; height: number } {
  return { width: Math.max(16, columns - 4), height: Math.max(1, rows - CHROME_ROWS) };
}

const cache = new WeakMap<ChatMessage, { width: number; lines: string[] }>();

function messageLines(m: ChatMessage, width: number): string[] {
  const hit = cache.get(m);
  if (hit && hit.width === width) return hit.lines;
  const entries = messagesToEntries([m]);
  let lines: string[] = [];
  if (entries.length > 0) {
    const out = renderToString(
      <Box flexDirection="column" width={width}>
        {entries.map((e) => (
          <EntryView key={e.id} entry={e} width={width} />
        ))}
      </Box>,
      { columns: width },
    );
    lines = out.split("\n").map((l) => l.trimEnd());
  }
  cache.set(m, { width, lines });
  return lines;
}

export function transcriptLayout(messages: ChatMessage[], width: number): TranscriptLayout {
  const lines: string[] = [];
  const starts: number[] = [];
  for (const m of messages) {
    starts.push(lines.length);
    for (const l of messageLines(m, width)) lines.push(l);
  }
  return { width, count: messages.length, lines, starts };
}

/** The overlay's layout for this terminal width (recomputed when the width or the messages changed). */
export function layoutFor(
  messages: ChatMessage[],
  previous: TranscriptLayout | undefined,
  columns: number,
  rows: number,
): TranscriptLayout {
  const { width } = transcriptViewport(columns, rows);
  if (previous && previous.width === width && previous.count === messages.length) return previous;
  return transcriptLayout(messages, width);
}

/** The first line shown for a scroll position (message index + lines into it), kept on screen. */
export function firstLine(layout: TranscriptLayout, top: number, offset: number, height: number): number {
  const start = layout.starts[Math.min(top, layout.starts.length - 1)] ?? 0;
  return Math.max(0, Math.min(start + offset, layout.lines.length - height));
}

/** The scroll position (message index + lines into it) of a first line. */
export function positionOf(layout: TranscriptLayout, line: number): { top: number; offset: number } {
  let top = 0;
  for (let i = 0; i < layout.starts.length; i++) {
    if ((layout.starts[i] ?? 0) <= line) top = i;
    else break;
  }
  // Several messages may start at the same line (empty ones): take the last of them with lines.
  return { top, offset: line - (layout.starts[top] ?? 0) };
}
