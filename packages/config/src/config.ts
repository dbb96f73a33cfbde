// Engine configuration: its shape, its defaults and environment overrides (config.yaml is read
// and validated in parse.ts).
import { createHash } from "node:crypto";
import { DEFAULT_CONTEXT_WINDOW, DEFAULT_MODEL_SETTINGS } from "@palisade/agent/settings";
import type { ModelSettings } from "@palisade/agent/settings";
import { DEFAULT_MODEL } from "./schema.js";

/** One capability entry as written in config.yaml; validated by the capability host. */
export type CapabilityEntry = { id: string; enabled?: boolean } & Record<string, unknown>;

/**
 * The `model:` section: where the model is, its key and name, and the settings that shape
 * requests, which the Agent receives as they are (ModelSettings, without `server`; the key never).
 */
export interface ModelConfig extends Omit<ModelSettings, "server"> {
  baseUrl?: string;
  apiKey?: string;
  name: string;
  contextWindow: number;
}

/** Where a model is and what it is called: all a one-off call (session titles) needs. */
export type ModelEndpoint = Pick<ModelConfig, "baseUrl" | "apiKey" | "name" | "contextWindow">;

export interface ShieldConfig {
  /** Name of a bundled policy ("default", "strict", ...). */
  policy: string;
  /** A policy YAML file; wins over `policy`. */
  policyFile?: string;
  llmJudge: { enabled: boolean; model?: string; baseUrl?: string; apiKey?: string };
}

export interface LimitsConfig {
  approvalTimeoutMs: number;
  agentRestartBudget: number;
  agentRestartWindowMs: number;
  agentReadyTimeoutMs: number;
  toolTimeoutMs: number;
  maxToolRounds: number;
  shutdownDeadlineMs: number;
  /** Largest ClientService request (default 1 MiB, at most the transport's 16 MiB). */
  clientMaxMessageBytes: number;
  /**
   * A local capability process without calls this long is stopped (it starts again on its next
   * call), and one is started on its first call. 0: they start with the Engine and keep running.
   */
  capabilityIdleStopMs: number;
  /**
   * How long a capability may take to start (a process to answer its health check, an MCP
   * server its handshake and tools/list) before the attempt counts as failed.
   */
  capabilityStartTimeoutMs: number;
  /** The Agent process is stopped after this long without turns (it starts again with the next one); 0: never. */
  agentIdleStopMs: number;
  /** A session idle this long has its in-memory state dropped (rebuilt from the store on its next turn). Not in the config file. */
  sessionIdleMs: number;
  subAgents: { maxConcurrent: number; maxLlmCalls: number; timeoutMs: number; maxDepth: number };
}

export interface ListenConfig {
  /** `unix:/path` (default `<dataDir>/engine.sock`) or loopback `127.0.0.1:<port>`. */
  unix?: string;
  tcp?: string;
}

export interface HistoryConfig {
  /** Name sessions with a small model call after their first turn (else: the first user message). */
  autoTitle: boolean;
  retention: {
    /** Delete sessions not updated for this many days. */
    maxAgeDays?: number;
    /** Delete the least recently updated sessions until the database holds at most this many bytes. */
    maxBytes?: number;
    /** How often retention runs after the start. */
    checkIntervalMs: number;
  };
}

/**
 * Config `store:` — the history in PostgreSQL instead of the data directory's SQLite file, e.g.
 * shared by several Engines. The password is never here: PGPASSWORD, ~/.pgpass or `password_file`.
 */
export interface StoreConfig {
  /** postgres://USER@HOST:PORT/DATABASE (or ?host=/socket/dir), without a password. */
  url: string;
  /** A file (0600) holding the password. */
  passwordFile?: string;
  tls?: { mode?: "disable" | "require" | "verify-full"; caFile?: string; certFile?: string; keyFile?: string };
  /** Connections in the pool (default 10). */
  pool: number;
  /** How long a session stays this Engine's after its last heartbeat (default 15 s). */
  leaseMs: number;
  /** This Engine's name in leases and status (default host:pid). */
  engineId?: string;
}

/** Tool sandboxes (bubblewrap): config `sandbox:`. */
export interface SandboxConfig {
  /** Refuse `filesystem: workspace` capabilities when no sandbox can be made (default true). */
  required: boolean;
  /** More paths never visible inside (absolute; `~` is the home). */
  hide: string[];
  readOnly: string[];
  writable: string[];
  /** Private addresses the egress proxy may dial anyway (e.g. an internal package mirror). */
  allowAddresses: string[];
}

export interface EngineConfig {
  model: ModelConfig;
  sandbox: SandboxConfig;
  history: HistoryConfig;
  /** Absent: SQLite in the data directory. */
  store?: StoreConfig;
  shield: ShieldConfig;
  capabilities: CapabilityEntry[];
  limits: LimitsConfig;
  listen: ListenConfig;
  agent: { name: string; allowUnsandboxed: boolean };
  /**
   * `sub_agents:` — whether a sub-agent's calls are covered by the "allow for this session" grants
   * its parent (the main agent, or the sub-agent that spawned it) got (default false: a sub-agent
   * asks again). A detector's escalation is asked whatever this says.
   */
  subAgents: { inheritGrants: boolean };
  /** Default workspace of new sessions (default: the Engine's working directory). */
  workspace?: string;
  /** The file the config was read from, if any. */
  source?: string;
  /** sha256 (hex) of that file's text, to tell later whether it was edited. */
  sourceSha256?: string;
}

