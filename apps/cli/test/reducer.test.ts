import { describe, expect, it } from "vitest";
import { EventFactory } from "./fake/events.js";
import { at, ctrl, enter, esc, ev, fresh, key, run, sent, type, T0 } from "./state.js";
import type { AssistantEntry, ToolCardEntry } from "../src/tui/state/types.js";
import { stableSplitPoint } from "../src/tui/state/split.js";
import { completeSlash } from "../src/tui/state/commands.js";

const f = () => new EventFactory("s-1", "m-1");

describe("sending and streaming", () => {
  it("Enter sends the typed text and starts a turn", () => {
    const { state, effects } = sent("hello there");
    expect(effects).toEqual([
      expect.objectContaining({ type: "send", text: "hello there", sessionId: undefined, otr: false }),
    ]);
    expect(state.turn).toBeDefined();
    expect(state.committed.at(-1)).toMatchObject({ kind: "user", text: "hello there" });
    expect(state.editor.text).toBe("");
    expect(state.editor.history).toEqual(["hello there"]);
  });

  it("tokens stream into one assistant entry; RESPONSE_COMPLETE commits it and counts tokens", () => {
    const e = f();
    const { state } = run(sent().state, [
      ev(e.accepted("Greeting")),
      ev(e.token("Hel")),
      ev(e.token("lo")),
      ev(e.complete("Hello", 120, 30)),
    ]);
    expect(state.sessionId).toBe("s-1");
    expect(state.sessionTitle).toBe("Greeting");
    expect(state.turn).toBeUndefined();
    expect(state.live).toEqual([]);
    const answers = state.committed.filter((x) => x.kind === "assistant");
    expect(answers).toHaveLength(1);
    expect(answers[0]).toMatchObject({ text: "Hello", streaming: false });
    expect(state.tokens).toEqual({ input: 120, output: 30 });
  });

  it("an Engine that sends no tokens still shows the final content", () => {
    const e = f();
    const { state } = run(sent().state, [ev(e.accepted()), ev(e.complete("whole answer"))]);
    expect(state.committed.at(-1)).toMatchObject({ kind: "assistant", text: "whole answer" });
  });

  it("long answers are cut at paragraph breaks so the live area stays small", () => {
    const e = f();
    const { state } = run(sent().state, [
      ev(e.accepted()),
      ev(e.token("# Title\n\nfirst paragraph.\n\nsecond")),
      ev(e.token(" paragraph grows")),
    ]);
    const printed = state.committed.filter((x): x is AssistantEntry => x.kind === "assistant");
    expect(printed.map((p) => p.text).join("\n\n")).toBe("# Title\n\nfirst paragraph.");
    expect(state.live).toEqual([
      expect.objectContaining({
        kind: "assistant",
        text: "second paragraph grows",
        continuation: true,
        streaming: true,
      }),
    ]);
  });

  it("a message typed while a turn runs is kept, not sent", () => {
    const { state, effects } = run(sent().state, [...type("next"), enter]);
    expect(effects).toEqual([]);
    expect(state.editor.text).toBe("next");
    expect(state.banner?.text).toContain("a turn is running");
  });

  it("the next message continues the session", () => {
    const e = f();
    const { effects } = run(sent().state, [ev(e.accepted()), ev(e.complete("ok")), ...type("more"), enter]);
    expect(effects.at(-1)).toMatchObject({ type: "send", text: "more", sessionId: "s-1" });
  });
});

describe("split points", () => {
  it.each([
    ["no break yet", "abc", 0],
    ["after a paragraph", "para one\n\npara two", 10],
    ["not inside a fence", "```js\nconst a = 1;\n\nconst b = 2;\n", 0],
    ["after a closed fence", "```\ncode\n```\n\nafter", 14],
    ["not before an indented list continuation", "- item\n\n  more of item\n", 0],
  ])("%s", (_name, text, expected) => {
    expect(stableSplitPoint(text)).toBe(expected);
  });
});

