// The Engine's view of its collaborators. Each is implemented by one adapter file in
// src/adapters/, so replacing an implementation touches one file.
import type { Deadline } from "@palisade/capabilities";
import type { ModelConfig } from "@palisade/config";
import type { Decision, ManifestPolicy, SessionMode } from "@palisade/shield";
import type { SearchHit } from "@palisade/store";

/** A session's mode, as the Shield reads it. */
export type Mode = SessionMode;
/** A tool's policy before its arguments are read; `ask` means escalate. */
export type Policy = ManifestPolicy;
/** The Shield's decision, spelled as the Shield spells it; the proto enum only at the gRPC edges. */
export type { Decision };

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export interface ArtifactInfo {
  artifactId: string;
  filename: string;
  mimeType: string;
  sizeBytes: number;
}

// ------------------------------------------------------------------ store

export interface SessionRecord {
  id: string;
  title: string;
  mode: Mode;
  workspace: string;
  /** The model the session runs with: chosen when it started, or the configured one recorded. */
  model: string;
  /** The model was asked for and stays; otherwise the session follows the configured model. */
  modelChosen?: boolean;
  createdAt: number;
  updatedAt: number;
  messageCount: number;
  usage: Usage;
}

export interface VerdictRecord {
  decision: Decision;
  tier: number;
  confidence: number;
  reason: string;
  ruleIds: string[];
  evaluationUs: number;
}

export interface ToolCallRecordRow {
  callId: string;
  toolName: string;
  argumentsJson: string;
  verdict?: VerdictRecord;
  /** How the approval was settled ("session": a session grant covered it); "" when none was asked. */
  approval: RecordedApproval;
  result: string;
  isError: boolean;
  durationMs: number;
  artifacts: ArtifactInfo[];
  startedAt: number;
  /** The provenance label the delivered result got (workspace, untrusted, secret); absent: none. */
  resultTrust?: string;
  /** How much of the turn's text had streamed when the call was proposed (0 when not known). */
  textOffset?: number;
}

export interface MessageRecord {
  id: string;
  sessionId: string;
  role: "user" | "assistant" | "system" | "tool";
  content: string;
  createdAt: number;
  toolCalls: ToolCallRecordRow[];
  usage?: Usage;
  seq: number;
}

/** A stored pipeline event: what clients saw, in order. */
export interface EventRecord {
  sessionId: string;
  messageId: string;
  seq: number;
  type: string;
  timestamp: number;
  payloadJson: string;
}

/** Everything one turn writes, in one transaction. */
export interface TurnCommit {
  session: SessionRecord;
  /** "completed", "error" or "cancelled". */
  status: "completed" | "error" | "cancelled";
  user: { id: string; content: string; createdAt: number };
  /** The reply; absent when the turn failed before one existed. */
  assistant?: { id: string; content: string; createdAt: number; usage: Usage };
  toolCalls: ToolCallRecordRow[];
  events: EventRecord[];
  /** New session title (first user message) when it had none. */
  title?: string;
  /**
   * Audit entries (any session's, in order) written in the turn's transaction; when the turn's
   * rows cannot be written they are written on their own before the commit fails: the tool calls
   * they record did run.
   */
  audit?: AuditEntry[];
}

/** One step of a tool call for the hash-chained audit trail. */
export interface AuditEntry {
  /** "proposal", "verdict", "approval" or "execution". */
  kind: string;
  sessionId: string;
  callId: string;
  /** Who acted: "agent", "shield", "user", "timeout", "engine", ... */
  actor: string;
  payload: Record<string, unknown>;
  ts: number;
}

export interface RetentionOutcome {
  deletedSessions: string[];
  bytesBefore: number;
  bytesAfter: number;
}

export type SessionSortKey = "updated_desc" | "updated_asc" | "created_desc" | "created_asc" | "title";

export interface SearchQuery {
  query: string;
  limit: number;
  offset: number;
  sessionId?: string;
  fromMs?: number;
  toMs?: number;
  role?: string;
  toolName?: string;
  decision?: Decision;
}

/** A search hit as the store finds it (a message, or a tool call: its tool; "" for message hits). */
export type SearchHitRecord = SearchHit;

// A sub-agent's run, as the store keeps it.
export type SubAgentState = "running" | "completed" | "failed" | "cancelled";

/** A finished run as it is stored: linked to the parent session and message. */
export interface StoredRun {
  id: string;
  sessionId: string;
  parentMessageId: string;
  /** The parent's user message, for when the turn stored no assistant message. */
  parentUserMessageId: string;
  name: string;
  task: string;
  state: SubAgentState;
  result: string;
  error: string;
  llmCalls: number;
  toolCalls: number;
  startedAt: number;
  endedAt: number;
  /** The task, follow-ups and the answer, in order. */
  transcript: { role: "user" | "assistant"; content: string; createdAt: number }[];
  /** Every tool call with its verdict, approval and result. */
  calls: ToolCallRecordRow[];
}

