/**
 * `palisade capability ...` as a function (apps/cli delegates here):
 *   list  [--config FILE] [--json]
 *   check MANIFEST... [--address ADDR | --command "CMD ARGS"] [--json]
 *   check ID... --config FILE [--json]            (MCP servers of the config: name, version, capabilities, tools)
 *   call  MANIFEST TOOL [ARGS_JSON] (--address ADDR | --command "CMD ARGS") [--out DIR] [--timeout MS]
 *         [--session ID] [--user ID] [--data-dir DIR] [--json]
 *   call  ID TOOL [ARGS_JSON] --config FILE [...]   (an MCP server of the config)
 *   credentials set CAPABILITY NAME [--user ID] [--data-dir DIR]   (value read from stdin)
 *   credentials list [--user ID] [--data-dir DIR]
 *   credentials delete CAPABILITY NAME [--user ID] [--data-dir DIR]
 * Exit codes: 0 ok, 1 failure (invalid manifest, not ready, tool error), 2 usage.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { parse as parseYaml } from "yaml";
import { saveArtifact } from "./artifacts/export.js";
import { describeChannel } from "./launch/channel.js";
import { defaultPolicy } from "./catalog.js";
import { isMcpConfig, validateCapabilityConfigs } from "./config.js";
import type { AnyCapabilityConfig, CapabilityConfig, McpCapabilityConfig } from "./config.js";
import { UserCredentialStore } from "./credentials.js";
import { CapabilityError, ValidationError } from "./errors.js";
import { CapabilityHost } from "./host.js";
import { loadManifest } from "./manifest/load.js";
import { checkMcpServer, formatMcpCheck } from "./mcp/check.js";
import type { StdioWrapper } from "./mcp/launch.js";
import { sandboxedStdio } from "./mcp/sandbox.js";

export interface CapabilityCliIo {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
  stdin?: AsyncIterable<string | Buffer>;
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Judges a `call` before it runs (the `palisade` CLI passes the Shield here). */
  judge?: CallJudge;
}

/** A Shield for `capability call`: what the tool is, what its manifest recommends, what it asks. */
export type CallJudge = (call: {
  tool: string;
  args: unknown;
  sessionId: string;
  manifestPolicy: "allow" | "ask" | "block";
  network: { mode: "none" | "allowlist" | "any"; hosts: string[] };
}) => Promise<{ decision: "allow" | "block" | "escalate"; tier: number; reason: string }>;

const USAGE = `usage:
  palisade capability list [--config FILE] [--json]
  palisade capability check MANIFEST... [--address ADDR | --command "CMD ARGS" [--protocol palisade|selu]] [--json]
  palisade capability check ID... --config FILE [--json]          (MCP servers named in the config)
  palisade capability call MANIFEST TOOL [ARGS_JSON] (--address ADDR | --command "CMD ARGS" [--protocol palisade|selu]) [--out DIR] [--timeout MS] [--session ID] [--user ID] [--json] [--yes]
  palisade capability call ID TOOL [ARGS_JSON] --config FILE [--out DIR] [...]   (an MCP server named in the config)
  palisade capability credentials set|list|delete [CAPABILITY NAME] [--user ID]   (set reads the value from stdin)
every command also takes --data-dir DIR and --config FILE
`;

class UsageError extends Error {}

const options = {
  config: { type: "string" },
  "data-dir": { type: "string" },
  address: { type: "string" },
  command: { type: "string" },
  protocol: { type: "string" },
  out: { type: "string" },
  timeout: { type: "string" },
  session: { type: "string" },
  user: { type: "string" },
  json: { type: "boolean" },
  yes: { type: "boolean" },
} as const;