describe("tool cards", () => {
  const base = () => {
    const e = f();
    return { e, s: run(sent().state, [ev(e.accepted())]).state };
  };

  it.each([
    [
      "allowed and completed",
      (e: EventFactory) => [
        e.proposed("c1", "files__read_file", { path: "README.md" }),
        e.verdict("c1", "files__read_file", "allow", 0, "reads are allowed"),
        e.started("c1", "files__read_file"),
        e.completed("c1", "files__read_file", { summary: "42 lines", durationMs: 7 }),
      ],
      { phase: "done", resultSummary: "42 lines", durationMs: 7 },
    ],
    [
      "blocked by the Shield",
      (e: EventFactory) => [
        e.proposed("c1", "shell__exec", { cmd: "rm -rf /" }),
        e.verdict("c1", "shell__exec", "block", 1, "destructive command"),
      ],
      {
        phase: "blocked",
        verdict: expect.objectContaining({ decision: "block", tier: 1, reason: "destructive command" }),
      },
    ],
    [
      "failed",
      (e: EventFactory) => [
        e.proposed("c1", "http__get", { url: "x" }),
        e.started("c1", "http__get"),
        e.completed("c1", "http__get", { success: false, error: "timeout" }),
      ],
      { phase: "failed", error: "timeout" },
    ],
    [
      "refused off the record",
      (e: EventFactory) => [
        e.proposed("c1", "shell__exec", {}),
        e.otrBlocked("c1", "shell__exec", "not allowed in OTR"),
      ],
      { phase: "otr-blocked", error: "not allowed in OTR" },
    ],
    [
      "with progress while running",
      (e: EventFactory) => [
        e.proposed("c1", "shell__exec", {}),
        e.started("c1", "shell__exec"),
        e.progress("c1", "line 1\n"),
        e.progress("c1", "line 2\n"),
      ],
      { phase: "running", progress: "line 1\nline 2\n" },
    ],
    [
      "with artifacts",
      (e: EventFactory) => [
        e.proposed("c1", "documents__pdf", {}),
        e.started("c1", "documents__pdf"),
        e.completed("c1", "documents__pdf", {
          artifacts: [{ artifactId: "a1", filename: "report.pdf", mimeType: "application/pdf", sizeBytes: 2048n }],
        }),
      ],
      {
        phase: "done",
        artifacts: [{ id: "a1", filename: "report.pdf", mimeType: "application/pdf", sizeBytes: 2048 }],
      },
    ],
  ])("%s", (_name, events, expected) => {
    const { e, s } = base();
    const { state } = run(s, events(e).map(ev));
    const card = [...state.committed, ...state.live].find((x) => x.kind === "tool") as ToolCardEntry;
    expect(card).toMatchObject(expected);
  });

  it("a blocked call followed by its ACTION_COMPLETED is one card", () => {
    const { e, s } = base();
    const { state } = run(s, [
      ev(e.proposed("c1", "shell__exec", { command: "curl x | sh" })),
      ev(e.verdict("c1", "shell__exec", "block", 1, "pipe to shell")),
      ev(e.completed("c1", "shell__exec", { success: false, error: "blocked by the Shield" })),
      ev(e.token("It was blocked.")),
      ev(e.complete("It was blocked.")),
    ]);
    const cards = state.committed.filter((x) => x.kind === "tool");
    expect(cards).toHaveLength(1);
    expect(cards[0]).toMatchObject({ phase: "blocked", error: "blocked by the Shield" });
  });

  it("a running card keeps later text in the live area until it finishes", () => {
    const { e, s } = base();
    const { state } = run(s, [
      ev(e.token("Let me look.\n\n")),
      ev(e.proposed("c1", "files__read_file", {})),
      ev(e.started("c1", "files__read_file")),
    ]);
    expect(state.live.map((x) => x.kind)).toEqual(["tool"]);
    expect(state.committed.at(-1)).toMatchObject({ kind: "assistant", text: "Let me look." });
  });
});

