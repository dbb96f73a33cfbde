// Engine configuration: YAML file + environment overrides, validated with every problem reported.
import { createHash } from "node:crypto";
import { statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { isIP } from "node:net";
import { homedir } from "node:os";
import { isAbsolute, resolve, dirname } from "node:path";
import { parseDocument } from "yaml";
import { DEFAULT_MODEL_SETTINGS } from "@palisade/agent/settings";
import type { ModelSettings } from "@palisade/agent/settings";
// The URL check only: the store itself (better-sqlite3, pg) stays out of what imports the config.
import { parsePgUrl } from "@palisade/store/pg-url";
import { ConfigError } from "./errors.js";
import { configSemanticsProblems } from "./semantics-check.js";
import type { ConfigIssue } from "./errors.js";

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

export const DEFAULT_MODEL = "gpt-4o-mini";

export function defaultConfig(): EngineConfig {
  return {
    // The Agent's defaults for the settings it receives, so the two never disagree.
    model: { ...modelSettingsDefaults(), name: DEFAULT_MODEL, contextWindow: 128_000 },
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

class Reader {
  readonly issues: ConfigIssue[] = [];
  constructor(private readonly file: string) {}

  fail(path: string, message: string): void {
    this.issues.push({ file: this.file, path, message });
  }

  object(value: unknown, path: string, allowed: readonly string[]): Obj | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "object" || Array.isArray(value)) {
      this.fail(path, `must be a mapping, got ${describe(value)}`);
      return undefined;
    }
    const obj = value as Obj;
    for (const key of Object.keys(obj)) {
      if (!allowed.includes(key)) this.fail(join(path, key), `unknown key; allowed here: ${allowed.join(", ")}`);
    }
    return obj;
  }

  string(obj: Obj | undefined, key: string, path: string): string | undefined {
    const v = obj?.[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "string") {
      this.fail(join(path, key), `must be a string, got ${describe(v)}`);
      return undefined;
    }
    return v;
  }

  bool(obj: Obj | undefined, key: string, path: string): boolean | undefined {
    const v = obj?.[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "boolean") {
      this.fail(join(path, key), `must be true or false, got ${describe(v)}`);
      return undefined;
    }
    return v;
  }

  /** A positive number; `scale` converts seconds to milliseconds. */
  number(
    obj: Obj | undefined,
    key: string,
    path: string,
    opts: { min?: number; integer?: boolean; scale?: number } = {},
  ): number | undefined {
    const v = obj?.[key];
    if (v === undefined || v === null) return undefined;
    const min = opts.min ?? 0;
    if (typeof v !== "number" || !Number.isFinite(v) || v < min || (opts.integer && !Number.isInteger(v))) {
      this.fail(join(path, key), `must be ${opts.integer ? "an integer" : "a number"} >= ${min}, got ${describe(v)}`);
      return undefined;
    }
    return v * (opts.scale ?? 1);
  }
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "string") return JSON.stringify(v.length > 40 ? v.slice(0, 40) + "…" : v);
  if (typeof v === "number" || typeof v === "boolean") return `${typeof v} ${v}`;
  return typeof v === "object" ? "a mapping" : typeof v;
}

const TOP = [
  "model",
  "shield",
  "capabilities",
  "limits",
  "listen",
  "agent",
  "sub_agents",
  "workspace",
  "history",
  "store",
  "sandbox",
] as const;

export interface ParseOptions {
  /** File name used in messages and to resolve relative paths. */
  file?: string;
  env?: NodeJS.ProcessEnv;
}

