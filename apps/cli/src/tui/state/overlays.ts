import { messagesToEntries } from "./history.js";
import { firstLine, layoutFor, positionOf, transcriptViewport } from "../overlays/transcript-layout.js";
import type { SearchHit } from "@palisade/protocol/pipeline";
import type { Key } from "./key.js";
import type { ChatState, Effect, Overlay, TranscriptOverlay, Update } from "./types.js";

/** Search-as-you-type in /sessions waits this long after the last key before asking the Engine. */
export const SESSIONS_SEARCH_DEBOUNCE_MS = 200;

/** What /sessions asks for: the session list for an empty filter, else SearchSessions (debounced while typing). */
export function sessionsQuery(filter: string, debounceMs: number): Effect {
  return filter === ""
    ? { type: "listSessions", filter: "", offset: 0 }
    : { type: "search", query: filter, debounceMs };
}

/** Hits reordered so each session's hits are adjacent; sessions in the order of their best hit. */
export function groupHitsBySession(hits: SearchHit[]): SearchHit[] {
  const groups = new Map<string, SearchHit[]>();
  for (const h of hits) {
    const g = groups.get(h.sessionId);
    if (g) g.push(h);
    else groups.set(h.sessionId, [h]);
  }
  return [...groups.values()].flat();
}

const done = (state: ChatState, effects: Effect[] = []): Update => ({ state, effects });

function printable(key: Key): boolean {
  return (
    Boolean(key.input) &&
    !key.ctrl &&
    !key.meta &&
    !key.return &&
    !key.tab &&
    !key.escape &&
    !key.upArrow &&
    !key.downArrow
  );
}

function clamp(n: number, max: number): number {
  return Math.max(0, Math.min(n, Math.max(0, max)));
}

export function openTranscript(
  sessionId: string,
  parent: Overlay | undefined,
  focusMessageId?: string,
): TranscriptOverlay {
  return {
    kind: "transcript",
    sessionId,
    session: undefined,
    messages: [],
    nextCursor: "",
    top: 0,
    offset: 0,
    loading: true,
    focusMessageId,
    parent,
  };
}

/** Makes a stored session the current one: its messages become the transcript. */
export function resumeSession(
  s: ChatState,
  t: Pick<TranscriptOverlay, "sessionId" | "session" | "messages">,
): ChatState {
  const usage = t.session?.usage;
  return {
    ...s,
    overlay: undefined,
    sessionId: t.sessionId,
    sessionTitle: t.session?.title || t.sessionId.slice(0, 8),
    otr: false,
    tokens: { input: usage?.inputTokens ?? 0, output: usage?.outputTokens ?? 0 },
    committed: [
      {
        kind: "notice",
        id: `resume-${s.nextId}`,
        level: "info",
        text: `resumed “${t.session?.title || t.sessionId}” (${t.messages.length} recent messages shown)`,
      },
      ...messagesToEntries(t.messages),
    ],
    live: [],
    subAgents: [],
    epoch: s.epoch + 1,
    nextId: s.nextId + 1,
  };
}