describe("approvals", () => {
  const pending = () => {
    const e = f();
    const s = run(sent().state, [
      ev(e.accepted()),
      ev(e.proposed("c1", "shell__exec", { cmd: "ls" })),
      ev(e.verdict("c1", "shell__exec", "escalate", 1, "commands need approval")),
      ev(e.approvalNeeded("ap1", "c1", "shell__exec", { cmd: "ls" }, "commands need approval", T0 + 60_000)),
      ev(e.proposed("c2", "shell__exec", { cmd: "pwd" })),
      ev(e.approvalNeeded("ap2", "c2", "shell__exec", { cmd: "pwd" }, "commands need approval", T0 + 60_000)),
    ]).state;
    return { e, s };
  };

  it.each([
    ["y", "allow_once"],
    ["a", "allow_session"],
    ["n", "deny"],
  ])("%s answers the first approval with %s and the next one waits", (k, choice) => {
    const { s } = pending();
    expect(s.approvals.map((a) => a.approvalId)).toEqual(["ap1", "ap2"]);
    const { state, effects } = run(s, [key(k)]);
    expect(effects).toEqual([{ type: "resolveApproval", approvalId: "ap1", sessionId: "s-1", choice }]);
    expect(state.approvals.map((a) => a.approvalId)).toEqual(["ap2"]);
    expect(state.editor.text).toBe("");
  });

  it("n marks the card denied at once, and its ACTION_COMPLETED keeps it denied", () => {
    const { e, s } = pending();
    const { state } = run(s, [
      key("n"),
      ev(e.completed("c1", "shell__exec", { success: false, error: "the user declined" })),
    ]);
    const card = [...state.committed, ...state.live].find(
      (x) => x.kind === "tool" && x.callId === "c1",
    ) as ToolCardEntry;
    expect(card).toMatchObject({ phase: "denied", approval: { choice: "deny" }, error: "the user declined" });
    expect([...state.committed, ...state.live].filter((x) => x.kind === "tool" && x.callId === "c1")).toHaveLength(1);
  });

  it("r denies with a typed reason (sent to the Engine for the model); Esc goes back to the choice", () => {
    const { s } = pending();
    let r = run(s, [key("r"), ...type("not on main"), key("", { backspace: true }), ...type("n")]);
    expect(r.effects).toEqual([]);
    expect(r.state.denyReason).toBe("not on main");
    expect(r.state.approvals).toHaveLength(2);
    r = run(r.state, [enter]);
    expect(r.effects).toEqual([
      { type: "resolveApproval", approvalId: "ap1", sessionId: "s-1", choice: "deny", reason: "not on main" },
    ]);
    expect(r.state.denyReason).toBeUndefined();
    expect(r.state.editor.text).toBe("");
    // the next one: r, then Esc, then y
    r = run(r.state, [key("r"), ...type("x"), esc, key("y")]);
    expect(r.effects).toEqual([{ type: "resolveApproval", approvalId: "ap2", sessionId: "s-1", choice: "allow_once" }]);
  });

  it("a reason and Enter arriving in one chunk deny with that reason", () => {
    const { s } = pending();
    const r = run(s, [key("r"), key("too risky\r")]);
    expect(r.effects).toEqual([
      { type: "resolveApproval", approvalId: "ap1", sessionId: "s-1", choice: "deny", reason: "too risky" },
    ]);
  });

  it("other keys do not type into the input while an approval is shown", () => {
    const { s } = pending();
    const { state, effects } = run(s, [key("x")]);
    expect(effects).toEqual([]);
    expect(state.editor.text).toBe("");
  });

  it("APPROVAL_RESOLVED (e.g. a timeout) removes it from the queue and marks the card", () => {
    const { e, s } = pending();
    const { state } = run(s, [ev(e.approvalResolved("ap1", "c1", "deny", "timeout"))]);
    expect(state.approvals.map((a) => a.approvalId)).toEqual(["ap2"]);
    const card = [...state.committed, ...state.live].find(
      (x) => x.kind === "tool" && x.callId === "c1",
    ) as ToolCardEntry;
    expect(card).toMatchObject({ phase: "denied", approval: { choice: "deny", by: "timeout" } });
  });

  it("an approval long past its deadline is dropped", () => {
    const { s } = pending();
    expect(run(s, [at(T0 + 70_000)]).state.approvals).toEqual([]);
  });
});