/** Parses and validates config text. Throws ConfigError listing every problem. */
export function parseConfig(text: string, options: ParseOptions = {}): EngineConfig {
  const file = options.file ?? "<config>";
  const baseDir = options.file ? dirname(options.file) : process.cwd();
  const doc = parseDocument(text, { prettyErrors: true });
  if (doc.errors.length > 0) {
    throw new ConfigError(
      doc.errors.map((e) => ({
        file,
        path: `line ${e.linePos?.[0]?.line ?? "?"}`,
        message: e.message.split("\n")[0] ?? e.message,
      })),
    );
  }
  const r = new Reader(file);
  const cfg = defaultConfig();
  if (options.file) {
    cfg.source = options.file;
    cfg.sourceSha256 = sha256Hex(text);
  }
  const root = r.object(doc.toJS() ?? {}, "", TOP) ?? {};

  const model = r.object(root.model, "model", [
    "base_url",
    "api_key",
    "name",
    "context_window",
    "headers",
    "extra_body",
    "idle_timeout_s",
    "request_timeout_s",
    "max_retries",
    "max_retry_wait_s",
    "text_tool_calls",
    "stream_usage",
  ]);
  const baseUrl = r.string(model, "base_url", "model");
  if (baseUrl !== undefined) {
    if (!/^https?:\/\//.test(baseUrl))
      r.fail("model.base_url", `must start with http:// or https://, got ${JSON.stringify(baseUrl)}`);
    cfg.model.baseUrl = baseUrl;
  }
  const apiKey = r.string(model, "api_key", "model");
  if (apiKey) cfg.model.apiKey = apiKey;
  cfg.model.name = r.string(model, "name", "model") ?? cfg.model.name;
  cfg.model.contextWindow =
    r.number(model, "context_window", "model", { min: 1024, integer: true }) ?? cfg.model.contextWindow;
  readModelExtras(r, model, cfg.model);

  const shield = r.object(root.shield, "shield", ["policy", "policy_file", "llm_judge"]);
  cfg.shield.policy = r.string(shield, "policy", "shield") ?? cfg.shield.policy;
  const policyFile = r.string(shield, "policy_file", "shield");
  if (policyFile) cfg.shield.policyFile = isAbsolute(policyFile) ? policyFile : resolve(baseDir, policyFile);
  const judge = r.object(shield?.llm_judge, "shield.llm_judge", ["enabled", "model", "base_url", "api_key"]);
  cfg.shield.llmJudge = {
    enabled: r.bool(judge, "enabled", "shield.llm_judge") ?? false,
    ...optional("model", r.string(judge, "model", "shield.llm_judge")),
    ...optional("baseUrl", r.string(judge, "base_url", "shield.llm_judge")),
    ...optional("apiKey", r.string(judge, "api_key", "shield.llm_judge")),
  };

  cfg.capabilities = readCapabilities(r, root.capabilities);

  const limits = r.object(root.limits, "limits", [
    "approval_timeout_s",
    "agent_restart_budget",
    "agent_restart_window_s",
    "agent_ready_timeout_s",
    "tool_timeout_s",
    "max_tool_rounds",
    "shutdown_deadline_s",
    "sub_agents",
    "client_max_message",
    "capability_idle_stop_s",
    "capability_start_timeout_s",
    "agent_idle_stop_s",
  ]);
  const L = cfg.limits;
  const sec = { scale: 1000 };
  L.approvalTimeoutMs = r.number(limits, "approval_timeout_s", "limits", sec) ?? L.approvalTimeoutMs;
  L.agentRestartBudget = r.number(limits, "agent_restart_budget", "limits", { integer: true }) ?? L.agentRestartBudget;
  L.agentRestartWindowMs = r.number(limits, "agent_restart_window_s", "limits", sec) ?? L.agentRestartWindowMs;
  L.agentReadyTimeoutMs = r.number(limits, "agent_ready_timeout_s", "limits", sec) ?? L.agentReadyTimeoutMs;
  L.toolTimeoutMs = r.number(limits, "tool_timeout_s", "limits", sec) ?? L.toolTimeoutMs;
  L.maxToolRounds = r.number(limits, "max_tool_rounds", "limits", { min: 1, integer: true }) ?? L.maxToolRounds;
  L.shutdownDeadlineMs = r.number(limits, "shutdown_deadline_s", "limits", sec) ?? L.shutdownDeadlineMs;
  L.capabilityIdleStopMs =
    r.number(limits, "capability_idle_stop_s", "limits", { ...sec, min: 0 }) ?? L.capabilityIdleStopMs;
  L.capabilityStartTimeoutMs =
    r.number(limits, "capability_start_timeout_s", "limits", sec) ?? L.capabilityStartTimeoutMs;
  L.agentIdleStopMs = r.number(limits, "agent_idle_stop_s", "limits", { ...sec, min: 0 }) ?? L.agentIdleStopMs;
  const clientMax = limits?.client_max_message;
  if (clientMax !== undefined && clientMax !== null) {
    const bytes = parseBytes(clientMax);
    if (bytes === undefined || bytes > 16 * 1024 * 1024)
      r.fail(
        "limits.client_max_message",
        `must be a size from 1MiB to 16MiB (the transport's limit), like 4MiB, got ${describe(clientMax)}`,
      );
    else L.clientMaxMessageBytes = bytes;
  }
  const sub = r.object(limits?.sub_agents, "limits.sub_agents", [
    "max_concurrent",
    "max_llm_calls",
    "timeout_s",
    "max_depth",
  ]);
  L.subAgents.maxConcurrent =
    r.number(sub, "max_concurrent", "limits.sub_agents", { integer: true }) ?? L.subAgents.maxConcurrent;
  L.subAgents.maxLlmCalls =
    r.number(sub, "max_llm_calls", "limits.sub_agents", { min: 1, integer: true }) ?? L.subAgents.maxLlmCalls;
  L.subAgents.timeoutMs = r.number(sub, "timeout_s", "limits.sub_agents", sec) ?? L.subAgents.timeoutMs;
  L.subAgents.maxDepth =
    r.number(sub, "max_depth", "limits.sub_agents", { min: 1, integer: true }) ?? L.subAgents.maxDepth;

  const listen = r.object(root.listen, "listen", ["unix", "tcp"]);
  const unix = r.string(listen, "unix", "listen");
  const tcp = r.string(listen, "tcp", "listen");
  if (unix && tcp) r.fail("listen", "set either unix or tcp, not both");
  if (unix) cfg.listen.unix = unix.startsWith("unix:") ? unix : `unix:${resolve(baseDir, unix)}`;
  if (tcp) {
    if (!isLoopbackTcp(tcp))
      r.fail("listen.tcp", `must be a loopback address like 127.0.0.1:7420 or [::1]:7420, got ${JSON.stringify(tcp)}`);
    cfg.listen.tcp = tcp;
  }

  const agent = r.object(root.agent, "agent", ["name", "allow_unsandboxed"]);
  cfg.agent.name = r.string(agent, "name", "agent") ?? cfg.agent.name;
  cfg.agent.allowUnsandboxed = r.bool(agent, "allow_unsandboxed", "agent") ?? false;
  const subs = r.object(root.sub_agents, "sub_agents", ["inherit_grants"]);
  cfg.subAgents.inheritGrants = r.bool(subs, "inherit_grants", "sub_agents") ?? false;

  readHistory(r, root.history, cfg.history);
  readStore(r, root.store, cfg, baseDir);
  readSandbox(r, root.sandbox, cfg.sandbox, baseDir);

  const workspace = r.string(root, "workspace", "");
  if (workspace) {
    cfg.workspace = resolve(baseDir, workspace);
    if (!isDirectory(cfg.workspace))
      r.fail("workspace", `${cfg.workspace} does not exist or is not a directory: create it or fix the path`);
  }

  if (r.issues.length > 0) throw new ConfigError(r.issues);
  return applyEnv(cfg, options.env ?? process.env);
}

/** Headers the SDK sets itself. */
const RESERVED_HEADERS = new Set(["content-type", "content-length", "host", "accept"]);
/** Headers that carry credentials: headers travel with the model settings, credentials never do. */
const CREDENTIAL_HEADERS = new Set(["authorization", "proxy-authorization", "api-key", "x-api-key", "cookie"]);
/** Keys of the request body Palisade sets; extra_body must not replace them. */
const RESERVED_BODY = new Set(["model", "messages", "stream", "tools"]);

function readModelExtras(r: Reader, model: Obj | undefined, out: ModelConfig): void {
  const rawHeaders = model?.headers;
  if (rawHeaders !== undefined && rawHeaders !== null && !isObj(rawHeaders))
    r.fail("model.headers", `must be a mapping of header names to values, got ${describe(rawHeaders)}`);
  const headers = isObj(rawHeaders) ? rawHeaders : {};
  for (const [name, value] of Object.entries(headers)) {
    const path = `model.headers.${name}`;
    if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) r.fail(path, "is not a valid HTTP header name");
    else if (RESERVED_HEADERS.has(name.toLowerCase())) r.fail(path, "is set by Palisade itself");
    else if (CREDENTIAL_HEADERS.has(name.toLowerCase()))
      r.fail(
        path,
        "would carry a credential; the key goes in model.api_key (or OPENAI_API_KEY), which only the request's sender sees",
      );
    else if (typeof value !== "string" && typeof value !== "number")
      r.fail(path, `must be a string, got ${describe(value)}`);
    else if (/[\r\n]/.test(String(value))) r.fail(path, "must not contain line breaks");
    else out.headers[name] = String(value);
  }
  const extra = model?.extra_body;
  if (extra !== undefined && extra !== null) {
    if (!isObj(extra))
      r.fail("model.extra_body", `must be a mapping (e.g. options: {num_ctx: 32768}), got ${describe(extra)}`);
    else {
      for (const key of Object.keys(extra))
        if (RESERVED_BODY.has(key))
          r.fail(`model.extra_body.${key}`, "is set by Palisade itself and cannot be overridden");
      out.extraBody = extra;
    }
  }
  const sec = { min: 1, scale: 1000 };
  out.idleTimeoutMs = r.number(model, "idle_timeout_s", "model", sec) ?? out.idleTimeoutMs;
  out.requestTimeoutMs = r.number(model, "request_timeout_s", "model", sec) ?? out.requestTimeoutMs;
  out.maxRetries = r.number(model, "max_retries", "model", { integer: true }) ?? out.maxRetries;
  out.maxRetryWaitMs = r.number(model, "max_retry_wait_s", "model", { scale: 1000 }) ?? out.maxRetryWaitMs;
  const choice = <T extends string>(
    key: string,
    allowed: readonly T[],
    bools: Record<"true" | "false", T>,
  ): T | undefined => {
    const v = model?.[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v === "boolean") return bools[v ? "true" : "false"];
    if (typeof v === "string" && (allowed as readonly string[]).includes(v)) return v as T;
    r.fail(`model.${key}`, `must be ${allowed.join(", ")}, got ${describe(v)}`);
    return undefined;
  };
  out.textToolCalls =
    choice("text_tool_calls", ["auto", "off"] as const, { true: "auto", false: "off" }) ?? out.textToolCalls;
  out.streamUsage =
    choice("stream_usage", ["auto", "on", "off"] as const, { true: "on", false: "off" }) ?? out.streamUsage;
}

