import type { CapabilityConfig, Manifest } from "@palisade/capabilities";
import type { LocalCapability, LocalTools } from "@palisade/engine";
import type { CapabilityStatus, ToolInfo } from "@palisade/protocol/pipeline";
import { CliError, ExitCode } from "../cli/errors.js";
import { println } from "../cli/io.js";
import type { CommandContext } from "../cli/spec.js";
import { findEngine } from "../engine-address.js";
import { openClient } from "../engine/connect.js";
import { processText } from "../format/status.js";
import { flag, pathsOf } from "./common.js";
import { openTools } from "./local-tools.js";
import { startProgress } from "./capability-progress.js";

export interface ListedTool {
  name: string;
  /** The decision the configured Shield policy gives the tool before looking at arguments. */
  policy: string;
  /** What the Shield reads the tool's arguments as, and whether that was declared or inferred from the schema. */
  semantics: ListedSemantics | { error: string };
}

export interface ListedSemantics {
  kind: string;
  /** declared (manifest, config entry, discovery or policy), inferred (from the JSON Schema), builtin, or none. */
  source: string;
  recipients: string[];
  hosts: string[];
  /** Argument → read, write, delete, exec or unknown. */
  paths: Record<string, string>;
  commands: string[];
  /** Arguments whose content leaves the machine. */
  outgoing: string[];
  /** Arguments another model reads. */
  model_facing: string[];
  method?: string;
  /** Refused off the record. */
  writes_files: boolean;
}

