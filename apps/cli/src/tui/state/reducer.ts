import { commit, editKey, emptyEditor, insert, setText } from "./editor.js";
import { unavailableLines } from "./unavailable.js";
import { searchKey, startSearch } from "./history-search.js";
import { TRANSPORT_LIMIT_BYTES, continuesPaste, expandPastes, textLimit, tooLargeText } from "./paste.js";
import { CANCELLING, applyEvent, failedBanner, notice, settle, subAgentEnded, updateCard } from "./events.js";
import { completeSlash, parseSlash, unknownCommandMessage } from "./commands.js";
import { groupHitsBySession, openTranscript, overlayKey, resumeSession, sessionsQuery, toolCards } from "./overlays.js";
import { firstLine, layoutFor, positionOf, transcriptViewport } from "../overlays/transcript-layout.js";
import { formKey } from "./form.js";
import type { FormAnswer } from "./form.js";
import type { Key } from "./key.js";
import type { Action, ApprovalChoice, ChatState, Effect, Update } from "./types.js";

export const EXIT_WINDOW_MS = 2000;

export interface InitialOptions {
  now: number;
  columns: number;
  rows: number;
  model?: string;
  demo?: boolean;
  otr?: boolean;
  history?: string[];
  connection?: ChatState["connection"];
  engineNotice?: string[] | undefined;
}

export function initialState(o: InitialOptions): ChatState {
  return {
    now: o.now,
    columns: o.columns,
    rows: o.rows,
    connection: o.connection ?? "connecting",
    model: o.model ?? "",
    modelOverride: "",
    demo: o.demo ?? false,
    sessionId: undefined,
    sessionTitle: "",
    otr: o.otr ?? false,
    tokens: { input: 0, output: 0 },
    committed: [],
    live: [],
    turn: undefined,
    approvals: [],
    subAgents: [],
    editor: emptyEditor(o.history ?? []),
    overlay: undefined,
    banner: undefined,
    engineNotice: o.engineNotice,
    ctrlCArmedAt: undefined,
    epoch: 0,
    outbox: [],
    messageLimitBytes: TRANSPORT_LIMIT_BYTES,
    unavailable: [],
    nextId: 1,
    exiting: false,
  };
}

const done = (state: ChatState, effects: Effect[] = []): Update => ({ state, effects });

function banner(s: ChatState, level: "info" | "warn" | "error", text: string, ttlMs?: number): ChatState {
  return { ...s, banner: { level, text, until: ttlMs === undefined ? undefined : s.now + ttlMs } };
}

/**
 * Sends a user message (or keeps it for later when the Engine is away). `text` is what the input
 * box showed (large pastes as placeholders), which the transcript shows too; the Engine gets the
 * pasted text in their place.
 */
function sendMessage(s: ChatState, text: string, pastes?: Readonly<Record<string, string>>): Update {
  const full = expandPastes(text, pastes);
  if (s.connection !== "connected") {
    const st = notice(
      { ...s, outbox: [...s.outbox, full] },
      "warn",
      "not connected: your message will be sent when the Engine is back",
    );
    return done({
      ...st,
      committed: [...st.committed, { kind: "user", id: `u${st.nextId}`, text }],
      nextId: st.nextId + 1,
    });
  }
  const clientMessageId = `c${s.now.toString(36)}-${s.nextId}`;
  const st: ChatState = {
    ...s,
    committed: [...s.committed, { kind: "user", id: `u${s.nextId}`, text }],
    live: [],
    subAgents: s.subAgents.filter((a) => a.state === "running"),
    turn: {
      messageId: clientMessageId,
      clientMessageId,
      startedAt: s.now,
      cancelling: false,
      sawText: false,
      sent: { text, pastes },
    },
    nextId: s.nextId + 1,
    banner: s.banner?.level === "error" ? undefined : s.banner,
  };
  return done(st, [
    {
      type: "send",
      text: full,
      display: text,
      clientMessageId,
      sessionId: s.sessionId,
      otr: s.otr,
      model: s.modelOverride,
    },
  ]);
}