describe("cancel and exit keys", () => {
  it("Esc cancels the running turn once the session is known", () => {
    const e = f();
    const { state, effects } = run(sent().state, [ev(e.accepted()), esc, esc]);
    expect(effects.filter((x) => x.type === "cancel")).toEqual([
      { type: "cancel", sessionId: "s-1", messageId: "m-1" },
    ]);
    expect(state.turn?.cancelling).toBe(true);
  });

  it("TURN_CANCELLED ends the turn and says so", () => {
    const e = f();
    const { state } = run(sent().state, [ev(e.accepted()), ev(e.token("partial")), ev(e.cancelled())]);
    expect(state.turn).toBeUndefined();
    expect(state.committed.at(-1)).toMatchObject({ kind: "notice", text: expect.stringContaining("turn cancelled") });
  });

  it("first Ctrl+C clears the input, the second within 2 s exits", () => {
    const typed = run(fresh(), type("draft")).state;
    const once = run(typed, [ctrl("c")]);
    expect(once.state.editor.text).toBe("");
    expect(once.effects).toEqual([]);
    expect(once.state.banner?.text).toContain("Ctrl+C again");
    const twice = run(once.state, [ctrl("c")]);
    expect(twice.effects).toEqual([{ type: "exit" }]);
  });

  it("Ctrl+C after the window does not exit", () => {
    const once = run(fresh(), [ctrl("c")]).state;
    const later = run({ ...once, now: T0 + 5000 }, [ctrl("c")]);
    expect(later.effects).toEqual([]);
  });

  it("Ctrl+C during a turn cancels it first", () => {
    const e = f();
    const { effects } = run(sent().state, [ev(e.accepted()), ctrl("c")]);
    expect(effects).toEqual([{ type: "cancel", sessionId: "s-1", messageId: "m-1" }]);
  });
});

describe("editor", () => {
  it("backslash-Enter and Alt+Enter insert newlines instead of sending", () => {
    const { state, effects } = run(fresh(), [
      ...type("a\\"),
      enter,
      ...type("b"),
      key("\r", { return: true, meta: true }),
      ...type("c"),
    ]);
    expect(effects).toEqual([]);
    expect(state.editor.text).toBe("a\nb\nc");
  });

  it("text followed by Enter in one chunk is sent", () => {
    const { state, effects } = run(fresh(), [key("hello\r")]);
    expect(effects).toEqual([expect.objectContaining({ type: "send", text: "hello" })]);
    expect(state.editor.text).toBe("");
  });

  it("a paste with newlines is inserted whole", () => {
    const { state, effects } = run(fresh(), [key("line 1\rline 2\r\nline 3")]);
    expect(effects).toEqual([]);
    expect(state.editor.text).toBe("line 1\nline 2\nline 3");
  });

  it("↑ recalls history, ↓ returns to the draft", () => {
    const e = f();
    let s = run(sent("first").state, [ev(e.accepted()), ev(e.complete("ok"))]).state;
    s = run(s, [...type("dra"), key("", { upArrow: true })]).state;
    expect(s.editor.text).toBe("first");
    s = run(s, [key("", { downArrow: true })]).state;
    expect(s.editor.text).toBe("dra");
  });

  it("↑ moves between lines before it reaches history", () => {
    const s = run(fresh(), [...type("ab\\"), enter, ...type("cd"), key("", { upArrow: true }), ...type("X")]).state;
    expect(s.editor.text).toBe("abX\ncd");
  });

  it("backspace, Ctrl+U and Ctrl+W edit", () => {
    expect(run(fresh(), [...type("abc"), key("", { backspace: true })]).state.editor.text).toBe("ab");
    expect(run(fresh(), [...type("one two"), ctrl("w")]).state.editor.text).toBe("one ");
    expect(run(fresh(), [...type("one two"), ctrl("u")]).state.editor.text).toBe("");
  });
});

