import { Box, Text } from "ink";
import type { TranscriptOverlay } from "../state/types.js";
import { Frame } from "./Frame.js";
import { firstLine, positionOf, transcriptViewport } from "./transcript-layout.js";

/**
 * A stored session, read-only, rendered like the live chat; `r` resumes it. Draws exactly
 * `transcriptViewport(columns, rows).height` pre-rendered lines, so the frame never outgrows the
 * terminal and no line is drawn over another.
 */
export function TranscriptView({ o, columns, rows }: { o: TranscriptOverlay; columns: number; rows: number }) {
  const view = transcriptViewport(columns, rows);
  const layout = o.layout ?? { width: view.width, count: 0, lines: [], starts: [] };
  const from = firstLine(layout, o.top, o.offset, view.height);
  const shown = layout.lines.slice(from, from + view.height);
  while (shown.length < view.height) shown.push("");
  const title = o.session?.title || o.sessionId;
  const at = positionOf(layout, from).top;
  const position = o.messages.length ? `message ${at + 1}/${o.messages.length}${o.nextCursor ? "+" : ""}` : "";
  const empty =
    o.loading && o.messages.length === 0 ? "loading…" : o.messages.length === 0 ? "this session has no messages" : "";
  const header =
    from === 0 && o.nextCursor
      ? o.loading
        ? "loading older messages…"
        : "↑ older messages"
      : from + view.height >= layout.lines.length
        ? ""
        : `↓ ${layout.lines.length - from - view.height} more lines`;
  return (
    <Frame
      title={`Transcript · ${title}  ${position}`}
      hint="↑↓ PgUp/PgDn Home/End scroll (older pages load at the top) · r resume · Esc back"
      width={columns}
    >
      <Text dimColor wrap="truncate-end">
        {empty || header || " "}
      </Text>
      <Box flexDirection="column" height={view.height} width={view.width} overflow="hidden">
        {shown.map((l, i) => (
          <Text key={i} wrap="truncate-end">
            {l || " "}
          </Text>
        ))}
      </Box>
    </Frame>
  );
}