function newSession(s: ChatState, otr: boolean): ChatState {
  const st: ChatState = {
    ...s,
    sessionId: undefined,
    sessionTitle: "",
    otr,
    tokens: { input: 0, output: 0 },
    subAgents: [],
  };
  return notice(
    st,
    otr ? "warn" : "info",
    otr ? "off the record: nothing of this session is stored; /otr again to leave" : "new session",
  );
}

function runSlash(s: ChatState, text: string): Update {
  const cmd = parseSlash(text);
  if (!cmd) return sendMessage(s, text);
  const needSession = (what: string): Update | undefined =>
    s.sessionId
      ? undefined
      : done(banner(s, "warn", `${what} needs a stored session: send a message first, or /resume one`, 5000));
  switch (cmd.name) {
    case "help":
      return done({ ...s, overlay: { kind: "help", selected: 0, loading: false } });
    case "new":
      return done(newSession(s, false));
    case "otr":
      return done(newSession(s, !s.otr));
    case "sessions":
      return done(
        {
          ...s,
          overlay: {
            kind: "sessions",
            filter: cmd.rest,
            items: [],
            total: 0,
            hits: [],
            hitTotal: 0,
            selected: 0,
            loading: true,
          },
        },
        [sessionsQuery(cmd.rest, 0)],
      );
    case "resume":
      // Without an id: pick one from the list (Enter opens it, r resumes it).
      if (!cmd.args[0])
        return done(
          {
            ...s,
            overlay: {
              kind: "sessions",
              filter: "",
              items: [],
              total: 0,
              hits: [],
              hitTotal: 0,
              selected: 0,
              loading: true,
            },
          },
          [sessionsQuery("", 0)],
        );
      return done(s, [{ type: "resolvePrefix", prefix: cmd.args[0] }]);
    case "search":
      if (!cmd.rest) return done(banner(s, "warn", "usage: /search <words>", 5000));
      return done(
        { ...s, overlay: { kind: "search", query: cmd.rest, hits: [], total: 0, selected: 0, loading: true } },
        [{ type: "search", query: cmd.rest }],
      );
    case "model":
      if (!cmd.args[0])
        return done(
          notice(
            s,
            "info",
            `model: ${s.modelOverride || s.model || "the Engine's default"}${s.modelOverride ? " (chosen with /model)" : ""}`,
          ),
        );
      return done(notice({ ...s, modelOverride: cmd.args[0] }, "info", `next messages use model ${cmd.args[0]}`));
    case "models":
      return done(notice(s, "info", "asking the model endpoint for its models…"), [{ type: "listModels" }]);
    case "status":
      return done({ ...s, overlay: { kind: "status", selected: 0, loading: true } }, [{ type: "loadStatus" }]);
    case "tools":
      return done({ ...s, overlay: { kind: "tools", selected: 0, loading: true } }, [{ type: "loadTools" }]);
    case "agents":
      return done({ ...s, overlay: { kind: "agents", selected: 0, loading: true } }, [{ type: "loadAgents" }]);
    case "export": {
      const blocked = needSession("/export");
      if (blocked) return blocked;
      const [a, b] = cmd.args;
      const format = a === "json" || a === "md" ? a : "md";
      const file = a === "json" || a === "md" ? b : a;
      return done(s, [{ type: "export", sessionId: s.sessionId as string, format, file }]);
    }
    case "save": {
      const blocked = needSession("/save");
      if (blocked) return blocked;
      const artifacts = [...s.committed, ...s.live].flatMap((e) => (e.kind === "tool" ? e.artifacts : []));
      const [first, second] = cmd.args;
      const named = first?.startsWith("art_") ? artifacts.filter((a) => a.id.startsWith(first)) : undefined;
      const chosen = named ? (named.length === 1 ? named[0] : undefined) : artifacts.at(-1);
      if (!chosen) {
        const why =
          artifacts.length === 0
            ? "no tool of this session has made a file yet"
            : named?.length
              ? `'${first ?? ""}' matches ${named.length} artifacts: type more of the id`
              : `no artifact '${first ?? ""}' in this session`;
        return done(banner(s, "warn", `/save: ${why}`, 6000));
      }
      const dir = named ? second : first;
      return done(notice(s, "info", `saving ${chosen.filename}…`), [
        { type: "saveArtifact", sessionId: s.sessionId as string, artifactId: chosen.id, dir },
      ]);
    }
    case "delete": {
      const blocked = needSession("/delete");
      if (blocked) return blocked;
      const question = `Delete “${s.sessionTitle || s.sessionId}” with its messages and artifacts? y/n`;
      return done({
        ...s,
        overlay: { kind: "confirm", question, effect: { type: "deleteSession", sessionId: s.sessionId as string } },
      });
    }
    case "clear":
      return done({ ...s, committed: [], epoch: s.epoch + 1 }, [{ type: "clearScreen" }]);
    case "restart":
      if (s.turn) return done(banner(s, "warn", "a turn is running: wait for it (or Esc), then /restart", 6000));
      return done(banner(s, "info", "restarting the Engine with this chat's config and environment…"), [
        { type: "restartEngine" },
      ]);
    case "quit":
    case "exit":
      return done({ ...s, exiting: true }, [{ type: "exit" }]);
    default:
      return done(banner(s, "warn", unknownCommandMessage(cmd.name), 8000));
  }
}