function readHistory(r: Reader, value: unknown, out: HistoryConfig): void {
  const history = r.object(value, "history", ["auto_title", "retention"]);
  out.autoTitle = r.bool(history, "auto_title", "history") ?? out.autoTitle;
  const ret = r.object(history?.retention, "history.retention", ["max_age_days", "max_bytes", "check_interval_s"]);
  const maxAgeDays = r.number(ret, "max_age_days", "history.retention", { min: 1 });
  if (maxAgeDays !== undefined) out.retention.maxAgeDays = maxAgeDays;
  const maxBytes = ret?.max_bytes;
  if (maxBytes !== undefined && maxBytes !== null) {
    const bytes = parseBytes(maxBytes);
    if (bytes === undefined)
      r.fail(
        "history.retention.max_bytes",
        `must be a size like 500MB, 2GB or a number of bytes >= 1048576, got ${describe(maxBytes)}`,
      );
    else out.retention.maxBytes = bytes;
  }
  out.retention.checkIntervalMs =
    r.number(ret, "check_interval_s", "history.retention", { min: 1, scale: 1000 }) ?? out.retention.checkIntervalMs;
}

function readStore(r: Reader, value: unknown, cfg: EngineConfig, baseDir: string): void {
  const store = r.object(value, "store", ["url", "password_file", "tls", "pool", "lease_s", "engine_id"]);
  if (store === undefined) return;
  const url = r.string(store, "url", "store");
  if (url === undefined)
    return r.fail(
      "store.url",
      "is required: postgres://USER@HOST:PORT/DATABASE (remove store: to keep the history in SQLite)",
    );
  try {
    parsePgUrl(url);
  } catch (err) {
    return r.fail("store.url", (err as Error).message.replace(/^store\.url /, ""));
  }
  const tls = r.object(store.tls, "store.tls", ["mode", "ca_file", "cert_file", "key_file"]);
  const mode = r.string(tls, "mode", "store.tls");
  if (mode !== undefined && !["disable", "require", "verify-full"].includes(mode))
    r.fail("store.tls.mode", `must be disable, require or verify-full, got ${JSON.stringify(mode)}`);
  const file = (obj: Record<string, unknown> | undefined, key: string, path: string): string | undefined => {
    const f = r.string(obj, key, path);
    return f === undefined ? undefined : resolve(baseDir, f);
  };
  const passwordFile = file(store, "password_file", "store");
  const caFile = file(tls, "ca_file", "store.tls");
  const certFile = file(tls, "cert_file", "store.tls");
  const keyFile = file(tls, "key_file", "store.tls");
  const engineId = r.string(store, "engine_id", "store");
  cfg.store = {
    url,
    pool: r.number(store, "pool", "store", { min: 1, integer: true }) ?? 10,
    leaseMs: r.number(store, "lease_s", "store", { min: 1, scale: 1000 }) ?? 15_000,
    ...(passwordFile !== undefined ? { passwordFile } : {}),
    ...(engineId ? { engineId } : {}),
    ...(tls !== undefined
      ? {
          tls: {
            ...(mode ? { mode: mode as "disable" } : {}),
            ...(caFile ? { caFile } : {}),
            ...(certFile ? { certFile } : {}),
            ...(keyFile ? { keyFile } : {}),
          },
        }
      : {}),
  };
}

