import type { ChatMessage, SessionInfo } from "@palisade/protocol/types";
import type { PipelineEvent, SearchHit, StatusResponse, ToolInfo } from "@palisade/protocol/pipeline";
import type { FormAnswer, FormState } from "./form.js";
import type { Key } from "./key.js";
import type { Decision } from "@palisade/shield";
import type { ApprovalChoice } from "@palisade/shield/words";

export type ConnectionState = "connecting" | "connected" | "reconnecting" | "offline";
export type { ApprovalChoice, Decision };

export interface VerdictView {
  decision: Decision;
  tier: number;
  reason: string;
  confidence: number;
  ruleIds: string[];
}

export interface ArtifactView {
  id: string;
  filename: string;
  mimeType: string;
  sizeBytes: number;
}

export type ToolPhase =
  "proposed" | "awaiting-approval" | "running" | "done" | "failed" | "blocked" | "denied" | "otr-blocked" | "cancelled";

export interface ToolCardEntry {
  kind: "tool";
  id: string;
  callId: string;
  toolName: string;
  argumentsJson: string;
  subAgent?: string | undefined;
  phase: ToolPhase;
  verdict?: VerdictView | undefined;
  approval?: { choice: ApprovalChoice; by: string } | undefined;
  /** Tail of streamed progress output. */
  progress: string;
  summary?: string | undefined;
  resultSummary?: string | undefined;
  error?: string | undefined;
  durationMs?: number | undefined;
  artifacts: ArtifactView[];
  /** What the call changes (a file write's diff), from the Engine. */
  preview?: string | undefined;
}

export interface UserEntry {
  kind: "user";
  id: string;
  text: string;
}

export interface AssistantEntry {
  kind: "assistant";
  id: string;
  text: string;
  streaming: boolean;
  /** A later part of a long answer whose first part was already printed. */
  continuation: boolean;
  subAgent?: string | undefined;
  /** The tokens of the turn this answer ended (shown under it). */
  usage?: { input: number; output: number } | undefined;
}

export interface NoticeEntry {
  kind: "notice";
  id: string;
  level: "info" | "warn" | "error";
  text: string;
}

/** The model's reasoning, shown dimmed as it streams (servers that send `reasoning_content`). */
export interface ThoughtEntry {
  kind: "thought";
  id: string;
  text: string;
  streaming: boolean;
}

export type Entry = UserEntry | AssistantEntry | ToolCardEntry | NoticeEntry | ThoughtEntry;

export interface PendingApproval {
  approvalId: string;
  sessionId: string;
  callId: string;
  toolName: string;
  argumentsJson: string;
  reason: string;
  tier: number;
  ruleIds: string[];
  deadlineMs: number;
  subAgent?: string | undefined;
  /** What "allow for this session" covers, as the Engine's Shield defines it. */
  grantScope: string;
  /** What the call would change (a file write's diff), from the Engine. */
  preview: string;
  /** An MCP server's elicitation form, answered in place of allow/deny. */
  form?: FormState | undefined;
}

export interface SubAgentView {
  name: string;
  task: string;
  state: "running" | "completed" | "failed" | "cancelled";
  llmCalls: number;
  toolCalls: number;
  elapsedMs: number;
  /** The chat's clock when `elapsedMs` was reported: a running agent's time counts on from there. */
  elapsedAt?: number | undefined;
  resultExcerpt: string;
  error: string;
  /** What it said and did, for its transcript view. */
  entries: Entry[];
}

export interface Turn {
  /** client_message_id until MESSAGE_ACCEPTED, then the Engine's message id. */
  messageId: string;
  clientMessageId: string;
  startedAt: number;
  cancelling: boolean;
  /** The main agent streamed text in this turn. */
  sawText: boolean;
  /** What the input box held when it was sent (text with paste placeholders), given back if the Engine refuses it. */
  sent?: { text: string; pastes: Readonly<Record<string, string>> | undefined } | undefined;
}

/**
 * Ctrl+R: search the prompts sent before, newest first, as shells do. Typing narrows the
 * search, Ctrl+R again finds an older match, Enter or an arrow key takes the match into the
 * input box to edit (nothing is sent), Esc or Ctrl+G gives the draft back.
 */