/** What /models shows: the endpoint's models, the one in use marked, or why there is no list. */
function modelsText(s: ChatState, m: Extract<Action, { type: "modelsLoaded" }>): string {
  const using = s.modelOverride || s.model || m.configured;
  if (!m.answered) return `/models: ${m.error} · the chat uses ${using}`;
  if (m.models.length === 0) return `${m.baseUrl} lists no models · the chat uses ${using}`;
  const lines = m.models.map((id) => `  ${id === using ? "●" : " "} ${id}`);
  const missing = m.models.includes(using) ? "" : `\n  the chat uses ${using}, which ${m.baseUrl} does not list`;
  return `Models of ${m.baseUrl} (${String(m.models.length)}; /model NAME uses one):\n${lines.join("\n")}${missing}`;
}

function submit(s: ChatState): Update {
  const text = s.editor.text;
  if (!text.trim())
    return done(
      s.turn
        ? banner(
            s,
            "info",
            // one line of an 80-column terminal, as the next one
            "a turn is running: Esc cancels it; meanwhile you can type your next message",
            5000,
          )
        : s,
    );
  if (s.turn && !text.trim().startsWith("/")) {
    return done(banner(s, "warn", "a turn is running: your text is kept for when it ends; Esc cancels the turn", 5000));
  }
  if (text.trim().startsWith("/")) return runSlash({ ...s, editor: commit(s.editor) }, text.trim());
  // Too large for the Engine: refused here, the text stays in the input box.
  const bytes = Buffer.byteLength(expandPastes(text, s.editor.pastes));
  if (bytes > textLimit(s.messageLimitBytes))
    return done(banner(s, "error", tooLargeText(bytes, s.messageLimitBytes), 15_000));
  return sendMessage({ ...s, editor: commit(s.editor) }, text, s.editor.pastes);
}

/** An elicitation form's answer: accept allows with the values, decline and cancel deny. */
function answerForm(s: ChatState, answer: FormAnswer): Update {
  const [first, ...rest] = s.approvals;
  if (!first) return done(s);
  const choice: ApprovalChoice = answer.action === "accept" ? "allow_once" : "deny";
  const st = updateCard({ ...s, approvals: rest }, first.callId, first.subAgent, first.toolName, (c) => ({
    ...c,
    approval: { choice, by: "you" },
  }));
  return done(st, [
    { type: "resolveApproval", approvalId: first.approvalId, sessionId: first.sessionId, choice, form: answer },
  ]);
}