describe("slash commands", () => {
  it.each([
    ["/he", "/help ", []],
    ["/s", "/s", ["sessions", "search", "status", "save"]],
    ["/se", "/se", ["sessions", "search"]],
    ["/zz", "/zz", []],
  ])("Tab completes %s", (text, expected, candidates) => {
    expect(completeSlash(text)).toEqual({ text: expected, candidates });
  });

  it.each([
    ["/help", { overlay: expect.objectContaining({ kind: "help" }) }, []],
    [
      "/sessions",
      { overlay: expect.objectContaining({ kind: "sessions" }) },
      [{ type: "listSessions", filter: "", offset: 0 }],
    ],
    ["/status", { overlay: expect.objectContaining({ kind: "status" }) }, [{ type: "loadStatus" }]],
    ["/tools", { overlay: expect.objectContaining({ kind: "tools" }) }, [{ type: "loadTools" }]],
    ["/agents", { overlay: expect.objectContaining({ kind: "agents" }) }, [{ type: "loadAgents" }]],
    [
      "/search cats and dogs",
      { overlay: expect.objectContaining({ kind: "search", query: "cats and dogs" }) },
      [{ type: "search", query: "cats and dogs" }],
    ],
    ["/resume ab12", {}, [{ type: "resolvePrefix", prefix: "ab12" }]],
    ["/otr", { otr: true, sessionId: undefined }, []],
    ["/model llama3.1", { modelOverride: "llama3.1" }, []],
    ["/clear", { committed: [] }, [{ type: "clearScreen" }]],
    ["/quit", { exiting: true }, [{ type: "exit" }]],
  ])("%s", (cmd, expected, effects) => {
    const r = run(fresh(), [...type(cmd), enter]);
    expect(r.state).toMatchObject(expected);
    expect(r.effects).toEqual(effects);
  });

  it("an unknown command lists what exists", () => {
    const r = run(fresh(), [...type("/frobnicate"), enter]);
    expect(r.effects).toEqual([]);
    expect(r.state.banner?.text).toContain("unknown command /frobnicate");
    expect(r.state.banner?.text).toContain("/sessions");
  });

  it("/export and /delete need a stored session", () => {
    expect(run(fresh(), [...type("/export"), enter]).state.banner?.text).toContain("needs a stored session");
    const withSession = fresh({ sessionId: "s-9", sessionTitle: "Plans" });
    expect(run(withSession, [...type("/export json out.json"), enter]).effects).toEqual([
      { type: "export", sessionId: "s-9", format: "json", file: "out.json" },
    ]);
    const del = run(withSession, [...type("/delete"), enter]);
    expect(del.state.overlay).toMatchObject({ kind: "confirm" });
    expect(run(del.state, [key("y")]).effects).toEqual([{ type: "deleteSession", sessionId: "s-9" }]);
  });

  it("/save saves this session's newest artifact, or the one named, into a directory", () => {
    const card = (id: string, artifacts: { id: string; filename: string }[]): ToolCardEntry => ({
      kind: "tool",
      id,
      callId: id,
      toolName: "documents__create_pdf",
      argumentsJson: "{}",
      phase: "done",
      progress: "",
      artifacts: artifacts.map((a) => ({ ...a, mimeType: "application/pdf", sizeBytes: 10 })),
    });
    expect(run(fresh(), [...type("/save"), enter]).state.banner?.text).toContain("/save needs a stored session");
    const empty = fresh({ sessionId: "s-9" });
    expect(run(empty, [...type("/save"), enter]).state.banner?.text).toContain(
      "no tool of this session has made a file yet",
    );
    const withFiles = fresh({
      sessionId: "s-9",
      committed: [
        card("c1", [{ id: "art_aaa111", filename: "a.pdf" }]),
        card("c2", [{ id: "art_bbb222", filename: "b.pdf" }]),
      ],
    });
    expect(run(withFiles, [...type("/save"), enter]).effects).toEqual([
      { type: "saveArtifact", sessionId: "s-9", artifactId: "art_bbb222", dir: undefined },
    ]);
    expect(run(withFiles, [...type("/save out"), enter]).effects).toEqual([
      { type: "saveArtifact", sessionId: "s-9", artifactId: "art_bbb222", dir: "out" },
    ]);
    expect(run(withFiles, [...type("/save art_aaa ~/Downloads"), enter]).effects).toEqual([
      { type: "saveArtifact", sessionId: "s-9", artifactId: "art_aaa111", dir: "~/Downloads" },
    ]);
    expect(run(withFiles, [...type("/save art_zzz"), enter]).state.banner?.text).toContain(
      "no artifact 'art_zzz' in this session",
    );
    expect(run(withFiles, [...type("/save art_"), enter]).state.banner?.text).toContain("matches 2 artifacts");
  });

  it("/otr sends the next message off the record", () => {
    const r = run(fresh(), [...type("/otr"), enter, ...type("secret"), enter]);
    expect(r.effects.at(-1)).toMatchObject({ type: "send", text: "secret", otr: true });
  });
});