export interface RunSummary {
  name: string;
  task: string;
  state: SubAgentState;
  llmCalls: number;
  toolCalls: number;
  startedAt: number;
  endedAt: number;
  result: string;
  error: string;
}

export interface SubAgentRunStore {
  save(run: StoredRun): Promise<void>;
  list(sessionId: string): Promise<RunSummary[]>;
  close(): Promise<void>;
}

export interface EngineStore {
  createSession(session: SessionRecord): Promise<void>;
  getSession(id: string): Promise<SessionRecord | undefined>;
  listSessions(q: {
    limit: number;
    offset: number;
    sort: SessionSortKey;
    titleFilter?: string;
  }): Promise<{ sessions: SessionRecord[]; total: number }>;
  renameSession(id: string, title: string): Promise<SessionRecord | undefined>;
  /** Records the configured model a turn runs with, unless the session's model was chosen. */
  recordSessionModel(id: string, model: string): Promise<void>;
  /** Sets a generated title unless the user chose one; false when a user title wins. */
  setAutoTitle(id: string, title: string): Promise<boolean>;
  deleteSession(id: string): Promise<boolean>;
  /** Deletes sessions (and their artifact files) by age and database size. */
  applyRetention(q: { maxAgeDays?: number; maxBytes?: number }): Promise<RetentionOutcome>;
  /**
   * Appends to the hash-chained audit trail, in order, in one transaction. The rows are
   * committed before this returns (its synchronous part); the promise resolves once they are
   * durable, unless `sync` is false (the caller's next synced write carries them).
   */
  appendAudit(entries: AuditEntry[], opts?: { sync?: boolean }): Promise<void>;
  /**
   * Every message of the session, oldest first, with tool calls: the Agent's context. Records
   * handed out are never changed in place
   * (the Engine compares them with what it sent the Agent before): a change gives new records.
   */
  contextMessages(sessionId: string): Promise<MessageRecord[]>;
  /** Newest page first; `cursor` continues with older messages. Messages inside a page are oldest first. */
  history(
    sessionId: string,
    q: { limit: number; cursor?: string },
  ): Promise<{ messages: MessageRecord[]; nextCursor: string }>;
  commitTurn(turn: TurnCommit): Promise<void>;
  search(q: SearchQuery): Promise<{ hits: SearchHitRecord[]; total: number }>;
  exportSession(
    id: string,
    format: "md" | "json",
  ): Promise<{ content: string; filename: string; mimeType: string } | undefined>;
  countSessions(): Promise<number>;
  /** Tool calls recorded since `sinceMs`. */
  countToolCallsSince(sinceMs: number): Promise<number>;
  /** Highest event seq of the session (0 when none): seq continues across restarts. */
  lastEventSeq(sessionId: string): Promise<number>;
  saveMemory(entry: {
    sessionId: string;
    messageId: string;
    content: string;
    summary: string;
    compactedMessages: number;
  }): Promise<void>;
  /**
   * Memory facts and the latest compaction of a session: the summary replaces the oldest
   * `compactedMessages` context messages in what the Agent is sent.
   */
  memory(sessionId: string): Promise<{ facts: string[]; summary: string; compactedMessages: number }>;
  /** Where finished sub-agent runs go when they are kept in this store's database. */
  subAgentRuns?(): SubAgentRunStore;
  /** Where the history is kept, for status pages ("SQLite <file>", "PostgreSQL …"). */
  describe?(): string;
  /**
   * Several Engines on one database: takes the session for a turn, unless another Engine holds
   * its lease (then `owner` says which, where and until when). Absent: this Engine is the only one.
   */
  claimSession?(
    sessionId: string,
    turn: { userMessageId: string; content: string; createdAt: number },
  ): Promise<{ ok: true } | { ok: false; owner: string }>;
  /** The turn of a claimed session was committed: its lease runs out unless renewed. */
  finishTurn?(sessionId: string): Promise<void>;
  /** Which other Engine serves the session now ("" when none or this one). */
  sessionOwner?(sessionId: string): Promise<string>;
  /** Joins the Engines sharing the database, reachable at `address`; heartbeats from now on. */
  startLeases?(address: string): Promise<void>;
  /** Drops what it caches in memory for the session (it reads it back when needed). */
  forget?(sessionId: string): void;
  /** Sessions it caches in memory now. */
  cachedSessions?(): number;
  close(): Promise<void>;
}

// ------------------------------------------------------------------ shield