function answerApproval(s: ChatState, choice: ApprovalChoice, reason?: string): Update {
  const [first, ...rest] = s.approvals;
  if (!first) return done(s);
  // Show the answer on the card at once; APPROVAL_RESOLVED (if the Engine sends it) confirms it.
  const st = updateCard({ ...s, approvals: rest }, first.callId, first.subAgent, first.toolName, (c) => ({
    ...c,
    approval: { choice, by: "you" },
    phase: choice === "deny" ? "denied" : "proposed",
  }));
  return done({ ...st, denyReason: undefined }, [
    {
      type: "resolveApproval",
      approvalId: first.approvalId,
      sessionId: first.sessionId,
      choice,
      ...(reason ? { reason } : {}),
    },
  ]);
}

function cancelTurn(s: ChatState): Update {
  if (!s.turn || s.turn.cancelling) return done(s);
  const st = banner({ ...s, turn: { ...s.turn, cancelling: true } }, "info", CANCELLING, 3000);
  return done(st, s.sessionId ? [{ type: "cancel", sessionId: s.sessionId, messageId: s.turn.messageId }] : []);
}

function ctrlC(s: ChatState): Update {
  if (s.ctrlCArmedAt !== undefined && s.now - s.ctrlCArmedAt < EXIT_WINDOW_MS)
    return done({ ...s, exiting: true }, [{ type: "exit" }]);
  const armed = banner({ ...s, ctrlCArmedAt: s.now }, "info", "press Ctrl+C again to exit", EXIT_WINDOW_MS);
  if (s.turn) return cancelTurn(armed);
  if (s.overlay) return done({ ...armed, overlay: undefined });
  return done({ ...armed, editor: { ...emptyEditor(s.editor.history) } });
}

/**
 * A key the approval card does not take, while it waits: text typed or pasted meanwhile (more
 * than one character at once, so never an answer) is kept in the input box; any other key says
 * what the card takes. Nothing is dropped without a word.
 */
function approvalWaits(s: ChatState, key: Key): Update {
  if (key.ctrl || key.meta || !key.input) return done(s);
  const answers = "an approval is waiting (y allow once · a this session · n deny · r deny with a reason)";
  const text = key.input.replace(/[\r\n]+$/, "");
  if (key.input.length > 1 && text)
    return done(
      banner({ ...s, editor: insert(s.editor, text) }, "info", `${answers}; what you typed is kept below`, 6000),
    );
  return done(banner(s, "info", `${answers}; other keys wait for the answer`, 6000));
}