/** The Shield's reading of one tool; an invalid declared block is shown as the error it is. */
function semanticsOf(
  tools: LocalTools,
  name: string,
  schema: Record<string, unknown>,
  declared: Record<string, unknown> | undefined,
  description: string | undefined,
): ListedTool["semantics"] {
  if (!tools.shield.toolSemantics) return { error: "the Shield in use does not describe tool semantics" };
  try {
    const v = tools.shield.toolSemantics({
      toolName: name,
      toolSchema: schema,
      ...(declared ? { toolSemantics: declared } : {}),
      ...(description ? { toolDescription: description } : {}),
    });
    return {
      kind: v.kind,
      source: v.source,
      recipients: v.recipients,
      hosts: v.hosts,
      paths: v.paths,
      commands: v.commands,
      outgoing: v.outgoing,
      model_facing: v.modelFacing,
      ...(v.method !== undefined ? { method: v.method } : {}),
      writes_files: v.writesFiles,
    };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

export interface ListedCapability {
  id: string;
  launch: string;
  state: string;
  message: string;
  /** How the Engine reaches it and who else can. */
  channel?: string;
  /** Set when other local processes (or the network) can call it without the Shield. */
  warning?: string;
  /** What its start noticed and worked around (tools left out, an OAuth credential not bound to an issuer). */
  notices?: string[];
  /** MCP servers: the protocol revision in use, e.g. "MCP 2026-07-28 (stateless)". */
  protocol?: string;
  /** What its sandbox lets it see and reach, and how each resource limit was applied (or why not). */
  sandbox?: string;
  /** With --verbose: every path its sandbox shows and how (read-only, read-write, private, link, hidden). */
  view?: ViewLine[];
  unauthenticated: boolean;
  tools: ListedTool[];
  /** Tools are announced by the server at run time (and it is not ready). */
  dynamic: boolean;
  /**
   * Its process in the running Engine (local capabilities): started, starting or stopped (it
   * starts on its next call), per workspace where one runs per workspace. Null: no Engine runs.
   */
  engine: EngineProcess | null;
}

export interface ViewLine {
  path: string;
  access: string;
  target?: string;
}

export interface EngineProcess {
  /** The capability's state in the Engine (ready, stopped, failed, ...). */
  state: string;
  message: string;
  /** Local processes only: started, starting or stopped. */
  process?: string;
  pid?: number;
  restarts: number;
  workspace?: string;
  instances: { workspace: string; process: string; pid?: number }[];
}

/** What the running Engine says of its capabilities: their state and the tools it has now. */
interface EngineView {
  pid: number;
  capabilities: Map<string, CapabilityStatus>;
  tools: ToolInfo[];
}

/** The running Engine's view of its capabilities, or undefined when none runs (or it does not answer). */
async function engineCapabilities(ctx: CommandContext): Promise<EngineView | undefined> {
  const running = await findEngine(pathsOf(ctx));
  if (!running) return undefined;
  const client = openClient(running);
  try {
    const [status, listed] = await Promise.all([
      client.getStatus({}, { timeoutMs: 5000 }),
      client.listTools({}, { timeoutMs: 5000 }),
    ]);
    return {
      pid: running.info.pid,
      capabilities: new Map(status.capabilities.map((c) => [c.id, c])),
      tools: listed.tools,
    };
  } catch {
    return undefined;
  } finally {
    client.close();
  }
}

/**
 * A listing that started nothing, with the running Engine's word for each capability: its state
 * and message, its sandbox and protocol, and the tools of an MCP server (or `tool_source:
 * dynamic`) it has running, which no manifest lists.
 */
function fromEngine(tools: LocalTools, list: ListedCapability[], engine: EngineView): ListedCapability[] {
  return list.map((c) => {
    const s = engine.capabilities.get(c.id);
    if (!s) return c;
    const served = engine.tools.filter((t) => t.capabilityId === c.id);
    const listed: ListedTool[] =
      c.tools.length > 0 || served.length === 0
        ? c.tools
        : served.map((t) => {
            const name = t.def?.name ?? "";
            let schema: Record<string, unknown> = {};
            try {
              schema = JSON.parse(t.def?.parametersJson || "{}") as Record<string, unknown>;
            } catch {
              /* an unreadable schema reads as none */
            }
            return {
              name,
              policy: t.policy,
              semantics: semanticsOf(tools, name, schema, undefined, t.def?.description),
            };
          });
    return {
      ...c,
      state: s.state,
      message: s.message,
      ...(s.sandbox ? { sandbox: s.sandbox } : {}),
      tools: listed,
    };
  });
}

function engineProcess(c: CapabilityStatus | undefined): EngineProcess | null {
  if (!c) return null;
  return {
    state: c.state,
    message: c.message,
    ...(c.process ? { process: c.process } : {}),
    ...(c.pid ? { pid: c.pid } : {}),
    restarts: c.restarts,
    ...(c.workspace ? { workspace: c.workspace } : {}),
    instances: c.instances.map((i) => ({
      workspace: i.workspace,
      process: i.process,
      ...(i.pid ? { pid: i.pid } : {}),
    })),
  };
}

/**
 * The sandbox view a local capability or stdio MCP server gets with this config (undefined: it
 * runs without one, or remotely). Computed as the Engine computes it, without starting anything.
 */
async function sandboxView(
  tools: LocalTools,
  c: LocalCapability,
  m: Manifest | undefined,
): Promise<ViewLine[] | undefined> {
  const { planSandbox, previewView, stdioSandboxSpec } = await import("@palisade/capabilities");
  const cfg = tools.config;
  const protect = [
    tools.dataDir,
    ...(cfg.source ? [cfg.source] : []),
    ...(cfg.shield.policyFile ? [cfg.shield.policyFile] : []),
  ];
  const entry = c.entry as Record<string, unknown>;
  const mcp = entry.mcp as { command?: string[] } | undefined;
  if (mcp) {
    if (!mcp.command) return undefined;
    const network = (entry.network as { mode?: "none" | "allowlist" | "any" } | undefined)?.mode ?? "none";
    const filesystem = (entry.filesystem as "none" | "temp" | "workspace" | undefined) ?? "workspace";
    const spec = stdioSandboxSpec(
      {
        workspace: tools.workspace,
        protect,
        readOnly: cfg.sandbox.readOnly,
        writable: cfg.sandbox.writable,
        hide: cfg.sandbox.hide,
      },
      { filesystem, network: { mode: network, hosts: [] } },
    );
    return previewView(spec, mcp.command);
  }
  const command = entry.command as string[] | undefined;
  if (!command || !m) return undefined;
  const config = entry as unknown as CapabilityConfig;
  const settings = {
    probe: { available: true },
    required: false,
    hide: cfg.sandbox.hide,
    readOnly: cfg.sandbox.readOnly,
    writable: cfg.sandbox.writable,
    protect,
    allowAddresses: [],
    runBase: "/nonexistent",
  };
  const workspace =
    config.workspace ?? (typeof config.config?.workspace === "string" ? config.config.workspace : undefined);
  const plan = planSandbox(m, config, settings, workspace);
  return plan ? previewView(plan.spec, command) : undefined;
}

/** How the host would launch an entry, read from the entry alone (as the capability runtimes decide it). */
function launchOf(entry: Record<string, unknown>, m: Manifest | undefined): string {
  if ("mcp" in entry)
    return typeof (entry.mcp as { url?: unknown } | undefined)?.url === "string" ? "address" : "command";
  if (entry.command) return "command";
  if (entry.address) return "address";
  return (entry.image ?? m?.image) ? "image" : "none";
}

/** Every capability with its launch mode, health and tools; tools of one that is not ready come from its manifest. */
export async function listCapabilities(
  tools: LocalTools,
  engine?: EngineView,
  options: { view?: boolean } = {},
): Promise<ListedCapability[]> {
  const { describeChannel, loadManifest, defaultPolicy, fullToolName } = await import("@palisade/capabilities");
  const catalog = tools.host.catalog();
  const status = new Map(tools.host.status().map((s) => [s.id, s]));
  const out: ListedCapability[] = [];
  for (const c of tools.capabilities) {
    const s = status.get(c.id);
    let listed: ListedTool[] = catalog
      .filter((t) => t.capabilityId === c.id)
      .map((t) => ({
        name: t.name,
        policy: tools.shield.effectivePolicy(t.name, t.policy),
        semantics: semanticsOf(tools, t.name, t.parameters, t.semantics, t.description),
      }));
    let dynamic = "mcp" in c.entry;
    const m = c.manifest ? await loadManifest(c.manifest).catch(() => undefined) : undefined;
    const launch = s?.launch ?? launchOf(c.entry, m);
    const channel = "mcp" in c.entry || launch === "none" ? undefined : describeChannel(c.entry, m?.image);
    if (listed.length === 0 && m) {
      dynamic = m.toolSource === "dynamic";
      listed = m.tools.map((t) => {
        const name = fullToolName(c.id, t.name);
        const fromEntry = c.entry["semantics"] as Record<string, Record<string, unknown>> | undefined;
        const declared = fromEntry && Object.hasOwn(fromEntry, t.name) ? fromEntry[t.name] : t.semantics;
        return {
          name,
          policy: tools.shield.effectivePolicy(name, defaultPolicy(t)),
          semantics: semanticsOf(tools, name, t.inputSchema, declared, t.description),
        };
      });
    }
    const view = options.view
      ? await sandboxView(tools, c, m).catch((err: unknown) => [
          { path: "(view unavailable)", access: err instanceof Error ? err.message : String(err) },
        ])
      : undefined;
    out.push({
      id: c.id,
      launch,
      state: s?.state ?? "not_started",
      message: s?.message ?? "not started: --static",
      ...(channel ? { channel: channel.description } : {}),
      ...(s?.protocol ? { protocol: s.protocol } : {}),
      ...(channel?.warning ? { warning: channel.warning } : {}),
      // The channel's own warning is printed as such, once.
      ...(s?.warnings?.some((w) => w !== channel?.warning)
        ? { notices: s.warnings.filter((w) => w !== channel?.warning) }
        : {}),
      ...(s?.sandbox ? { sandbox: s.sandbox } : {}),
      ...(view ? { view } : {}),
      unauthenticated: channel?.warning !== undefined,
      tools: listed,
      dynamic,
      engine: engine ? engineProcess(engine.capabilities.get(c.id)) : null,
    });
  }
  return out;
}

/**
 * The capabilities `capability list` starts: the ids given (all when none), none with --static,
 * none when an Engine runs (its state is the answer) and no ids are given.
 */
function toStart(ctx: CommandContext, engine: EngineView | undefined): string[] | undefined {
  if (flag(ctx, "static")) return [];
  if (ctx.positionals.length > 0) return ctx.positionals;
  return engine ? [] : undefined;
}

export async function capabilityList(ctx: CommandContext): Promise<number> {
  const engine = await engineCapabilities(ctx);
  const start = toStart(ctx, engine);
  const fromRunning = engine !== undefined && start?.length === 0 && !flag(ctx, "static");
  if (fromRunning)
    println(ctx.io.stderr, `reading the running Engine's capabilities (pid ${engine.pid}): nothing is started`);
  const progress = startProgress(ctx.io.stderr);
  const tools = await openTools(ctx, {
    ...(ctx.positionals.length > 0 ? { select: ctx.positionals } : {}),
    ...(start ? { start } : {}),
    log: progress.line,
    onStarting: progress.starting,
  });
  progress.done();
  try {
    const unknown = ctx.positionals.filter((id) => !tools.capabilities.some((c) => c.id === id));
    if (unknown.length > 0)
      throw new CliError(`no capability ${unknown.map((u) => `'${u}'`).join(", ")} in the config or the built-ins`, {
        hint: "run capability list without ids to see every configured one",
      });
    const listed = await listCapabilities(tools, engine, { view: flag(ctx, "verbose") });
    const list = fromRunning ? fromEngine(tools, listed, engine) : listed;
    const shield = tools.shield.describe();
    if (flag(ctx, "json")) {
      println(
        ctx.io.stdout,
        JSON.stringify(
          {
            policy: shield.policyName,
            config: tools.config.source ?? null,
            engineRunning: engine !== undefined,
            capabilities: list,
          },
          null,
          2,
        ),
      );
      return ExitCode.OK;
    }
    println(
      ctx.io.stdout,
      `Shield policy ${shield.policyName}; config ${tools.config.source ?? `${tools.configPath} (not found: built-in defaults)`}`,
    );
    if (fromRunning)
      println(
        ctx.io.stdout,
        `The running Engine's capabilities (pid ${engine.pid}): health and MCP servers' tools are the Engine's; nothing was started for this listing.`,
      );
    else if (start?.length === 0)
      println(
        ctx.io.stdout,
        "--static: nothing was started; tools come from the manifests (an MCP server's only once it runs).",
      );
    else if (!engine)
      println(ctx.io.stdout, "No Engine is running: the processes below were started for this listing only.");
    for (const c of list) {
      println(ctx.io.stdout);
      println(
        ctx.io.stdout,
        `${c.id}  launch: ${c.launch}  health: ${c.state}${c.state === "ready" ? "" : ` (${c.message})`}`,
      );
      const e = c.engine;
      if (e) {
        const down = e.state === "failed" || e.state === "not_ready" ? `; DOWN: ${e.message}` : "";
        println(
          ctx.io.stdout,
          `  in the Engine: ${e.process ? processText(e.process, e.pid) : e.state}${e.restarts ? `, ${e.restarts} restart${e.restarts === 1 ? "" : "s"}` : ""}${down}`,
        );
        for (const i of e.instances)
          println(ctx.io.stdout, `    for workspace ${i.workspace}: ${processText(i.process, i.pid)}`);
      }
      if (c.channel) println(ctx.io.stdout, `  channel: ${c.channel}`);
      if (c.protocol) println(ctx.io.stdout, `  protocol: ${c.protocol}`);
      if (c.warning) println(ctx.io.stdout, `  WARNING: ${c.warning}`);
      for (const n of c.notices ?? []) println(ctx.io.stdout, `  warning: ${n}`);
      if (c.sandbox) println(ctx.io.stdout, `  sandbox: ${c.sandbox}`);
      if (c.view) {
        println(ctx.io.stdout, "  sandbox view (everything else of the host is absent):");
        const w = Math.max(...c.view.map((v) => v.path.length));
        for (const v of c.view)
          println(ctx.io.stdout, `    ${v.path.padEnd(w)}  ${v.access}${v.target ? ` -> ${v.target}` : ""}`);
      }
      if (c.tools.length === 0)
        println(ctx.io.stdout, c.dynamic ? "  (tools are announced by the server once it is ready)" : "  (no tools)");
      const width = Math.max(...c.tools.map((t) => t.name.length));
      for (const t of c.tools)
        println(
          ctx.io.stdout,
          `  ${t.name.padEnd(width)}  ${t.policy.padEnd(5)}  ${"error" in t.semantics ? `semantics INVALID: ${t.semantics.error}` : `${t.semantics.kind} (${t.semantics.source})`}`,
        );
    }
    return ExitCode.OK;
  } finally {
    await tools.close();
  }
}