export function defaultConfig(): EngineConfig {
  return {
    // The Agent's defaults for the settings it receives, so the two never disagree.
    model: { ...modelSettingsDefaults(), name: DEFAULT_MODEL, contextWindow: DEFAULT_CONTEXT_WINDOW },
    shield: { policy: "default", llmJudge: { enabled: false } },
    capabilities: [],
    limits: {
      approvalTimeoutMs: 300_000,
      agentRestartBudget: 5,
      agentRestartWindowMs: 60_000,
      agentReadyTimeoutMs: 15_000,
      toolTimeoutMs: 120_000,
      maxToolRounds: 25,
      shutdownDeadlineMs: 10_000,
      clientMaxMessageBytes: 1024 * 1024,
      capabilityIdleStopMs: 600_000,
      capabilityStartTimeoutMs: 30_000,
      sessionIdleMs: 300_000,
      agentIdleStopMs: 600_000,
      // Issue 8 defaults; max_depth 1 = sub-agents never get the `agents` group (no nesting).
      subAgents: { maxConcurrent: 10, maxLlmCalls: 20, timeoutMs: 900_000, maxDepth: 1 },
    },
    listen: {},
    agent: { name: "Palisade", allowUnsandboxed: false },
    subAgents: { inheritGrants: false },
    history: { autoTitle: true, retention: { checkIntervalMs: 3_600_000 } },
    sandbox: { required: true, hide: [], readOnly: [], writable: [], allowAddresses: [] },
  };
}

function modelSettingsDefaults(): Omit<ModelSettings, "server"> {
  const { server: _server, ...rest } = DEFAULT_MODEL_SETTINGS;
  return { ...rest, headers: {}, extraBody: {} };
}

/** A model is configured when it has somewhere to go: a base URL or an API key. */
export function isModelConfigured(model: ModelEndpoint): boolean {
  return Boolean(model.baseUrl || model.apiKey);
}

type Obj = Record<string, unknown>;

const UNITS: Record<string, number> = {
  "": 1,
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  tib: 1024 ** 4,
};

/** `1048576`, `"500MB"`, `"2 GiB"` → bytes; undefined when invalid or below 1 MiB. */
export function parseBytes(value: unknown): number | undefined {
  let n: number | undefined;
  if (typeof value === "number") n = value;
  else if (typeof value === "string") {
    const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(value);
    const unit = m ? UNITS[(m[2] ?? "").toLowerCase()] : undefined;
    if (m && unit !== undefined) n = Number(m[1]) * unit;
  }
  return n !== undefined && Number.isFinite(n) && n >= 1024 * 1024 ? Math.floor(n) : undefined;
}

/** True for `127.x.x.x:port`, `localhost:port` and `[::1]:port`. */
export function isLoopbackTcp(address: string): boolean {
  const m = /^(.*):(\d{1,5})$/.exec(address);
  if (!m) return false;
  const host = m[1] ?? "";
  return host === "localhost" || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** OPENAI_API_KEY, OPENAI_BASE_URL and PALISADE_MODEL win over the file. */
export function applyEnv(cfg: EngineConfig, env: NodeJS.ProcessEnv): EngineConfig {
  const model = { ...cfg.model };
  if (env.OPENAI_API_KEY) model.apiKey = env.OPENAI_API_KEY;
  if (env.OPENAI_BASE_URL) model.baseUrl = env.OPENAI_BASE_URL;
  if (env.PALISADE_MODEL) model.name = env.PALISADE_MODEL;
  return { ...cfg, model };
}

/**
 * Built-in capability entries with the user's entries merged over them by id:
 * fields of a user entry replace the default's (`config` objects are merged key by key),
 * `enabled: false` removes the capability, new ids are appended.
 */
export function mergeCapabilities(
  defaults: readonly CapabilityEntry[],
  user: readonly CapabilityEntry[],
): CapabilityEntry[] {
  const byId = new Map<string, CapabilityEntry>(defaults.map((d) => [d.id, { ...d }]));
  for (const entry of user) {
    const base = byId.get(entry.id);
    if (!base) {
      byId.set(entry.id, { ...entry });
      continue;
    }
    const merged: CapabilityEntry = { ...base, ...entry };
    if (isObj(base.config) && isObj(entry.config)) merged.config = { ...base.config, ...entry.config };
    // A user entry that names its own launch replaces the default one entirely (how it is
    // reached included: protocol, tls, insecure).
    for (const launch of ["command", "address", "image"]) {
      if (!(launch in entry)) continue;
      for (const other of ["command", "address", "image", "protocol", "tls", "insecure"])
        if (other !== launch && !(other in entry)) delete merged[other];
    }
    // An MCP server in place of a built-in keeps none of its Selu fields.
    if ("mcp" in entry)
      for (const selu of ["manifest", "command", "address", "image", "config", "credentials", "cwd", "env"])
        if (!(selu in entry)) delete merged[selu];
    byId.set(entry.id, merged);
  }
  return [...byId.values()].filter((e) => e.enabled !== false);
}

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