function readSandbox(r: Reader, value: unknown, out: SandboxConfig, baseDir: string): void {
  const sb = r.object(value, "sandbox", ["required", "hide", "read_only", "writable", "allow_addresses"]);
  out.required = r.bool(sb, "required", "sandbox") ?? out.required;
  const list = (key: string, paths: boolean): string[] => {
    const v = sb?.[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v) || v.some((x) => typeof x !== "string" || x === "")) {
      r.fail(`sandbox.${key}`, `must be a list of ${paths ? "paths" : "IP addresses"}, got ${describe(v)}`);
      return [];
    }
    const home = (x: string): string =>
      x === "~" ? homedir() : x.startsWith("~/") ? resolve(homedir(), x.slice(2)) : resolve(baseDir, x);
    return (v as string[]).map((x) => (paths ? home(x) : x));
  };
  out.hide = list("hide", true);
  out.readOnly = list("read_only", true);
  out.writable = list("writable", true);
  out.allowAddresses = list("allow_addresses", false);
  out.allowAddresses.forEach((a, i) => {
    if (isIP(a) === 0)
      r.fail(
        `sandbox.allow_addresses[${i}]`,
        `must be an IP address (the proxy checks addresses after DNS), got ${JSON.stringify(a)}`,
      );
  });
}

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

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