export interface HistorySearch {
  query: string;
  /** Index in history of the match shown, or undefined when nothing matches. */
  match: number | undefined;
  /** The input box's text before the search. */
  draft: string;
}

export interface EditorState {
  text: string;
  cursor: number;
  history: string[];
  /** Index into history while browsing it (null: editing the draft). */
  historyIndex: number | null;
  draft: string;
  completions: string[];
  /** Large pastes shown as placeholders in `text`: placeholder → the pasted text. */
  pastes?: Readonly<Record<string, string>> | undefined;
  /** The placeholder of the paste just made, while nothing else was typed (more chunks of it may follow). */
  lastPaste?: string | undefined;
  /** Number of the last paste placeholder. */
  pasteSeq?: number | undefined;
  /** Ctrl+R: searching the prompts sent before. */
  search?: HistorySearch | undefined;
}

export interface SessionsOverlay {
  kind: "sessions";
  /** Empty: `items` lists the sessions. Text: `hits` are the SearchSessions results for it. */
  filter: string;
  items: SessionInfo[];
  total: number;
  /** Search hits for `filter`, grouped by session (a session's hits are adjacent, best session first). */
  hits: SearchHit[];
  hitTotal: number;
  /** Index into `items` (empty filter) or `hits` (search). */
  selected: number;
  loading: boolean;
}

/** A transcript's messages rendered to lines at one width (see overlays/transcript-layout.tsx). */
export interface TranscriptLayout {
  width: number;
  /** How many messages were laid out. */
  count: number;
  /** Every rendered line of the loaded messages, oldest first (ANSI styles closed per line). */
  lines: string[];
  /** Index in `lines` of each message's first line (a message with no lines starts where the next one does). */
  starts: number[];
}

export interface TranscriptOverlay {
  kind: "transcript";
  session: SessionInfo | undefined;
  sessionId: string;
  messages: ChatMessage[];
  nextCursor: string;
  /** Scroll position: the message at the top of the window and how many of its lines are above it. */
  top: number;
  offset: number;
  layout?: TranscriptLayout | undefined;
  loading: boolean;
  /** Message to scroll to once loaded (from a search hit). */
  focusMessageId?: string | undefined;
  /** Where Esc goes back to (the sessions list or search results). */
  parent?: Overlay | undefined;
}

export interface SearchOverlay {
  kind: "search";
  query: string;
  hits: SearchHit[];
  total: number;
  selected: number;
  loading: boolean;
}

export interface InfoOverlay {
  kind: "help" | "status" | "tools" | "agents" | "inspector";
  selected: number;
  status?: StatusResponse | undefined;
  /** Whether the Engine's config file exists (read when the status was). */
  configPresent?: boolean | undefined;
  tools?: ToolInfo[] | undefined;
  loading: boolean;
  /** agents: the selected agent's transcript is shown. */
  expanded?: boolean | undefined;
}

export interface ConfirmOverlay {
  kind: "confirm";
  question: string;
  effect: Effect;
}

export type Overlay = SessionsOverlay | TranscriptOverlay | SearchOverlay | InfoOverlay | ConfirmOverlay;

export interface Banner {
  level: "info" | "warn" | "error";
  text: string;
  /** Hide after this time (ms since epoch); undefined: until replaced. */
  until?: number | undefined;
}