export async function runCapabilityCli(argv: string[], io: CapabilityCliIo): Promise<number> {
  const say = (s: string): void => void io.stdout.write(`${s}\n`);
  try {
    const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    const [sub, ...rest] = positionals;
    const env = io.env ?? {};
    const dataDir = values["data-dir"] ?? join(env.XDG_DATA_HOME ?? join(homedir(), ".local", "share"), "palisade");
    const cwd = io.cwd ?? process.cwd();
    const configFile = values.config ?? join(env.XDG_CONFIG_HOME ?? join(homedir(), ".config"), "palisade", "config.yaml");
    switch (sub) {
      case "list":
        return await list(configFile, values.json === true, say);
      case "check": {
        if (rest.length === 0) throw new UsageError("check needs at least one MANIFEST (or the ID of an MCP server with --config FILE)");
        const servers = values.config === undefined ? [] : await mcpEntries(values.config, rest);
        if (servers.length > 0) return await withMcpSandbox({ workspace: cwd, dataDir, configFile }, (sandbox) => checkMcp(servers, { dataDir, ...sandbox }, values.json === true, say));
        return await check(rest, launch(values), dataDir, values.json === true, say);
      }
      case "call": {
        const [manifest, tool, argsText] = rest;
        if (!manifest || !tool) throw new UsageError("call needs MANIFEST and TOOL (for an MCP server: its ID and TOOL, with --config FILE)");
        const [server] = values.config === undefined ? [] : await mcpEntries(values.config, [manifest]);
        const mode = server ? { mcp: server } : launch(values);
        if (!mode) throw new UsageError("call needs --address ADDR or --command \"CMD ARGS\" (or, for an MCP server, its ID and --config FILE)");
        const timeoutMs = values.timeout === undefined ? undefined : Number(values.timeout);
        if (timeoutMs !== undefined && !(timeoutMs > 0)) throw new UsageError("--timeout must be a positive number of milliseconds");
        return await call({ manifest, tool, argsText: argsText ?? "{}", mode, configFile, dataDir, out: values.out, timeoutMs, sessionId: values.session ?? "cli", userId: values.user ?? "local", json: values.json === true, yes: values.yes === true, cwd }, say, io);
      }
      case "credentials":
        return await credentials(rest, new UserCredentialStore(join(dataDir, "credentials.json")), values.user ?? "local", io, say);
      default:
        throw new UsageError(sub ? `unknown subcommand "${sub}"` : "missing subcommand");
    }
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      io.stderr.write(`error: ${(err as Error).message}\n${USAGE}`);
      return 2;
    }
    io.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

type Mode = Pick<CapabilityConfig, "address" | "command" | "protocol"> | { mcp: McpCapabilityConfig };

async function readConfigs(configFile: string): Promise<AnyCapabilityConfig[]> {
  let text: string;
  try {
    text = await readFile(configFile, "utf8");
  } catch {
    throw new CapabilityError("invalid_config", `cannot read ${configFile}: pass --config FILE`);
  }
  const doc = (parseYaml(text) ?? {}) as { capabilities?: unknown };
  return validateCapabilityConfigs(doc.capabilities ?? [], { file: configFile, baseDir: dirname(configFile) });
}

/** The MCP entries of the config named by `ids`; empty when none of them is one (they are manifests). */
async function mcpEntries(configFile: string, ids: string[]): Promise<McpCapabilityConfig[]> {
  const configs = await readConfigs(configFile);
  const found = ids.map((id) => configs.find((c) => c.id === id));
  if (found.every((c) => c === undefined || !isMcpConfig(c))) return [];
  return ids.map((id, i) => {
    const c = found[i];
    if (!c || !isMcpConfig(c)) throw new UsageError(`"${id}" is not an MCP server in ${configFile}: check MCP servers and manifests separately`);
    return c;
  });
}

/**
 * Stdio MCP servers run in the sandbox the Engine gives them, with the current directory as
 * the workspace: what `check` and `call` see is what the Engine will.
 */
async function withMcpSandbox<T>(where: { workspace: string; dataDir: string; configFile: string }, run: (options: { mcpWrap: StdioWrapper }) => Promise<T>): Promise<T> {
  const runRoot = mkdtempSync(join(tmpdir(), "palisade-mcp-"));
  try {
    const protect = [resolve(where.workspace, where.dataDir), resolve(where.workspace, where.configFile)];
    return await run({ mcpWrap: sandboxedStdio({ workspace: resolve(where.workspace), protect, runRoot }) });
  } finally {
    rmSync(runRoot, { recursive: true, force: true });
  }
}

async function checkMcp(servers: McpCapabilityConfig[], options: { dataDir: string; mcpWrap: StdioWrapper }, json: boolean, say: (s: string) => void): Promise<number> {
  const reports = [];
  for (const c of servers) {
    const r = await checkMcpServer(c, options);
    reports.push(r);
    if (!json) say(formatMcpCheck(r));
  }
  if (json) say(JSON.stringify(reports, null, 2));
  return reports.every((r) => r.ok) ? 0 : 1;
}

function launch(values: { address?: string; command?: string; protocol?: string }): Mode | undefined {
  if (values.address && values.command) throw new UsageError("use --address or --command, not both");
  const protocol = values.protocol;
  if (protocol !== undefined && protocol !== "palisade" && protocol !== "selu") throw new UsageError(`--protocol must be palisade or selu, got "${protocol}"`);
  if (protocol !== undefined && !values.command) throw new UsageError("--protocol is only used with --command");
  if (values.address) return { address: values.address };
  if (values.command) return { command: values.command.split(/\s+/).filter((s) => s !== ""), ...(protocol ? { protocol } : {}) };
  return undefined;
}

async function list(configFile: string, json: boolean, say: (s: string) => void): Promise<number> {
  const configs = await readConfigs(configFile);
  const out = [];
  for (const c of configs) {
    if (isMcpConfig(c)) {
      out.push({ id: c.id, launch: "command" in c.mcp ? "mcp stdio" : "mcp http", enabled: c.enabled !== false, tools: [], dynamic: true });
      continue;
    }
    const m = await loadManifest(c.manifest);
    const mode = c.command ? "command" : c.address ? "address" : c.image || m.image ? "image" : "none";
    const channel = mode === "none" ? undefined : describeChannel(c, m.image);
    out.push({
      id: c.id,
      launch: mode,
      enabled: c.enabled !== false,
      ...(channel ? { channel: channel.description, unauthenticated: channel.warning !== undefined } : {}),
      ...(channel?.warning ? { warning: channel.warning } : {}),
      tools: m.tools.map((t) => ({ name: `${m.id}__${t.name}`, policy: defaultPolicy(t) })),
      dynamic: m.toolSource === "dynamic",
    });
  }
  if (json) say(JSON.stringify(out, null, 2));
  else {
    for (const c of out) {
      const channel = c.channel ? `\n  channel: ${c.channel}${c.warning ? `\n  WARNING: ${c.warning}` : ""}` : "";
      say(`${c.id} (${c.launch}${c.enabled ? "" : ", disabled"})${c.dynamic ? " tools discovered at runtime" : ""}${channel}\n${c.tools.map((t) => `  ${t.name}  [${t.policy}]`).join("\n")}`);
    }
  }
  return 0;
}

async function check(manifests: string[], mode: Mode | undefined, dataDir: string, json: boolean, say: (s: string) => void): Promise<number> {
  let failed = 0;
  const results = [];
  for (const path of manifests) {
    try {
      const m = await loadManifest(path);
      let health: string | undefined;
      if (mode) {
        const host = new CapabilityHost({ dataDir, capabilities: [{ id: m.id, manifest: path, ...mode }], startupTimeoutMs: 10_000 });
        const [s] = await host.start();
        await host.stop();
        health = `${s?.state ?? "unknown"}: ${s?.message ?? ""}`;
        if (s?.state !== "ready") failed++;
      }
      results.push({ manifest: m.file, id: m.id, ok: true, tools: m.tools.length, warnings: m.warnings, ...(health ? { health } : {}) });
      if (!json) say(`ok ${m.file}: ${m.id}, ${m.toolSource === "dynamic" ? "dynamic tools" : `${m.tools.length} tool(s)`}${health ? `; health ${health}` : ""}${m.warnings.map((w) => `\n  warning: ${w}`).join("")}`);
    } catch (err) {
      failed++;
      if (!(err instanceof ValidationError)) throw err;
      results.push({ manifest: path, ok: false, problems: err.problems });
      if (!json) say(err.message);
    }
  }
  if (json) say(JSON.stringify(results, null, 2));
  return failed > 0 ? 1 : 0;
}

interface CallRequest {
  manifest: string;
  tool: string;
  argsText: string;
  mode: Mode;
  dataDir: string;
  out: string | undefined;
  timeoutMs: number | undefined;
  sessionId: string;
  userId: string;
  json: boolean;
  yes: boolean;
  cwd: string;
  configFile: string;
}

async function call(req: CallRequest, say: (s: string) => void, io: CapabilityCliIo): Promise<number> {
  try {
    JSON.parse(req.argsText);
  } catch {
    throw new UsageError(`ARGS_JSON is not valid JSON: ${req.argsText}`);
  }
  const mode = req.mode;
  const id = "mcp" in mode ? mode.mcp.id : (await loadManifest(req.manifest)).id;
  const config: AnyCapabilityConfig = "mcp" in mode ? mode.mcp : { id, manifest: req.manifest, ...mode, ...(mode.command ? { cwd: req.cwd } : {}) };
  if ("mcp" in mode) return withMcpSandbox({ workspace: req.cwd, dataDir: req.dataDir, configFile: req.configFile }, (sandbox) => callWith(req, id, config, sandbox, say, io));
  return callWith(req, id, config, {}, say, io);
}

async function callWith(req: CallRequest, id: string, config: AnyCapabilityConfig, extra: { mcpWrap?: StdioWrapper }, say: (s: string) => void, io: CapabilityCliIo): Promise<number> {
  const args: unknown = JSON.parse(req.argsText);
  const host = new CapabilityHost({ dataDir: req.dataDir, capabilities: [config], ...extra });
  try {
    const [status] = await host.start();
    if (status?.state !== "ready") throw new CapabilityError("not_ready", status?.message ?? "not ready");
    const name = req.tool.includes("__") ? req.tool : `${id}__${req.tool}`;
    if (io.judge) {
      const entry = host.resolve(name);
      const v = await io.judge({ tool: name, args, sessionId: req.sessionId, manifestPolicy: entry.policy, network: entry.network });
      io.stderr.write(`shield ${v.decision.toUpperCase()} (tier ${String(v.tier)}): ${v.reason}\n`);
      if (v.decision === "block") return 2;
      if (v.decision === "escalate" && !req.yes) {
        io.stderr.write("the Shield asks for your approval before this call runs: re-run with --yes to approve it\n");
        return 3;
      }
    }
    const result = await host.invoke(name, args, { sessionId: req.sessionId, userId: req.userId, workspace: req.cwd, ...(req.timeoutMs ? { timeoutMs: req.timeoutMs } : {}) });
    const saved: string[] = [];
    if (req.out) for (const a of result.artifacts) saved.push(await saveArtifact(host.artifacts, a.artifactId, { sessionId: req.sessionId, userId: req.userId }, req.out));
    if (req.json) say(JSON.stringify({ ok: result.ok, result: result.result, content: result.content, artifacts: result.artifacts, saved, error: result.error }, null, 2));
    else {
      say(result.content);
      for (const p of saved) say(`saved ${p}`);
    }
    return result.ok ? 0 : 1;
  } finally {
    await host.stop();
  }
}

async function credentials(rest: string[], store: UserCredentialStore, userId: string, io: CapabilityCliIo, say: (s: string) => void): Promise<number> {
  const [action, capability, name] = rest;
  if (action === "list") {
    const names = await store.names(userId);
    const lines = Object.entries(names).flatMap(([cap, list]) => list.map((n) => `${cap} ${n}`));
    say(lines.length > 0 ? lines.join("\n") : `no credentials stored for user "${userId}"`);
    return 0;
  }
  if (!capability || !name) throw new UsageError(`credentials ${action ?? ""} needs CAPABILITY and NAME`);
  if (action === "delete") {
    const removed = await store.delete(userId, capability, name);
    say(removed ? `deleted ${capability} ${name} for user "${userId}"` : `no ${capability} ${name} stored for user "${userId}"`);
    return removed ? 0 : 1;
  }
  if (action !== "set") throw new UsageError(`unknown credentials action "${action ?? ""}"`);
  // The value comes from stdin, never from argv (which other users can see in ps).
  if (!io.stdin) throw new UsageError("credentials set reads the value from stdin");
  let value = "";
  for await (const chunk of io.stdin) value += typeof chunk === "string" ? chunk : chunk.toString("utf8");
  value = value.replace(/\r?\n$/, "");
  if (value === "") throw new UsageError("empty value on stdin");
  await store.set(userId, capability, name, value);
  say(`stored ${capability} ${name} for user "${userId}" in ${store.file}`);
  return 0;
}
