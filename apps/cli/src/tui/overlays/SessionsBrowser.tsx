import { Box, Text } from "ink";
import type { SessionsOverlay } from "../state/types.js";
import { relativeTime, truncate } from "../components/format.js";
import { Frame } from "./Frame.js";

/** Stored sessions (OTR ones never appear: they are never stored), filtered as you type. */
export function SessionsBrowser({ o, now, width, height }: { o: SessionsOverlay; now: number; width: number; height: number }) {
  const visible = Math.max(3, height - 6);
  const start = Math.max(0, Math.min(o.selected - Math.floor(visible / 2), o.items.length - visible));
  const rows = o.items.slice(start, start + visible);
  const titleWidth = Math.max(10, width - 40);
  return (
    <Frame title={`Sessions (${o.items.length} of ${o.total})`} hint="type to filter · ↑↓ select · Enter open · Esc close" width={width}>
      <Text>
        <Text dimColor>filter: </Text>
        {o.filter}
        <Text inverse> </Text>
        {o.loading ? <Text dimColor>  loading…</Text> : null}
      </Text>
      {rows.length === 0 && !o.loading ? <Text dimColor>{o.filter ? `no session title contains “${o.filter}”` : "no stored sessions yet"}</Text> : null}
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
      {o.items.length < o.total ? <Text dimColor>{`… ${o.total - o.items.length} more (↓ / PgDn loads them)`}</Text> : null}
    </Frame>
  );
}