export interface ChatState {
  now: number;
  columns: number;
  rows: number;
  connection: ConnectionState;
  model: string;
  /** The model the user picked with /model for the next messages ("" = Engine default). */
  modelOverride: string;
  demo: boolean;
  sessionId: string | undefined;
  sessionTitle: string;
  otr: boolean;
  tokens: { input: number; output: number };
  /** Printed once and kept (ink Static). */
  committed: Entry[];
  /** The current turn's entries, still changing. */
  live: Entry[];
  turn: Turn | undefined;
  approvals: PendingApproval[];
  /** The reason being typed for denying the first approval (`r`); undefined when not typing one. */
  denyReason?: string | undefined;
  subAgents: SubAgentView[];
  editor: EditorState;
  overlay: Overlay | undefined;
  banner: Banner | undefined;
  /** The running Engine started with another setup than this chat's environment and config: what differs and how to restart it. */
  engineNotice: string[] | undefined;
  /** Time of the first Ctrl+C; a second one within 2 s exits. */
  ctrlCArmedAt: number | undefined;
  /** Bumped to re-print the committed transcript (resize, /clear). */
  epoch: number;
  /** Messages typed while disconnected, sent on reconnect. */
  outbox: string[];
  /** What the Engine cannot offer now and why (no tool sandbox, capabilities down), from its status. */
  unavailable: string[];
  /** The Engine's largest request (learned from a refusal; its default until then). */
  messageLimitBytes: number;
  nextId: number;
  exiting: boolean;
}

/** Side effects the shell performs for the reducer. Results come back as actions. */
export type Effect =
  | {
      type: "send";
      text: string;
      display: string;
      clientMessageId: string;
      sessionId: string | undefined;
      otr: boolean;
      model: string;
    }
  | { type: "cancel"; sessionId: string; messageId: string }
  | {
      type: "resolveApproval";
      approvalId: string;
      sessionId: string;
      choice: ApprovalChoice;
      reason?: string | undefined;
      /** The answer to an elicitation form. */
      form?: FormAnswer | undefined;
    }
  | { type: "listSessions"; filter: string; offset: number }
  | { type: "loadHistory"; sessionId: string; cursor: string; purpose: "transcript" | "resume" }
  | { type: "resolvePrefix"; prefix: string }
  | { type: "search"; query: string; debounceMs?: number | undefined }
  | { type: "loadStatus" }
  | { type: "loadTools" }
  | { type: "listModels" }
  | { type: "loadAgents" }
  | { type: "export"; sessionId: string; format: "md" | "json"; file: string | undefined }
  | { type: "deleteSession"; sessionId: string }
  | { type: "saveArtifact"; sessionId: string; artifactId: string; dir: string | undefined }
  | { type: "restartEngine" }
  | { type: "clearScreen" }
  | { type: "exit" };

export type Action =
  | { type: "key"; key: Key }
  | { type: "event"; event: PipelineEvent }
  | { type: "streamEnded"; clientMessageId: string; error?: string | undefined }
  /** The Engine refused the message for its size (RESOURCE_EXHAUSTED); its limit when it said it. */
  | { type: "tooLarge"; clientMessageId: string; bytes: number; limitBytes: number | undefined }
  /** What became of an @file mention of the message being sent. */
  | { type: "mention"; clientMessageId: string; note: string }
  | { type: "tick"; now: number }
  | { type: "resize"; columns: number; rows: number }
  | { type: "connection"; state: ConnectionState; detail?: string | undefined }
  /** `configPresent`: whether the config file the Engine names exists now (a missing one is not "unchanged"). */
  | { type: "status"; status: StatusResponse; configPresent: boolean }
  | { type: "sessionsLoaded"; items: SessionInfo[]; total: number; offset: number }
  | {
      type: "historyLoaded";
      purpose: "transcript" | "resume";
      sessionId: string;
      session: SessionInfo | undefined;
      messages: ChatMessage[];
      nextCursor: string;
      cursor: string;
    }
  | { type: "prefixResolved"; sessionId: string }
  | { type: "searchLoaded"; query: string; hits: SearchHit[]; total: number }
  | { type: "toolsLoaded"; tools: ToolInfo[] }
  | { type: "modelsLoaded"; models: string[]; configured: string; answered: boolean; error: string; baseUrl: string }
  | { type: "agentsLoaded"; agents: SubAgentView[] }
  | { type: "sessionDeleted"; sessionId: string }
  | { type: "exported"; file: string; bytes: number }
  | { type: "artifactSaved"; file: string }
  | { type: "failed"; what: string; message: string }
  | { type: "engineNotice"; lines: string[] | undefined }
  | { type: "engineRestarted"; summary: string }
  | { type: "submit"; text: string };

export interface Update {
  state: ChatState;
  effects: Effect[];
}