describe("sessions browser and transcript", () => {
  const session = (id: string, title: string) => ({ id, title, messageCount: 3, updatedAtUnixMs: BigInt(T0) }) as never;

  it("Enter on a listed session opens its transcript; r resumes", () => {
    let r = run(fresh(), [...type("/sessions"), enter]);
    r = run(r.state, [
      { type: "sessionsLoaded", items: [session("aaa", "Plans"), session("bbb", "Taxes")], total: 2, offset: 0 },
      key("", { downArrow: true }),
      enter,
    ]);
    expect(r.effects.at(-1)).toEqual({ type: "loadHistory", sessionId: "bbb", cursor: "", purpose: "transcript" });
    const msgs = [
      { id: "m1", role: "user", content: "how much tax?", toolCalls: [] },
      { id: "m2", role: "assistant", content: "About **10%**.", toolCalls: [] },
    ] as never[];
    r = run(r.state, [
      {
        type: "historyLoaded",
        purpose: "transcript",
        sessionId: "bbb",
        session: session("bbb", "Taxes"),
        messages: msgs,
        nextCursor: "",
        cursor: "",
      },
    ]);
    expect(r.state.overlay).toMatchObject({ kind: "transcript", messages: msgs });
    r = run(r.state, [key("r")]);
    expect(r.state.overlay).toBeUndefined();
    expect(r.state.sessionId).toBe("bbb");
    expect(r.state.sessionTitle).toBe("Taxes");
    expect(r.state.committed.map((x) => x.kind)).toEqual(["notice", "user", "assistant"]);
  });

  const hit = (sessionId: string, messageId: string, title = sessionId) =>
    ({
      sessionId,
      sessionTitle: title,
      messageId,
      callId: "",
      role: "user",
      snippet: `[x] in ${messageId}`,
      rank: 1,
      createdAtUnixMs: BigInt(T0),
      seq: 1n,
    }) as never;
  const opened = () =>
    run(fresh(), [
      ...type("/sessions"),
      enter,
      { type: "sessionsLoaded", items: [session("aaa", "Plans")], total: 1, offset: 0 },
    ]);

  // Search-as-you-type in /sessions uses SearchSessions, debounced; an empty filter lists sessions.
  it.each([
    ["a first character searches (debounced)", ["t"], { type: "search", query: "t", debounceMs: 200 }],
    [
      "each further character searches the whole text",
      ["t", "a", "x"],
      { type: "search", query: "tax", debounceMs: 200 },
    ],
    ["backspace to a shorter text searches that", ["t", "a", "\b"], { type: "search", query: "t", debounceMs: 200 }],
    ["backspace to empty lists sessions again", ["t", "\b"], { type: "listSessions", filter: "", offset: 0 }],
  ])("%s", (_name, keys, effect) => {
    let r = opened();
    for (const k of keys) r = run(r.state, [k === "\b" ? key("", { backspace: true }) : key(k)]);
    expect(r.effects).toEqual([effect]);
    expect(r.state.overlay).toMatchObject({
      kind: "sessions",
      filter: keys.reduce((f, k) => (k === "\b" ? f.slice(0, -1) : f + k), ""),
      hits: [],
      loading: true,
    });
  });

  it("/sessions <text> starts with a search right away", () => {
    const r = run(fresh(), [...type("/sessions tax"), enter]);
    expect(r.effects).toEqual([{ type: "search", query: "tax", debounceMs: 0 }]);
  });

  it("hits are grouped by session; answers for an older query are dropped", () => {
    let r = run(opened().state, [key("t"), key("a")]);
    r = run(r.state, [{ type: "searchLoaded", query: "t", hits: [hit("old", "m0")], total: 1 }]);
    expect(r.state.overlay).toMatchObject({ hits: [], loading: true });
    r = run(r.state, [
      { type: "searchLoaded", query: "ta", hits: [hit("s1", "m1"), hit("s2", "m2"), hit("s1", "m3")], total: 3 },
    ]);
    expect(r.state.overlay).toMatchObject({ kind: "sessions", hitTotal: 3, loading: false, selected: 0 });
    const o = r.state.overlay as { hits: { sessionId: string; messageId: string }[] };
    expect(o.hits.map((h) => `${h.sessionId}/${h.messageId}`)).toEqual(["s1/m1", "s1/m3", "s2/m2"]);
    // A late session listing does not replace the hits.
    r = run(r.state, [{ type: "sessionsLoaded", items: [session("zzz", "Z")], total: 1, offset: 0 }]);
    expect(r.state.overlay).toMatchObject({ items: [session("aaa", "Plans")], hitTotal: 3 });
  });

  it("Enter on a hit opens the transcript at it; Esc goes back to the hits", () => {
    let r = run({ ...opened().state, rows: 12 }, [
      key("t"),
      { type: "searchLoaded", query: "t", hits: [hit("s1", "m1"), hit("s2", "m2"), hit("s1", "m3")], total: 3 },
    ]);
    r = run(r.state, [key("", { downArrow: true }), enter]);
    expect(r.effects).toEqual([{ type: "loadHistory", sessionId: "s1", cursor: "", purpose: "transcript" }]);
    expect(r.state.overlay).toMatchObject({ kind: "transcript", sessionId: "s1", focusMessageId: "m3" });
    const msgs = ["m1", "m2", "m3", "m4", "m5", "m6"].map((id) => ({
      id,
      role: "user",
      content: id,
      toolCalls: [],
    })) as never[];
    r = run(r.state, [
      {
        type: "historyLoaded",
        purpose: "transcript",
        sessionId: "s1",
        session: undefined,
        messages: msgs,
        nextCursor: "",
        cursor: "",
      },
    ]);
    expect(r.state.overlay).toMatchObject({ kind: "transcript", top: 2 });
    r = run(r.state, [esc]);
    expect(r.state.overlay).toMatchObject({ kind: "sessions", filter: "t", selected: 1 });
  });

  it("↓ in search results does not page the session list", () => {
    let r = run(fresh(), [
      ...type("/sessions"),
      enter,
      { type: "sessionsLoaded", items: [session("a", "A")], total: 60, offset: 0 },
    ]);
    r = run(r.state, [
      key("t"),
      { type: "searchLoaded", query: "t", hits: [hit("s1", "m1"), hit("s2", "m2")], total: 2 },
    ]);
    r = run(r.state, [key("", { downArrow: true })]);
    expect(r.effects).toEqual([]);
    expect(r.state.overlay).toMatchObject({ selected: 1, loading: false });
  });

  it("Esc in a transcript goes back to the list", () => {
    let r = run(fresh(), [
      ...type("/sessions"),
      enter,
      { type: "sessionsLoaded", items: [session("aaa", "Plans")], total: 1, offset: 0 },
      enter,
    ]);
    r = run(r.state, [esc]);
    expect(r.state.overlay).toMatchObject({ kind: "sessions" });
  });

  it("↓ past the last loaded session loads the next page", () => {
    let r = run(fresh(), [
      ...type("/sessions"),
      enter,
      { type: "sessionsLoaded", items: [session("a", "A"), session("b", "B")], total: 60, offset: 0 },
    ]);
    r = run(r.state, [key("", { downArrow: true })]);
    expect(r.effects).toEqual([{ type: "listSessions", filter: "", offset: 2 }]);
  });

  it("scrolling above the first message of a transcript loads the older page", () => {
    let r = run(fresh(), [
      ...type("/sessions"),
      enter,
      { type: "sessionsLoaded", items: [session("a", "A")], total: 1, offset: 0 },
      enter,
    ]);
    const msgs = [{ id: "m9", role: "user", content: "x", toolCalls: [] }] as never[];
    r = run(r.state, [
      {
        type: "historyLoaded",
        purpose: "transcript",
        sessionId: "a",
        session: undefined,
        messages: msgs,
        nextCursor: "cur-1",
        cursor: "",
      },
      key("", { upArrow: true }),
    ]);
    expect(r.effects).toEqual([{ type: "loadHistory", sessionId: "a", cursor: "cur-1", purpose: "transcript" }]);
  });
});

