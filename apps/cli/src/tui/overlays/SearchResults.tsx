import { Box, Text } from "ink";
import type { SearchOverlay } from "../state/types.js";
import { relativeTime, truncate } from "../components/format.js";
import { Frame } from "./Frame.js";

/** Snippet with the Engine's [match] markers shown highlighted. */
export function Snippet({ text }: { text: string }) {
  const parts = text.replace(/\s+/g, " ").split(/(\[[^\]]*\])/);
  return (
    <Text>
      {parts.map((p, i) =>
        p.startsWith("[") && p.endsWith("]") ? (
          <Text key={i} bold color="yellow">
            {p.slice(1, -1)}
          </Text>
        ) : (
          <Text key={i}>{p}</Text>
        ),
      )}
    </Text>
  );
}

export function SearchResults({
  o,
  now,
  width,
  height,
}: {
  o: SearchOverlay;
  now: number;
  width: number;
  height: number;
}) {
  const visible = Math.max(2, Math.floor((height - 5) / 2));
  const start = Math.max(0, Math.min(o.selected - Math.floor(visible / 2), o.hits.length - visible));
  return (
    <Frame
      title={`Search “${o.query}” · ${o.total} ${o.total === 1 ? "hit" : "hits"}`}
      hint="↑↓ select · Enter open the transcript at the hit · Esc close"
      width={width}
    >
      {o.loading ? <Text dimColor>searching…</Text> : null}
      {!o.loading && o.hits.length === 0 ? <Text dimColor>nothing found</Text> : null}
      {o.hits.slice(start, start + visible).map((h, i) => {
        const selected = start + i === o.selected;
        return (
          <Box key={`${h.sessionId}-${h.messageId}-${h.callId}-${i}`} flexDirection="column">
            <Text
              inverse={selected}
            >{`${selected ? "›" : " "} ${truncate(h.sessionTitle || h.sessionId, width - 30)} · ${h.callId ? `tool call ${h.toolName || h.callId}` : h.role} · ${relativeTime(Number(h.createdAtUnixMs), now)}`}</Text>
            <Box paddingLeft={2}>
              <Snippet text={truncate(h.snippet, (width - 6) * 2)} />
            </Box>
          </Box>
        );
      })}
    </Frame>
  );
}