/** Content a session received, for provenance: the user's message or a tool's result. */
export interface ObservedContent {
  sessionId: string;
  kind: "user-message" | "tool-result";
  text: string;
  callId?: string;
  toolName?: string;
  capabilityId?: string;
  /** The tool is Palisade's own (ToolSpec.builtin): else its results are third-party content. */
  builtin?: boolean;
  argumentsJson?: string;
  toolSchema?: Record<string, unknown>;
  toolSemantics?: Record<string, unknown>;
  toolDescription?: string;
  workspace?: string;
  /** The Shield's credential detectors recognized what the call read. */
  credentialPath?: boolean;
  /** The label it got when it was delivered (a stored call replayed): kept, not computed again. */
  trust?: string;
}

export interface ShieldInput {
  callId: string;
  toolName: string;
  argumentsJson: string;
  sessionId: string;
  mode: Mode;
  /** "load_tools", or the tool's capability id. */
  capabilityId: string;
  manifestPolicy?: Policy;
  networkMode?: string;
  networkAllowlist?: string[];
  subAgentName?: string;
  /** The session's workspace (relative paths resolve against it). */
  workspace?: string;
  /** The tool's JSON Schema, declared semantics and description: what its arguments mean. */
  toolSchema?: Record<string, unknown>;
  toolSemantics?: Record<string, unknown>;
  toolDescription?: string;
}

/** A tool's semantics as shown to people (`capability list --json`) and used by the OTR gate. */
export interface ToolSemanticsView {
  /** mail, http, shell, file-read, file-write, ..., or other. */
  kind: string;
  /** declared (manifest, config entry, discovery or policy), inferred (from the JSON Schema), or none (unknown tool). */
  source: "declared" | "inferred" | "builtin" | "none";
  recipients: string[];
  hosts: string[];
  /** Argument → what the tool does with the path (read, write, delete, exec, unknown). */
  paths: Record<string, string>;
  commands: string[];
  /** Arguments whose content leaves the machine. */
  outgoing: string[];
  /** Arguments another model reads. */
  modelFacing: string[];
  method?: string;
  /** The tool writes, moves or deletes files (refused off the record). */
  writesFiles: boolean;
}

/** What "allow for this session" would cover for an action (see EngineShield.actionClass). */
export interface ActionClassInfo {
  /** Equal for two actions of the same class. */
  key: string;
  /** What the class covers, for the person deciding. */
  label: string;
  /** Set when no grant may cover the action (a destructive variant): why it is asked every time. */
  askEveryTime?: string;
}

export interface EngineShield {
  evaluate(input: ShieldInput, signal?: AbortSignal): Promise<VerdictRecord>;
  /** Labels content the session received; flow rules judge later calls by it. Returns the trust given. */
  observe?(content: ObservedContent): string;
  /** Whether the session's provenance is held (else it is rebuilt from the stored history). */
  knowsProvenance?(sessionId: string): boolean;
  /**
   * The class of an action "allow for this session" covers (same tool, program, options and
   * operands, path scope or host). Without it a grant covers only the identical call.
   */
  actionClass?(input: ShieldInput): ActionClassInfo;
  /**
   * What a tool's arguments mean as the Shield reads them (declared, inferred from the schema, or
   * built in). Throws when the declared block is invalid.
   */
  toolSemantics?(
    input: Pick<ShieldInput, "toolName" | "toolSchema" | "toolSemantics" | "toolDescription">,
  ): ToolSemanticsView;
  /** Tier-0 policy of a tool before looking at its arguments (used for OTR and ListTools). */
  effectivePolicy(toolName: string, manifestPolicy: Policy | undefined): Policy;
  /** The active policy on a tool: `effectivePolicy` and the rules that decide some of its calls otherwise. */
  toolPolicy?(
    toolName: string,
    manifestPolicy: Policy | undefined,
    kind: string | undefined,
  ): { policy: Policy; rules: { id: string; decision: Policy; description: string }[] };
  describe(): { state: string; policyName: string };
}

// ------------------------------------------------------------------ capabilities

export interface ToolSpec {
  /** `<capability>__<tool>`. */
  name: string;
  capabilityId: string;
  description: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
  policy?: Policy;
  terminalOnSuccess: boolean;
  /** Partial output is streamed (ACTION_PROGRESS); absent: called with a plain Invoke. */
  streaming?: boolean;
  networkMode?: string;
  networkAllowlist?: string[];
  /** What the arguments mean to the Shield (the manifest's `semantics:` block), when declared. */
  semantics?: Record<string, unknown>;
  /** Set by a host whose tool runs no program at all (load_tools): no repository check follows it. */
  runsNoPrograms?: boolean;
  /**
   * Served by Palisade itself: a built-in capability launched as shipped (not replaced in the
   * config by another command, address, image or MCP server), or a tool the Engine answers. Its
   * results are labelled by what the tool did; every other tool's are third-party content.
   */
  builtin?: boolean;
}

