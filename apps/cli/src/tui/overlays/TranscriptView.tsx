import { Box, Text } from "ink";
import type { TranscriptOverlay } from "../state/types.js";
import { messagesToEntries } from "../state/history.js";
import { EntryView } from "../components/EntryView.js";
import { Frame } from "./Frame.js";

/** A stored session, read-only, rendered like the live chat; `r` resumes it. */
export function TranscriptView({ o, width, height }: { o: TranscriptOverlay; width: number; height: number }) {
  const shown = o.messages.slice(o.top);
  const title = o.session?.title || o.sessionId;
  const position = o.messages.length ? `${o.top + 1}/${o.messages.length}${o.nextCursor ? "+" : ""}` : "";
  return (
    <Frame title={`Transcript · ${title}  ${position}`} hint="↑↓ PgUp/PgDn scroll (older pages load at the top) · r resume · Esc back" width={width}>
      {o.loading && o.messages.length === 0 ? <Text dimColor>loading…</Text> : null}
      {!o.loading && o.messages.length === 0 ? <Text dimColor>this session has no messages</Text> : null}
      {o.top === 0 && o.nextCursor ? <Text dimColor>{o.loading ? "loading older messages…" : "↑ older messages"}</Text> : null}
      <Box flexDirection="column" height={Math.max(5, height - 5)} overflow="hidden">
        {messagesToEntries(shown).map((e) => (
          <EntryView key={e.id} entry={e} width={width - 4} />
        ))}
      </Box>
    </Frame>
  );
}
