// config.yaml to EngineConfig: the YAML read with positions, checked against the schema
// (schema.ts, compiled ahead of time), then the checks a schema cannot make, then converted
// (seconds to milliseconds, paths resolved). Every problem of the file is reported at once.
import { statSync } from "node:fs";
import { open } from "node:fs/promises";
import { isIP } from "node:net";
import { homedir } from "node:os";
import { dirname, isAbsolute, resolve } from "node:path";
import { describeValue, dropNulls, pathOf, readYaml, schemaProblems, syntaxProblems } from "@palisade/schema";
import type { DataPath, ValidateFunction, YamlFile } from "@palisade/schema";
// The URL check only: the store itself (better-sqlite3, pg) stays out of what imports the config.
import { parsePgUrl } from "@palisade/store/pg-url";
import { applyEnv, defaultConfig, isLoopbackTcp, parseBytes, sha256Hex } from "./config.js";
import type { CapabilityEntry, EngineConfig } from "./config.js";
import { ConfigError } from "./errors.js";
import { assertPrivatePath } from "./private-path.js";
import type { ConfigIssue } from "./errors.js";
import { validateConfig as generated } from "./schema.generated.js";
import { configSchema } from "./schema.js";
import { configSemanticsProblems } from "./semantics-check.js";

const validate = generated as unknown as ValidateFunction;

export interface ParseOptions {
  /** File name used in messages and to resolve relative paths. */
  file?: string;
  env?: NodeJS.ProcessEnv;
  /** The file's mode (st_mode): a file others can read must not hold an API key. */
  fileMode?: number;
}

/** Keys that hold a secret: only in a file no other user can read. */
const SECRET_KEYS: readonly DataPath[] = [
  ["model", "api_key"],
  ["shield", "llm_judge", "api_key"],
];

type Obj = Record<string, unknown>;

/** Parses and validates config text. Throws ConfigError listing every problem. */
export function parseConfig(text: string, options: ParseOptions = {}): EngineConfig {
  const file = options.file ?? "<config>";
  const baseDir = options.file ? dirname(options.file) : process.cwd();
  const yaml = readYaml(text);
  if (yaml.errors.length > 0) throw new ConfigError(syntaxProblems(file, yaml.errors));
  const raw = dropNulls(yaml.data ?? {}, configSchema);
  const issues: ConfigIssue[] = [];
  if (!validate(raw))
    issues.push(...schemaProblems(validate.errors, { locate: yaml.locate }).map((p) => ({ file, ...p })));
  const add = (at: DataPath, message: string, key = false): void => {
    issues.push({ file, path: pathOf(at), message, ...yaml.locate(at, key) });
  };
  if (isObj(raw)) beyondSchema(raw, { add, push: (p) => issues.push({ file, ...p }), locate: yaml.locate }, baseDir);
  if (isObj(raw) && options.fileMode !== undefined && (options.fileMode & 0o044) !== 0)
    for (const at of SECRET_KEYS) {
      const value = at.reduce<unknown>((o, k) => obj(o)[k], raw);
      if (typeof value === "string" && value !== "")
        add(
          at,
          `is a secret in a file other users can read (mode ${(options.fileMode & 0o777).toString(8)}); chmod 600 ${file}, or use OPENAI_API_KEY`,
        );
    }
  // In file order (stable: the problems of one line keep the schema's order); unplaced ones last.
  if (issues.length > 0) throw new ConfigError(issues.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity)));
  const cfg = build(raw as Obj, baseDir);
  if (options.file) {
    cfg.source = options.file;
    cfg.sourceSha256 = sha256Hex(text);
  }
  return applyEnv(cfg, options.env ?? process.env);
}

/**
 * Reads the config file; a missing file means defaults (plus environment). The file, the
 * directories above it and the policy file it names must be provably the user's (a
 * PrivatePathError says which is not and how to fix it): another user who could swap the file
 * could point the model at their server, and the API key with it.
 */