export interface ToolGroupInfo {
  name: string;
  description: string;
  toolCount: number;
  /** Set when the group's capability is down (failed, restarting, not ready): why, in the Engine's words. */
  down?: string;
}

export interface InvokeOutcome {
  ok: boolean;
  /** What the model sees (already rewritten: artifacts, truncation). */
  content: string;
  artifacts: ArtifactInfo[];
  /** `code: message` of a failure, as clients show it. */
  error?: string;
  /** The failure's code as the tool host gave it (`timeout`, `not_ready`, a tool's own). */
  errorCode?: string;
}

export interface CapabilityState {
  id: string;
  state: string;
  message: string;
  launch: string;
  toolCount: number;
  /** The sandbox a local process runs in (what it sees, how its limits were applied), or why none. */
  sandbox?: string;
  /** Local processes: started, starting or stopped (it starts on its next call). */
  process?: string;
  pid?: number;
  restarts?: number;
  /** The workspace its process is bound to. */
  workspace?: string;
  /** Processes started for sessions in other workspaces. */
  instances?: { workspace: string; state: string; process: string; pid?: number; message: string }[];
  /** MCP servers: the protocol revision in use. */
  protocol?: string;
  /** What its start noticed and worked around (tools left out, an OAuth credential not bound to an issuer). */
  warnings?: string[];
}

/** A tool call's approval as its record keeps it: the outcome, "session" for a grant, "" for none. */
export type RecordedApproval = ApprovalOutcome | "session" | "";

/** `unattended`: the client had no person to ask (no terminal); the call does not run. */
export type ApprovalOutcome = "allow_once" | "allow_session" | "deny" | "unattended" | "timeout" | "cancelled";
/** What a person (or a client without one) answers to an approval request. */
export type ApprovalChoice = "allow_once" | "allow_session" | "deny" | "unattended";

/** The user's answer to an elicitation form shown as an approval: the action, and with accept the form's values (JSON). */
export interface FormAnswer {
  action: "accept" | "decline" | "cancel";
  contentJson: string;
}

/** What an MCP server asks the user during a call (elicitation, form mode); the words are the server's. */
export interface ElicitQuestion {
  capabilityId: string;
  tool: string;
  message: string;
  requestedSchema: Record<string, unknown>;
}

export type ElicitAnswer =
  | { action: "accept"; content: Record<string, string | number | boolean | string[]> }
  | { action: "decline" }
  | { action: "cancel" };

export type ElicitHandler = (question: ElicitQuestion, signal: AbortSignal) => Promise<ElicitAnswer>;

export interface ToolHost {
  catalog(): ToolSpec[];
  groups(): ToolGroupInfo[];
  /** Full names, or bare names when unique. */
  resolve(name: string): { tool: ToolSpec } | { error: string };
  invoke(
    tool: ToolSpec,
    args: unknown,
    opts: {
      sessionId: string;
      workspace: string;
      signal: AbortSignal;
      onChunk?: (text: string) => void;
      elicit?: ElicitHandler;
      /** The Engine's tool time limit for the call: the host runs the call under it, arming none of its own. */
      deadline?: Deadline;
    },
  ): Promise<InvokeOutcome>;
  /**
   * Resolves once each group's capability has finished its first start (ready or failed), or
   * after its start timeout, or on `signal`: a group still starting when the Engine began to
   * serve. `onWait` hears the groups it waits for, before it does.
   */
  whenStarted?(groups: readonly string[], signal: AbortSignal, onWait?: (groups: string[]) => void): Promise<void>;
  /** `prompt.md` texts of the loaded groups. */
  prompts(groups: readonly string[]): string[];
  status(): CapabilityState[];
  artifact(
    sessionId: string,
    artifactId: string,
  ): Promise<{ info: ArtifactInfo; data: AsyncIterable<Uint8Array> } | undefined>;
  /** Deletes every artifact (bytes and metadata) the session owns; returns how many. */
  deleteSessionArtifacts?(sessionId: string): Promise<number>;
  close(): Promise<void>;
}

// ------------------------------------------------------------------ agent process

export interface AgentLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

export interface AgentLaunchRequest {
  engineAddress: string;
  /** Unix socket of the Engine's model gateway; `token` is the credential there too. */
  modelGateway: string;
  token: string;
  agentId: string;
  model: ModelConfig;
  /** limits.sessionIdleMs: the Agent keeps a conversation this long without a turn, as the Engine does. */
  sessionIdleMs?: number;
}

export type AgentLauncher = (request: AgentLaunchRequest) => AgentLaunch | Promise<AgentLaunch>;