function handleKey(s: ChatState, key: Key): Update {
  if (key.ctrl && key.input === "c") return ctrlC(s);
  const st = s.ctrlCArmedAt === undefined ? s : { ...s, ctrlCArmedAt: undefined };
  if (st.overlay) return overlayKey(st, st.overlay, key);
  const form = st.approvals[0]?.form;
  if (form) {
    // An MCP server's form: every key is the form's (Esc cancels it, not the turn).
    const r = formKey(form, key);
    if (r.answer) return answerForm(st, r.answer);
    const [first, ...rest] = st.approvals;
    return done(first ? { ...st, approvals: [{ ...first, form: r.form }, ...rest] } : st);
  }
  if (st.approvals.length > 0 && st.denyReason !== undefined) {
    // Typing why the call is denied (the model is told): Enter denies with it, Esc goes back.
    if (key.return) return answerApproval(st, "deny", st.denyReason.trim());
    // Text and Enter in one chunk (pasted, or sent by a script): type it, then deny.
    if (key.input.length > 1 && /^[^\r\n]+[\r\n]$/.test(key.input))
      return answerApproval(st, "deny", (st.denyReason + key.input.slice(0, -1)).trim().slice(0, 500));
    if (key.escape) return done({ ...st, denyReason: undefined });
    if (key.backspace || key.delete) return done({ ...st, denyReason: st.denyReason.slice(0, -1) });
    if (key.input && !key.ctrl && !key.meta && !key.tab && !key.upArrow && !key.downArrow)
      return done({ ...st, denyReason: (st.denyReason + key.input).replace(/[\r\n]+/g, " ").slice(0, 500) });
    return done(st);
  }
  if (st.approvals.length > 0) {
    if (key.input === "r") return done({ ...st, denyReason: "" });
    if (key.input === "y") return answerApproval(st, "allow_once");
    if (key.input === "a") return answerApproval(st, "allow_session");
    if (key.input === "n" || key.input === "d") return answerApproval(st, "deny");
    if (!key.escape) return approvalWaits(st, key);
  }
  // Ctrl+R searches past prompts; while it does, every key is the search's.
  if (st.editor.search) return done({ ...st, editor: searchKey(st.editor, key) });
  if (key.ctrl && key.input === "r") return done({ ...st, editor: startSearch(st.editor) });
  if (key.escape) {
    if (st.turn) return cancelTurn(st);
    if (st.editor.completions.length) return done({ ...st, editor: { ...st.editor, completions: [] } });
    return done({ ...st, banner: undefined });
  }
  if (key.ctrl && key.input === "o")
    return done({
      ...st,
      overlay: { kind: "inspector", selected: Math.max(0, toolCards(st).length - 1), loading: false },
    });
  if (key.ctrl && key.input === "d" && st.editor.text === "") return done({ ...st, exiting: true }, [{ type: "exit" }]);
  if (key.ctrl && key.input === "l") return done({ ...st, epoch: st.epoch + 1 }, [{ type: "clearScreen" }]);
  if (key.tab) {
    const { text, candidates } = completeSlash(st.editor.text);
    return done({ ...st, editor: { ...setText(st.editor, text), completions: candidates } });
  }
  // Text and Enter in one chunk (fast typists, scripts, tmux send-keys): type it, then send.
  // A multi-line paste has newlines inside and is inserted as it is, as is the last chunk of a large one.
  if (
    !key.return &&
    key.input.length > 1 &&
    /^[^\r\n]+[\r\n]$/.test(key.input) &&
    !continuesPaste(st.editor, key.input)
  ) {
    return handleKey({ ...st, editor: insert(st.editor, key.input.slice(0, -1)) }, { input: "\r", return: true });
  }
  if (key.return && !key.meta) {
    if (st.editor.text.slice(0, st.editor.cursor).endsWith("\\")) {
      const e = st.editor;
      return done({
        ...st,
        editor: insert(
          { ...e, text: e.text.slice(0, e.cursor - 1) + e.text.slice(e.cursor), cursor: e.cursor - 1 },
          "\n",
        ),
      });
    }
    return submit(st);
  }
  const edited = editKey(st.editor, key);
  return edited ? done({ ...st, editor: edited }) : done(st);
}