export async function loadConfig(path: string, env: NodeJS.ProcessEnv = process.env): Promise<EngineConfig> {
  // a missing file too: the directory it would be in (and the audit key beside it) must be private
  assertPrivatePath(path, { what: "the config file", allowMissing: true });
  let text: string;
  let fileMode: number;
  try {
    const fh = await open(path, "r");
    try {
      fileMode = (await fh.stat()).mode;
      text = await fh.readFile("utf8");
    } finally {
      await fh.close();
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return applyEnv(defaultConfig(), env);
    throw new ConfigError([{ file: path, path: "", message: `cannot read: ${(err as Error).message}` }]);
  }
  const config = parseConfig(text, { file: path, env, fileMode });
  if (config.shield.policyFile)
    assertPrivatePath(config.shield.policyFile, { what: "the policy file", allowMissing: true });
  return config;
}

interface Report {
  add: (at: DataPath, message: string, key?: boolean) => void;
  /** A problem whose path is already written out. */
  push: (p: { path: string; message: string; line?: number; col?: number }) => void;
  locate: YamlFile["locate"];
}

/** Headers the SDK sets itself. */
const RESERVED_HEADERS = new Set(["content-type", "content-length", "host", "accept"]);
/** Headers that carry credentials: headers travel with the model settings, credentials never do. */
const CREDENTIAL_HEADERS = new Set(["authorization", "proxy-authorization", "api-key", "x-api-key", "cookie"]);
/** Keys of the request body Palisade sets; extra_body must not replace them. */
const RESERVED_BODY = new Set(["model", "messages", "stream", "tools"]);

/**
 * What the schema cannot say, checked wherever the value has the schema's type (a value of the
 * wrong type is the schema's problem, already reported).
 */
function beyondSchema(root: Obj, report: Report, baseDir: string): void {
  const { add, push, locate } = report;
  const model = obj(root.model);
  for (const [name, value] of Object.entries(obj(model.headers))) {
    const at = ["model", "headers", name];
    if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) add(at, "is not a valid HTTP header name", true);
    else if (RESERVED_HEADERS.has(name.toLowerCase())) add(at, "is set by Palisade itself", true);
    else if (CREDENTIAL_HEADERS.has(name.toLowerCase()))
      add(
        at,
        "would carry a credential; the key goes in model.api_key (or OPENAI_API_KEY), which only the request's sender sees",
        true,
      );
    else if (typeof value === "string" && /[\r\n]/.test(value)) add(at, "must not contain line breaks");
  }
  for (const key of Object.keys(obj(model.extra_body)))
    if (RESERVED_BODY.has(key))
      add(["model", "extra_body", key], "is set by Palisade itself and cannot be overridden", true);

  const limits = obj(root.limits);
  const clientMax = limits.client_max_message;
  if (isSize(clientMax) && (parseBytes(clientMax) ?? Infinity) > 16 * 1024 * 1024)
    add(
      ["limits", "client_max_message"],
      `must be a size from 1MiB to 16MiB (the transport's limit), like 4MiB, got ${describeValue(clientMax)}`,
    );

  const listen = obj(root.listen);
  if (typeof listen.unix === "string" && typeof listen.tcp === "string" && listen.unix && listen.tcp)
    add(["listen"], "set either unix or tcp, not both");
  if (typeof listen.tcp === "string" && listen.tcp && !isLoopbackTcp(listen.tcp))
    add(
      ["listen", "tcp"],
      `must be a loopback address like 127.0.0.1:7420 or [::1]:7420, got ${JSON.stringify(listen.tcp)}`,
    );

  const maxBytes = obj(obj(root.history).retention).max_bytes;
  if (isSize(maxBytes) && parseBytes(maxBytes) === undefined)
    add(
      ["history", "retention", "max_bytes"],
      `must be a size like 500MB, 2GB or a number of bytes >= 1048576, got ${describeValue(maxBytes)}`,
    );

  const url = obj(root.store).url;
  if (typeof url === "string") {
    try {
      parsePgUrl(url);
    } catch (err) {
      add(["store", "url"], (err as Error).message.replace(/^store\.url /, ""));
    }
  }

  const addresses = obj(root.sandbox).allow_addresses;
  if (Array.isArray(addresses))
    addresses.forEach((a, i) => {
      if (typeof a === "string" && a !== "" && isIP(a) === 0)
        add(
          ["sandbox", "allow_addresses", i],
          `must be an IP address (the proxy checks addresses after DNS), got ${JSON.stringify(a)}`,
        );
    });

  if (Array.isArray(root.capabilities)) {
    const seen = new Set<string>();
    root.capabilities.forEach((item, i) => {
      const id = obj(item).id;
      if (typeof id !== "string") return;
      if (seen.has(id)) add(["capabilities", i, "id"], `duplicate capability id ${JSON.stringify(id)}`);
      seen.add(id);
      for (const p of configSemanticsProblems(obj(item).semantics, `capabilities[${i}].semantics`))
        push({ ...p, ...locate(["capabilities", i, "semantics"]) });
    });
  }

  if (typeof root.workspace === "string" && root.workspace) {
    const dir = resolve(baseDir, root.workspace);
    // The file is right, the machine is not: no position in the file to point at.
    if (!isDirectory(dir))
      push({ path: "workspace", message: `${dir} does not exist or is not a directory: create it or fix the path` });
  }
}