/** Keys while an overlay (sessions, transcript, search, help, ...) is open. */
export function overlayKey(s: ChatState, o: Overlay, key: Key): Update {
  const close = (): Update => done({ ...s, overlay: o.kind === "transcript" ? o.parent : undefined });
  switch (o.kind) {
    case "sessions": {
      if (key.escape) return close();
      const searching = o.filter !== "";
      const count = searching ? o.hits.length : o.items.length;
      if (key.upArrow || key.pageUp)
        return done({ ...s, overlay: { ...o, selected: clamp(o.selected - (key.pageUp ? 10 : 1), count - 1) } });
      if (key.downArrow || key.pageDown) {
        const selected = clamp(o.selected + (key.pageDown ? 10 : 1), count - 1);
        const needMore = !searching && selected >= o.items.length - 1 && o.items.length < o.total && !o.loading;
        return done(
          { ...s, overlay: { ...o, selected, loading: o.loading || needMore } },
          needMore ? [{ type: "listSessions", filter: "", offset: o.items.length }] : [],
        );
      }
      if (key.return) {
        if (searching) {
          const hit = o.hits[o.selected];
          if (!hit) return done(s);
          return done({ ...s, overlay: openTranscript(hit.sessionId, o, hit.messageId) }, [
            { type: "loadHistory", sessionId: hit.sessionId, cursor: "", purpose: "transcript" },
          ]);
        }
        const item = o.items[o.selected];
        if (!item) return done(s);
        return done({ ...s, overlay: openTranscript(item.id, o) }, [
          { type: "loadHistory", sessionId: item.id, cursor: "", purpose: "transcript" },
        ]);
      }
      if (key.backspace || key.delete || printable(key)) {
        const filter = key.backspace || key.delete ? o.filter.slice(0, -1) : o.filter + key.input;
        if (filter === o.filter) return done(s);
        return done({ ...s, overlay: { ...o, filter, hits: [], hitTotal: 0, selected: 0, loading: true } }, [
          sessionsQuery(filter, SESSIONS_SEARCH_DEBOUNCE_MS),
        ]);
      }
      return done(s);
    }
    case "transcript": {
      if (key.escape || key.input === "q") return close();
      if (key.input === "r") return done(resumeSession(s, o), [{ type: "clearScreen" }]);
      const view = transcriptViewport(s.columns, s.rows);
      const page = Math.max(1, view.height - 1);
      const delta = key.upArrow
        ? -1
        : key.downArrow
          ? 1
          : key.pageUp
            ? -page
            : key.pageDown
              ? page
              : key.home
                ? -1e9
                : key.end
                  ? 1e9
                  : 0;
      if (delta === 0) return done(s);
      const layout = layoutFor(o.messages, o.layout, s.columns, s.rows);
      const from = firstLine(layout, o.top, o.offset, view.height);
      const line = Math.max(0, Math.min(from + delta, layout.lines.length - view.height));
      const older = delta < 0 && from + delta < 0 && o.nextCursor !== "" && !o.loading;
      return done(
        { ...s, overlay: { ...o, layout, ...positionOf(layout, line), loading: o.loading || older } },
        older ? [{ type: "loadHistory", sessionId: o.sessionId, cursor: o.nextCursor, purpose: "transcript" }] : [],
      );
    }
    case "search": {
      if (key.escape) return close();
      if (key.upArrow) return done({ ...s, overlay: { ...o, selected: clamp(o.selected - 1, o.hits.length - 1) } });
      if (key.downArrow) return done({ ...s, overlay: { ...o, selected: clamp(o.selected + 1, o.hits.length - 1) } });
      if (key.return) {
        const hit = o.hits[o.selected];
        if (!hit) return done(s);
        return done({ ...s, overlay: openTranscript(hit.sessionId, o, hit.messageId) }, [
          { type: "loadHistory", sessionId: hit.sessionId, cursor: "", purpose: "transcript" },
        ]);
      }
      return done(s);
    }
    case "confirm":
      if (key.input === "y" || key.input === "Y") return done({ ...s, overlay: undefined }, [o.effect]);
      if (key.input === "n" || key.input === "N" || key.escape) return done({ ...s, overlay: undefined });
      return done(s);
    default: {
      if (key.escape || key.input === "q" || key.return) {
        if (o.kind === "agents" && key.return) {
          // Enter on an agent opens its transcript (inspector-like view of its entries).
          return done({
            ...s,
            overlay: { ...o, kind: "agents", selected: o.selected, loading: false, expanded: !o.expanded },
          });
        }
        return close();
      }
      const count =
        o.kind === "agents"
          ? s.subAgents.length
          : o.kind === "inspector"
            ? toolCards(s).length
            : o.kind === "tools"
              ? (o.tools?.length ?? 0)
              : 0;
      if (key.upArrow) return done({ ...s, overlay: { ...o, selected: clamp(o.selected - 1, count - 1) } });
      if (key.downArrow) return done({ ...s, overlay: { ...o, selected: clamp(o.selected + 1, count - 1) } });
      return done(s);
    }
  }
}

/** Every tool call of the visible conversation, oldest first (for the inspector). */
export function toolCards(s: ChatState) {
  return [...s.committed, ...s.live].filter((e) => e.kind === "tool");
}