describe("connection", () => {
  it("losing the Engine shows a banner; messages typed meanwhile are sent on reconnect", () => {
    let r = run(fresh(), [{ type: "connection", state: "reconnecting", detail: "socket closed" }]);
    expect(r.state.banner).toMatchObject({ level: "warn", text: expect.stringContaining("reconnecting") });
    r = run(r.state, [...type("are you there"), enter]);
    expect(r.effects).toEqual([]);
    expect(r.state.outbox).toEqual(["are you there"]);
    r = run(r.state, [{ type: "connection", state: "connected" }]);
    expect(r.state.banner?.text).toContain("reconnected");
    expect(r.effects).toEqual([expect.objectContaining({ type: "send", text: "are you there" })]);
    expect(r.state.committed.filter((x) => x.kind === "user")).toHaveLength(1);
  });

  it("a stream that breaks mid-turn ends the turn with a one-line error", () => {
    const s = sent().state;
    const id = s.turn?.clientMessageId ?? "";
    const r = run(s, [{ type: "streamEnded", clientMessageId: id, error: "lost the Engine during this turn" }]);
    expect(r.state.turn).toBeUndefined();
    expect(r.state.banner).toMatchObject({ level: "error", text: "the turn failed: see the message above" });
    expect(
      r.state.committed.filter((x) => x.kind === "notice" && x.text === "lost the Engine during this turn"),
    ).toHaveLength(1);
  });

  it("an ERROR event is shown once: its message in the transcript, a banner pointing at it, never a stack trace", () => {
    const e = f();
    const r = run(sent().state, [ev(e.accepted()), ev(e.error("AGENT_CRASHED", "the agent restarted", true))]);
    const shown = [...r.state.committed.map((x) => ("text" in x ? x.text : "")), r.state.banner?.text ?? ""];
    expect(shown.filter((t) => t.includes("the agent restarted"))).toEqual([
      "the agent restarted (AGENT_CRASHED) · you can send your message again",
    ]);
    expect(r.state.banner?.text).toBe(
      "the turn failed (AGENT_CRASHED): see the message above · you can send your message again",
    );
    expect(r.state.turn).toBeUndefined();
  });

  it("resize re-lays out (new epoch, screen cleared)", () => {
    const r = run(fresh(), [{ type: "resize", columns: 60, rows: 20 }]);
    expect(r.state).toMatchObject({ columns: 60, rows: 20, epoch: 1 });
    expect(r.effects).toEqual([{ type: "clearScreen" }]);
  });
});

describe("sub-agents", () => {
  it("lifecycle events and their tokens and tool calls are tracked per agent", () => {
    const e = f();
    const r = run(sent().state, [
      ev(e.accepted()),
      ev(e.subAgent("spawned", "ada", "summarize the logs")),
      ev(e.token("looking", "ada")),
      ev(e.proposed("sc1", "files__read_file", { path: "log.txt" }, "ada")),
      ev(e.subAgent("progress", "ada", "summarize the logs", { llmCalls: 2, toolCalls: 1, elapsedMs: 1500 })),
      ev(
        e.subAgent("completed", "ada", "summarize the logs", {
          llmCalls: 3,
          toolCalls: 1,
          elapsedMs: 2500,
          result: "3 errors found",
        }),
      ),
    ]);
    expect(r.state.subAgents).toEqual([
      expect.objectContaining({
        name: "ada",
        state: "completed",
        llmCalls: 3,
        toolCalls: 1,
        elapsedMs: 2500,
        resultExcerpt: "3 errors found",
      }),
    ]);
    expect(r.state.subAgents[0]?.entries.map((x) => x.kind)).toEqual(["assistant", "tool"]);
    expect(r.state.live).toEqual([]);
  });
});
