import { Box, Text } from "ink";
import type { SearchHit } from "@palisade/protocol/pipeline";
import type { SessionsOverlay } from "../state/types.js";
import { relativeTime, truncate } from "../components/format.js";
import { Frame } from "./Frame.js";
import { Snippet } from "./SearchResults.js";

/**
 * Stored sessions (OTR ones never appear: they are never stored). With an empty filter it lists
 * them; with text it shows the SearchSessions hits for it, grouped by session.
 */
export function SessionsBrowser({
  o,
  now,
  width,
  height,
}: {
  o: SessionsOverlay;
  now: number;
  width: number;
  height: number;
}) {
  const searching = o.filter !== "";
  return (
    <Frame
      title={
        searching
          ? `Sessions · search “${o.filter}” · ${o.hitTotal} ${o.hitTotal === 1 ? "hit" : "hits"}`
          : `Sessions (${o.items.length} of ${o.total})`
      }
      hint={
        searching
          ? "type to search · ↑↓ select · Enter open the transcript at the hit · Esc close"
          : "type to search · ↑↓ select · Enter open · Esc close"
      }
      width={width}
    >
      <Text>
        <Text dimColor>search: </Text>
        {o.filter}
        <Text inverse> </Text>
        {o.loading ? <Text dimColor>{searching ? "  searching…" : "  loading…"}</Text> : null}
      </Text>
      {searching ? (
        <HitRows o={o} now={now} width={width} height={height} />
      ) : (
        <SessionRows o={o} now={now} width={width} height={height} />
      )}
    </Frame>
  );
}

function SessionRows({ o, now, width, height }: { o: SessionsOverlay; now: number; width: number; height: number }) {
  const visible = Math.max(3, height - 6);
  const start = Math.max(0, Math.min(o.selected - Math.floor(visible / 2), o.items.length - visible));
  const rows = o.items.slice(start, start + visible);
  const titleWidth = Math.max(10, width - 40);
  return (
    <>
      {rows.length === 0 && !o.loading ? <Text dimColor>no stored sessions yet</Text> : null}
      <Box flexDirection="column">
        {rows.map((s, i) => {
          const selected = start + i === o.selected;
          return (
            <Text key={s.id} inverse={selected}>
              {`${selected ? "›" : " "} ${truncate(s.title || "(untitled)", titleWidth).padEnd(titleWidth)}  ${relativeTime(Number(s.updatedAtUnixMs), now).padEnd(12)} ${String(s.messageCount).padStart(4)} msgs  ${s.id.slice(0, 8)}`}
            </Text>
          );
        })}
      </Box>
      {o.items.length < o.total ? (
        <Text dimColor>{`… ${o.total - o.items.length} more (↓ / PgDn loads them)`}</Text>
      ) : null}
    </>
  );
}

/** Hits under a header per session; `o.hits` is already grouped (see groupHitsBySession). */
function HitRows({ o, now, width, height }: { o: SessionsOverlay; now: number; width: number; height: number }) {
  const visible = Math.max(2, Math.floor((height - 6) / 3));
  const start = Math.max(0, Math.min(o.selected - Math.floor(visible / 2), o.hits.length - visible));
  const shown = o.hits.slice(start, start + visible);
  if (shown.length === 0) return o.loading ? null : <Text dimColor>{`nothing found for “${o.filter}”`}</Text>;
  return (
    <Box flexDirection="column">
      {shown.map((h: SearchHit, i) => {
        const index = start + i;
        const selected = index === o.selected;
        const header = i === 0 || o.hits[index - 1]?.sessionId !== h.sessionId;
        return (
          <Box key={`${h.sessionId}-${h.messageId}-${h.callId}-${index}`} flexDirection="column">
            {header ? (
              <Text bold>{`${truncate(h.sessionTitle || "(untitled)", width - 16)}  ${h.sessionId.slice(0, 8)}`}</Text>
            ) : null}
            <Text
              inverse={selected}
            >{`${selected ? "›" : " "}   ${h.callId ? `tool call ${h.toolName || h.callId}` : h.role} · ${relativeTime(Number(h.createdAtUnixMs), now)}`}</Text>
            <Box paddingLeft={4}>
              <Snippet text={truncate(h.snippet, (width - 8) * 2)} />
            </Box>
          </Box>
        );
      })}
    </Box>
  );
}
