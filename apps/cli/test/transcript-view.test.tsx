import { describe, expect, it } from "vitest";
import { renderToString } from "ink";
import type { ChatMessage } from "@palisade/protocol/types";
import { TranscriptView } from "../src/tui/overlays/TranscriptView.js";
import { transcriptViewport } from "../src/tui/overlays/transcript-layout.js";
import type { ChatState, TranscriptOverlay } from "../src/tui/state/types.js";
import { fresh, key, run } from "./state.js";
import { longSession, messagesIn, overlappedRows } from "./long-session.js";

const WORDS = /m\d{3}w\d+/g;

function messages(n: number): ChatMessage[] {
  return longSession(n).map(
    (m, i) =>
      ({
        id: `msg${i}`,
        role: m.role,
        content: m.content,
        toolCalls: m.toolCalls.map((c) => ({
          ...c,
          verdict: { decision: 1, tier: 0, reason: "read-workspace", confidence: 1, ruleIds: [] },
          approval: "",
          isError: false,
          durationMs: 4n,
          artifacts: [],
          subAgentName: "",
        })),
      }) as unknown as ChatMessage,
  );
}

/** Opens a stored session of `n` messages in the viewer of a `columns`×`rows` terminal. */
function opened(n: number, columns: number, rows: number): ChatState {
  const s = fresh({
    columns,
    rows,
    overlay: {
      kind: "transcript",
      sessionId: "s1",
      session: { title: "Long" } as never,
      messages: [],
      nextCursor: "",
      top: 0,
      offset: 0,
      loading: true,
    },
  });
  return run(s, [
    {
      type: "historyLoaded",
      purpose: "transcript",
      sessionId: "s1",
      session: undefined,
      messages: messages(n),
      nextCursor: "",
      cursor: "",
    },
  ]).state;
}

function screen(s: ChatState): string[] {
  return renderToString(<TranscriptView o={s.overlay as TranscriptOverlay} columns={s.columns} rows={s.rows} />, {
    columns: s.columns,
  }).split("\n");
}

describe.each([
  [100, 40],
  [100, 12],
  [60, 12],
  [80, 10],
])("transcript viewer of a 200-message session at %i×%i", (columns, rows) => {
  it("fits the terminal with room for the status line and a banner, every row one clean line of one message", () => {
    const s = opened(200, columns, rows);
    const out = screen(s);
    // frame: border, title, header line, body, hint, border; below it the status line and a banner
    expect(out.length).toBe(transcriptViewport(columns, rows).height + 5);
    expect(out.length + 2).toBeLessThan(rows);
    for (const row of out) expect(row.length).toBeLessThanOrEqual(columns);
    expect(overlappedRows(out)).toEqual([]);
    // it opens at the end: the last message is on screen
    expect(messagesIn(out).has(199)).toBe(true);
  });

  // Paging through 200 messages a few lines at a time takes long; small windows page through 40.
  const n = rows >= 40 ? 200 : 40;
  const words = new Set(
    messages(n).flatMap(
      (m) => [m.content, ...m.toolCalls.flatMap((c) => [c.argumentsJson, c.result])].join(" ").match(WORDS) ?? [],
    ),
  );

  it(`scrolls to the first and the last message, and paging shows every line (${n} messages)`, () => {
    let s = opened(n, columns, rows);
    s = run(s, [key("", { home: true })]).state;
    const first = screen(s);
    expect(overlappedRows(first)).toEqual([]);
    expect(first.join("\n")).toContain("m000w0 ");
    const seen = new Set<string>();
    for (let i = 0; i < 5000; i++) {
      const rowsShown = screen(s);
      expect(overlappedRows(rowsShown)).toEqual([]);
      for (const w of rowsShown.join("\n").match(WORDS) ?? []) seen.add(w);
      const next = run(s, [key("", { pageDown: true })]).state;
      const o = next.overlay as TranscriptOverlay;
      const was = s.overlay as TranscriptOverlay;
      if (o.top === was.top && o.offset === was.offset) break;
      s = next;
    }
    expect([...words].filter((w) => !seen.has(w))).toEqual([]);
    expect(messagesIn(screen(s)).has(n - 1)).toBe(true);
    s = run(s, [
      key("", { home: true }),
      key("", { end: true }),
      key("", { upArrow: true }),
      key("", { downArrow: true }),
    ]).state;
    expect(messagesIn(screen(s)).has(n - 1)).toBe(true);
  });
});

describe("transcript viewer position", () => {
  it("a search hit's message is at the top of the window", () => {
    let s = fresh({
      columns: 100,
      rows: 20,
      overlay: {
        kind: "transcript",
        sessionId: "s1",
        session: undefined,
        messages: [],
        nextCursor: "",
        top: 0,
        offset: 0,
        loading: true,
        focusMessageId: "msg40",
      },
    });
    s = run(s, [
      {
        type: "historyLoaded",
        purpose: "transcript",
        sessionId: "s1",
        session: undefined,
        messages: messages(200),
        nextCursor: "",
        cursor: "",
      },
    ]).state;
    const out = screen(s);
    expect(s.overlay).toMatchObject({ top: 40, offset: 0 });
    expect(out.slice(3).join("\n")).toMatch(/^[^m]*m040w0 /);
  });
});