/** The EngineConfig of a document the schema and the checks above accepted. */
function build(root: Obj, baseDir: string): EngineConfig {
  const cfg = defaultConfig();
  const num = (o: Obj, key: string): number | undefined => o[key] as number | undefined;
  const ms = (o: Obj, key: string): number | undefined =>
    o[key] === undefined ? undefined : (o[key] as number) * 1000;
  const str = (o: Obj, key: string): string | undefined => o[key] as string | undefined;
  const file = (o: Obj, key: string): string | undefined =>
    o[key] === undefined ? undefined : resolve(baseDir, o[key] as string);

  const model = obj(root.model);
  const M = cfg.model;
  if (model.base_url !== undefined) M.baseUrl = model.base_url as string;
  if (model.api_key) M.apiKey = model.api_key as string;
  M.name = str(model, "name") ?? M.name;
  M.contextWindow = num(model, "context_window") ?? M.contextWindow;
  for (const [name, value] of Object.entries(obj(model.headers))) M.headers[name] = String(value);
  if (model.extra_body !== undefined) M.extraBody = model.extra_body as Obj;
  M.idleTimeoutMs = ms(model, "idle_timeout_s") ?? M.idleTimeoutMs;
  M.requestTimeoutMs = ms(model, "request_timeout_s") ?? M.requestTimeoutMs;
  M.maxRetries = num(model, "max_retries") ?? M.maxRetries;
  M.maxRetryWaitMs = ms(model, "max_retry_wait_s") ?? M.maxRetryWaitMs;
  // YAML's booleans are read as the obvious choice.
  const choice = <T extends string>(v: unknown, yes: T, no: T): T | undefined =>
    v === true ? yes : v === false ? no : (v as T | undefined);
  M.textToolCalls = choice(model.text_tool_calls, "auto", "off") ?? M.textToolCalls;
  M.streamUsage = choice(model.stream_usage, "on", "off") ?? M.streamUsage;

  const shield = obj(root.shield);
  cfg.shield.policy = str(shield, "policy") ?? cfg.shield.policy;
  const policyFile = str(shield, "policy_file");
  if (policyFile) cfg.shield.policyFile = isAbsolute(policyFile) ? policyFile : resolve(baseDir, policyFile);
  const judge = obj(shield.llm_judge);
  cfg.shield.llmJudge = {
    enabled: judge.enabled === true,
    ...optional("model", str(judge, "model")),
    ...optional("baseUrl", str(judge, "base_url")),
    ...optional("apiKey", str(judge, "api_key")),
  };

  cfg.capabilities = (root.capabilities ?? []) as CapabilityEntry[];

  const limits = obj(root.limits);
  const L = cfg.limits;
  L.approvalTimeoutMs = ms(limits, "approval_timeout_s") ?? L.approvalTimeoutMs;
  L.agentRestartBudget = num(limits, "agent_restart_budget") ?? L.agentRestartBudget;
  L.agentRestartWindowMs = ms(limits, "agent_restart_window_s") ?? L.agentRestartWindowMs;
  L.agentReadyTimeoutMs = ms(limits, "agent_ready_timeout_s") ?? L.agentReadyTimeoutMs;
  L.toolTimeoutMs = ms(limits, "tool_timeout_s") ?? L.toolTimeoutMs;
  L.maxToolRounds = num(limits, "max_tool_rounds") ?? L.maxToolRounds;
  L.shutdownDeadlineMs = ms(limits, "shutdown_deadline_s") ?? L.shutdownDeadlineMs;
  L.capabilityIdleStopMs = ms(limits, "capability_idle_stop_s") ?? L.capabilityIdleStopMs;
  L.capabilityStartTimeoutMs = ms(limits, "capability_start_timeout_s") ?? L.capabilityStartTimeoutMs;
  L.agentIdleStopMs = ms(limits, "agent_idle_stop_s") ?? L.agentIdleStopMs;
  if (limits.client_max_message !== undefined)
    L.clientMaxMessageBytes = parseBytes(limits.client_max_message) ?? L.clientMaxMessageBytes;
  const sub = obj(limits.sub_agents);
  L.subAgents.maxConcurrent = num(sub, "max_concurrent") ?? L.subAgents.maxConcurrent;
  L.subAgents.maxLlmCalls = num(sub, "max_llm_calls") ?? L.subAgents.maxLlmCalls;
  L.subAgents.timeoutMs = ms(sub, "timeout_s") ?? L.subAgents.timeoutMs;
  L.subAgents.maxDepth = num(sub, "max_depth") ?? L.subAgents.maxDepth;

  const listen = obj(root.listen);
  const unix = str(listen, "unix");
  if (unix) cfg.listen.unix = unix.startsWith("unix:") ? unix : `unix:${resolve(baseDir, unix)}`;
  if (listen.tcp) cfg.listen.tcp = listen.tcp as string;

  const agent = obj(root.agent);
  cfg.agent.name = str(agent, "name") ?? cfg.agent.name;
  cfg.agent.allowUnsandboxed = agent.allow_unsandboxed === true;
  cfg.subAgents.inheritGrants = obj(root.sub_agents).inherit_grants === true;

  const history = obj(root.history);
  const retention = obj(history.retention);
  cfg.history.autoTitle = (history.auto_title as boolean | undefined) ?? cfg.history.autoTitle;
  if (retention.max_age_days !== undefined) cfg.history.retention.maxAgeDays = retention.max_age_days as number;
  if (retention.max_bytes !== undefined) cfg.history.retention.maxBytes = parseBytes(retention.max_bytes);
  cfg.history.retention.checkIntervalMs = ms(retention, "check_interval_s") ?? cfg.history.retention.checkIntervalMs;

  if (root.store !== undefined) {
    const store = obj(root.store);
    const tls = store.tls === undefined ? undefined : obj(store.tls);
    const passwordFile = file(store, "password_file");
    const engineId = str(store, "engine_id");
    cfg.store = {
      url: store.url as string,
      pool: num(store, "pool") ?? 10,
      leaseMs: ms(store, "lease_s") ?? 15_000,
      ...(passwordFile !== undefined ? { passwordFile } : {}),
      ...(engineId ? { engineId } : {}),
      ...(tls !== undefined
        ? {
            tls: {
              ...(tls.mode ? { mode: tls.mode as "disable" } : {}),
              ...optional("caFile", file(tls, "ca_file")),
              ...optional("certFile", file(tls, "cert_file")),
              ...optional("keyFile", file(tls, "key_file")),
            },
          }
        : {}),
    };
  }

  const sandbox = obj(root.sandbox);
  const home = (x: string): string =>
    x === "~" ? homedir() : x.startsWith("~/") ? resolve(homedir(), x.slice(2)) : resolve(baseDir, x);
  const list = (key: string): string[] => (sandbox[key] ?? []) as string[];
  cfg.sandbox = {
    required: (sandbox.required as boolean | undefined) ?? cfg.sandbox.required,
    hide: list("hide").map(home),
    readOnly: list("read_only").map(home),
    writable: list("writable").map(home),
    allowAddresses: list("allow_addresses"),
  };

  if (root.workspace) cfg.workspace = resolve(baseDir, root.workspace as string);
  return cfg;
}

function isSize(v: unknown): v is string | number {
  return typeof v === "string" || typeof v === "number";
}

function obj(v: unknown): Obj {
  return isObj(v) ? v : {};
}

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