/** The chat's pure core: (state, action) → new state and the effects to perform. */
export function update(s: ChatState, action: Action): Update {
  switch (action.type) {
    case "key":
      return handleKey(s, action.key);
    case "submit":
      return runSlash(s, action.text);
    case "event":
      return done(applyEvent(s, action.event));
    case "streamEnded": {
      if (!s.turn || s.turn.clientMessageId !== action.clientMessageId) return done(s);
      const text = action.error ?? "the Engine ended the turn without an answer";
      const st = notice(s, action.error ? "error" : "warn", text);
      return done(
        settle({
          ...st,
          live: [],
          committed: [...st.committed, ...st.live],
          turn: undefined,
          banner: { level: "error", text: failedBanner(undefined, false) },
        }),
      );
    }
    case "tooLarge": {
      if (!s.turn || s.turn.clientMessageId !== action.clientMessageId) return done(s);
      const limit = action.limitBytes ?? s.messageLimitBytes;
      const sent = s.turn.sent;
      const st = notice({ ...s, messageLimitBytes: limit }, "error", tooLargeText(action.bytes, limit));
      const editor =
        sent && st.editor.text === ""
          ? { ...st.editor, text: sent.text, cursor: sent.text.length, pastes: sent.pastes }
          : st.editor;
      return done({ ...st, live: [], committed: [...st.committed, ...st.live], turn: undefined, editor });
    }
    case "mention":
      if (s.turn?.clientMessageId !== action.clientMessageId) return done(s);
      return done(notice(s, action.note.startsWith("attached") ? "info" : "warn", action.note));
    case "tick": {
      const expired = s.banner?.until !== undefined && s.banner.until <= action.now;
      const approvals = s.approvals.filter((a) => a.deadlineMs === 0 || a.deadlineMs + 5000 > action.now);
      return done({ ...s, now: action.now, banner: expired ? undefined : s.banner, approvals });
    }
    case "resize": {
      if (action.columns === s.columns && action.rows === s.rows) return done(s);
      const o =
        s.overlay?.kind === "transcript"
          ? { ...s.overlay, layout: layoutFor(s.overlay.messages, s.overlay.layout, action.columns, action.rows) }
          : s.overlay;
      return done({ ...s, columns: action.columns, rows: action.rows, epoch: s.epoch + 1, overlay: o }, [
        { type: "clearScreen" },
      ]);
    }
    case "connection": {
      const was = s.connection;
      let st: ChatState = { ...s, connection: action.state };
      if (action.state === "reconnecting" && was === "connected") {
        st = banner(
          st,
          "warn",
          `lost the Engine${action.detail ? `: ${action.detail}` : ""}; reconnecting… (what you type is kept)`,
        );
      } else if (action.state === "connected" && (was === "reconnecting" || was === "offline")) {
        st = banner(st, "info", "reconnected to the Engine", 5000);
      } else if (action.state === "offline") {
        st = banner(
          st,
          "error",
          `the Engine is gone${action.detail ? ` (${action.detail})` : ""}; start it with 'palisade engine start'`,
        );
      }
      if (action.state === "connected" && st.outbox.length > 0 && !st.turn) {
        const [next, ...rest] = st.outbox;
        const sent = sendMessage({ ...st, outbox: rest }, next as string);
        // The message is already on screen from when it was typed.
        return done({ ...sent.state, committed: sent.state.committed.slice(0, -1) }, sent.effects);
      }
      return done(st);
    }
    case "engineNotice":
      return done({ ...s, engineNotice: action.lines });
    case "engineRestarted":
      return done(
        notice(
          s.banner?.text.startsWith("restarting the Engine") ? { ...s, banner: undefined } : s,
          "info",
          action.summary,
        ),
      );
    case "status": {
      const o =
        s.overlay?.kind === "status"
          ? {
              ...s.overlay,
              status: action.status,
              configPresent: action.configPresent,
              loading: false,
            }
          : s.overlay;
      const unavailable = unavailableLines(action.status);
      const st: ChatState = { ...s, model: action.status.model || s.model, overlay: o, unavailable };
      // Said in the transcript when it is first seen and whenever it changes (not on every heartbeat).
      const changed = unavailable.join("\n") !== s.unavailable.join("\n");
      return done(
        changed && unavailable.length > 0
          ? notice(
              st,
              "warn",
              `Some tools cannot be used now:\n${unavailable.map((l) => `  ${l}`).join("\n")}\n/tools lists what can.`,
            )
          : st,
      );
    }
    case "sessionsLoaded": {
      if (s.overlay?.kind !== "sessions" || s.overlay.filter !== "") return done(s);
      const items = action.offset === 0 ? action.items : [...s.overlay.items, ...action.items];
      return done({ ...s, overlay: { ...s.overlay, items, total: action.total, loading: false } });
    }
    case "historyLoaded": {
      if (action.purpose === "resume") {
        return done(
          resumeSession(s, { sessionId: action.sessionId, session: action.session, messages: action.messages }),
          [{ type: "clearScreen" }],
        );
      }
      const o = s.overlay;
      if (o?.kind !== "transcript" || o.sessionId !== action.sessionId) return done(s);
      const messages = action.cursor === "" ? action.messages : [...action.messages, ...o.messages];
      const view = transcriptViewport(s.columns, s.rows);
      const layout = layoutFor(messages, undefined, s.columns, s.rows);
      // A first page opens at its end; an older page keeps what was shown and moves up one line (the key that asked for it).
      let line =
        action.cursor === ""
          ? layout.lines.length
          : firstLine(layout, o.top + action.messages.length, o.offset, view.height) - 1;
      const effects: Effect[] = [];
      let focusMessageId = o.focusMessageId;
      if (focusMessageId) {
        const i = messages.findIndex((m) => m.id === focusMessageId);
        if (i >= 0) {
          line = layout.starts[i] ?? 0;
          focusMessageId = undefined;
        } else if (action.nextCursor)
          effects.push({
            type: "loadHistory",
            sessionId: o.sessionId,
            cursor: action.nextCursor,
            purpose: "transcript",
          });
      }
      line = Math.max(0, Math.min(line, layout.lines.length - view.height));
      return done(
        {
          ...s,
          overlay: {
            ...o,
            messages,
            layout,
            ...positionOf(layout, line),
            focusMessageId,
            nextCursor: action.nextCursor,
            session: action.session ?? o.session,
            loading: effects.length > 0,
          },
        },
        effects,
      );
    }
    case "prefixResolved":
      return done(s, [{ type: "loadHistory", sessionId: action.sessionId, cursor: "", purpose: "resume" }]);
    case "searchLoaded": {
      const o = s.overlay;
      // Answers for an older query (typed past, or debounced away) are dropped.
      if (o?.kind === "search" && o.query === action.query)
        return done({ ...s, overlay: { ...o, hits: action.hits, total: action.total, loading: false } });
      if (o?.kind === "sessions" && o.filter === action.query) {
        return done({
          ...s,
          overlay: { ...o, hits: groupHitsBySession(action.hits), hitTotal: action.total, selected: 0, loading: false },
        });
      }
      return done(s);
    }
    case "modelsLoaded":
      return done(notice(s, action.answered ? "info" : "warn", modelsText(s, action)));
    case "toolsLoaded":
      if (s.overlay?.kind !== "tools") return done(s);
      return done({ ...s, overlay: { ...s.overlay, tools: action.tools, loading: false } });
    case "agentsLoaded": {
      const known = new Map(s.subAgents.map((a) => [a.name, a]));
      const merged = action.agents.map((a) => ({
        ...a,
        elapsedAt: s.now,
        entries: known.get(a.name)?.entries ?? a.entries,
      }));
      const extra = s.subAgents.filter((a) => !action.agents.some((b) => b.name === a.name));
      const o = s.overlay?.kind === "agents" ? { ...s.overlay, loading: false } : s.overlay;
      let st: ChatState = { ...s, subAgents: [...extra, ...merged], overlay: o };
      // A background sub-agent that ended between turns says so in the transcript too.
      for (const a of merged) {
        if (known.get(a.name)?.state === "running" && a.state !== "running")
          st = notice(st, a.state === "completed" ? "info" : "warn", subAgentEnded(a));
      }
      return done(st);
    }
    case "sessionDeleted": {
      const st = action.sessionId === s.sessionId ? newSession(s, false) : s;
      return done(banner(st, "info", `deleted session ${action.sessionId.slice(0, 8)}`, 5000));
    }
    case "artifactSaved":
      return done(notice(s, "info", `saved ${action.file}`));
    case "exported":
      return done(notice(s, "info", `exported to ${action.file} (${action.bytes} bytes)`));
    case "failed": {
      const o = s.overlay && "loading" in s.overlay ? { ...s.overlay, loading: false } : s.overlay;
      return done(banner({ ...s, overlay: o }, "error", `${action.what}: ${action.message}`, 10_000));
    }
  }
}

export { openTranscript };