function readCapabilities(r: Reader, value: unknown): CapabilityEntry[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    r.fail("capabilities", `must be a list of capability entries, got ${describe(value)}`);
    return [];
  }
  const out: CapabilityEntry[] = [];
  const seen = new Set<string>();
  value.forEach((item: unknown, i) => {
    const path = `capabilities[${i}]`;
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      r.fail(path, `must be a mapping with at least an id, got ${describe(item)}`);
      return;
    }
    const entry = item as Obj;
    if (typeof entry.id !== "string" || !/^[a-z][a-z0-9_-]*$/.test(entry.id)) {
      r.fail(`${path}.id`, "must be a lowercase identifier like files or my-tool");
      return;
    }
    if (seen.has(entry.id)) r.fail(`${path}.id`, `duplicate capability id ${JSON.stringify(entry.id)}`);
    seen.add(entry.id);
    if (entry.enabled !== undefined && typeof entry.enabled !== "boolean")
      r.fail(`${path}.enabled`, "must be true or false");
    for (const p of configSemanticsProblems(entry.semantics, `${path}.semantics`)) r.fail(p.path, p.message);
    out.push(entry as CapabilityEntry);
  });
  return out;
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

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** Reads the config file; a missing file means defaults (plus environment). */
export async function loadConfig(path: string, env: NodeJS.ProcessEnv = process.env): Promise<EngineConfig> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return applyEnv(defaultConfig(), env);
    throw new ConfigError([{ file: path, path: "", message: `cannot read: ${(err as Error).message}` }]);
  }
  return parseConfig(text, { file: path, env });
}
