// ToolHost over @palisade/capabilities' CapabilityHost, the built-in capabilities merged with
// the configured ones. The only file that knows the host's API.
import { CapabilityHost, sandboxedStdio, validateCapabilityConfigs } from "@palisade/capabilities";
import type { AnyCapabilityConfig, Deadline, InvokeOptions, ToolEntry } from "@palisade/capabilities";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { CapabilityEntry, EngineConfig } from "@palisade/config";
import { ConfigError, builtinCapabilities, ownCapabilityIds, semanticsIssues } from "@palisade/config";
import type { ElicitHandler, ToolGroupInfo, ToolHost, ToolSpec } from "../ports.js";

export { Deadline } from "@palisade/capabilities";
import { sandboxSettings } from "./sandbox.js";
import type { EgressHook } from "./sandbox.js";
import type { SandboxProbe } from "@palisade/sandbox";

export interface HostRequest {
  config: EngineConfig;
  dataDir: string;
  workspace: string;
  log: (line: string) => void;
  merge: (defaults: readonly CapabilityEntry[], user: readonly CapabilityEntry[]) => CapabilityEntry[];
  /** Tool sandboxes: none without a probe (embedders and unit tests). */
  sandboxProbe?: SandboxProbe;
  egress?: EgressHook;
  otr?: OtrHook;
  /** More files no sandbox may see (the audit key). */
  protect?: string[];
  /**
   * The Engine's lifecycle: local capabilities start on their first call and stop after
   * limits.capability_idle_stop_s without calls (unless that is 0), and MCP servers start without
   * being waited for. Without it every capability starts now, is waited for and keeps running
   * (`capability list|call`).
   */
  lifecycle?: boolean;
}

/** Set by the Engine once its session directory exists: whether a session is off the record. */
export interface OtrHook {
  isOtr?: (sessionId: string) => boolean;
}

function spec(e: ToolEntry, own: ReadonlySet<string>): ToolSpec {
  return {
    name: e.fullName,
    capabilityId: e.capabilityId,
    description: e.description,
    parameters: e.inputSchema,
    policy: e.policy,
    terminalOnSuccess: e.terminalOnSuccess,
    streaming: e.streaming,
    networkMode: e.network.mode,
    ...(e.network.mode === "allowlist" ? { networkAllowlist: [...e.network.hosts] } : {}),
    ...(e.semantics !== undefined ? { semantics: e.semantics } : {}),
    ...(own.has(e.capabilityId) ? { builtin: true } : {}),
  };
}

/**
 * What the model is told about a group that is down: a fixed text per state, never the
 * capability's own output (its log lines are not for the system prompt).
 */
function downNote(state: string, restarts: number): string | undefined {
  switch (state) {
    case "failed":
      return "down: it failed and is not restarted (restart budget spent or it cannot start); its tools cannot be used now";
    case "starting":
      return restarts === 0
        ? "starting: its tools arrive when it is ready"
        : "restarting: its tools can be used again in a moment";
    case "not_ready":
      return "not ready: its tools cannot be used now";
    default:
      return undefined;
  }
}

function groupDescription(tools: readonly string[]): string {
  const shown = tools.slice(0, 6).join(", ");
  return tools.length > 6 ? `${shown}, …` : shown;
}

class HostAdapter implements ToolHost {
  private specs: ToolSpec[] | undefined;
  private specsOf: ToolEntry[] | undefined;
  private groupList: ToolGroupInfo[] | undefined;
  private groupsOf: ToolSpec[] | undefined;
  private groupsDown = "";
  /** The catalog entry each resolved spec came from. */
  private readonly entries = new WeakMap<ToolSpec, ToolEntry>();

  constructor(
    private readonly host: CapabilityHost,
    private readonly cleanup: () => void = () => undefined,
    /** Ids of the built-in capabilities launched as shipped (see ownCapabilityIds). */
    private readonly own: ReadonlySet<string> = new Set(),
  ) {}

  catalog(): ToolSpec[] {
    const entries = this.host.catalog();
    if (this.specsOf !== entries || !this.specs || this.specs.length !== entries.length) {
      this.specs = entries.map((e) => spec(e, this.own));
      this.specsOf = entries;
    }
    return this.specs;
  }

  groups() {
    const specs = this.catalog();
    // A capability without tools now (failed, restarting) stays listed as a group that is down.
    const down = this.host.unavailable().flatMap((u) => {
      const note = downNote(u.state, u.restarts);
      return note ? [{ id: u.id, note }] : [];
    });
    const downKey = down.map((d) => `${d.id}\0${d.note}`).join("\n");
    if (this.groupsOf === specs && this.groupList && this.groupsDown === downKey) return this.groupList;
    const counts = new Map<string, number>();
    for (const t of specs) counts.set(t.capabilityId, (counts.get(t.capabilityId) ?? 0) + 1);
    // From the catalog, not the manifest: MCP servers have none, and list their tools at runtime.
    const names = new Map<string, string[]>();
    for (const t of this.host.catalog()) names.set(t.capabilityId, [...(names.get(t.capabilityId) ?? []), t.name]);
    this.groupList = [...counts].map(([name, toolCount]) => ({
      name,
      description: groupDescription(names.get(name) ?? []),
      toolCount,
    }));
    for (const d of down)
      if (!counts.has(d.id)) this.groupList.push({ name: d.id, description: "", toolCount: 0, down: d.note });
    this.groupsOf = specs;
    this.groupsDown = downKey;
    return this.groupList;
  }

  resolve(name: string) {
    try {
      const entry = this.host.resolve(name);
      const tool = spec(entry, this.own);
      // invoke() of this spec calls the entry resolved here: the name is resolved once per call
      this.entries.set(tool, entry);
      return { tool };
    } catch (err) {
      return {
        error: `${(err as Error).message} Load the tool's group with load_tools and use the exact name it lists.`,
      };
    }
  }

  async invoke(
    tool: ToolSpec,
    args: unknown,
    opts: {
      sessionId: string;
      workspace: string;
      signal: AbortSignal;
      onChunk?: (text: string) => void;
      elicit?: ElicitHandler;
      deadline?: Deadline;
    },
  ) {
    const entry = this.entries.get(tool);
    const options: InvokeOptions = {
      sessionId: opts.sessionId,
      userId: "local",
      workspace: opts.workspace,
      signal: opts.signal,
      // StreamInvoke (progress chunks) only for tools that declare `streaming`; Invoke otherwise.
      ...(opts.onChunk && tool.streaming ? { onChunk: opts.onChunk } : {}),
      ...(opts.elicit ? { elicit: opts.elicit } : {}),
      ...(opts.deadline ? { deadline: opts.deadline } : {}),
    };
    const r = entry
      ? await this.host.invokeEntry(entry, args, options)
      : await this.host.invoke(tool.name, args, options);
    return {
      ok: r.ok,
      content: r.content,
      artifacts: r.artifacts,
      ...(r.error ? { error: `${r.error.code}: ${r.error.message}`, errorCode: r.error.code } : {}),
    };
  }

  async whenStarted(
    groups: readonly string[],
    signal: AbortSignal,
    onWait?: (groups: string[]) => void,
  ): Promise<void> {
    const wanted = new Set(groups);
    const starting = this.host
      .unavailable()
      .filter((u) => u.state === "starting" && wanted.has(u.id))
      .map((u) => u.id);
    if (starting.length === 0) return;
    onWait?.(starting);
    await Promise.all(starting.map((g) => this.host.settled(g, { signal })));
  }

  prompts(groups: readonly string[]): string[] {
    const wanted = new Set(groups);
    return this.host
      .prompts()
      .filter((p) => wanted.has(p.capabilityId))
      .map((p) => p.text);
  }

  status() {
    return this.host.status().map((s) => ({
      id: s.id,
      state: s.state,
      message: s.message,
      launch: s.launchMode,
      toolCount: s.toolCount,
      restarts: s.restarts,
      ...(s.sandbox ? { sandbox: s.sandbox } : {}),
      ...(s.process ? { process: s.process } : {}),
      ...(s.pid !== undefined ? { pid: s.pid } : {}),
      ...(s.workspace ? { workspace: s.workspace } : {}),
      ...(s.instances ? { instances: s.instances } : {}),
      ...(s.protocol ? { protocol: s.protocol } : {}),
      ...(s.warnings.length > 0 ? { warnings: s.warnings } : {}),
    }));
  }

  async artifact(sessionId: string, artifactId: string) {
    const found = await this.host.artifacts.read(artifactId, { userId: "local", sessionId });
    if (!found) return undefined;
    const { meta, data } = found;
    async function* chunks(): AsyncIterable<Uint8Array> {
      for (let i = 0; i < data.length; i += 64 * 1024) yield data.subarray(i, i + 64 * 1024);
    }
    return {
      info: {
        artifactId: meta.artifactId,
        filename: meta.filename,
        mimeType: meta.mimeType,
        sizeBytes: meta.sizeBytes,
      },
      data: chunks(),
    };
  }

  async deleteSessionArtifacts(sessionId: string): Promise<number> {
    const owner = { userId: "local", sessionId };
    let n = 0;
    for (const meta of await this.host.artifacts.list(owner))
      if (await this.host.artifacts.delete(meta.artifactId, owner)) n++;
    return n;
  }

  async close(): Promise<void> {
    await this.host.stop();
    this.cleanup();
  }
}

/**
 * The capability configs the host would run (built-ins merged with the config), validated, their
 * declared semantics checked; throws ConfigError listing every problem.
 */
export async function capabilityConfigs(
  req: Pick<HostRequest, "config" | "workspace" | "log" | "merge">,
): Promise<AnyCapabilityConfig[]> {
  return (await mergedConfigs(req)).configs;
}

async function mergedConfigs(
  req: Pick<HostRequest, "config" | "workspace" | "log" | "merge">,
): Promise<{ configs: AnyCapabilityConfig[]; own: Set<string> }> {
  const builtins = await builtinCapabilities(req.workspace, req.log);
  const merged = req.merge(builtins, req.config.capabilities);
  const own = ownCapabilityIds(builtins, merged);
  let configs;
  try {
    configs = validateCapabilityConfigs(merged, {
      file: req.config.source ?? "config",
      path: "capabilities",
      ...(req.config.source ? { baseDir: dirname(req.config.source) } : {}),
    });
  } catch (err) {
    const problems = (err as { problems?: { file?: string; path?: string; message: string }[] }).problems;
    if (problems)
      throw new ConfigError(
        problems.map((p) => ({
          file: p.file ?? req.config.source ?? "config",
          path: p.path ?? "capabilities",
          message: p.message,
        })),
      );
    throw err;
  }
  const semantics = semanticsIssues(merged, req.config);
  if (semantics.length > 0) throw new ConfigError(semantics);
  return { configs, own };
}

export async function openCapabilityHost(req: HostRequest): Promise<ToolHost> {
  const { configs, own } = await mergedConfigs(req);
  // Stdio MCP servers run sandboxed: each launch's proxy socket lives in a private (0700) directory.
  const runRoot = mkdtempSync(join(tmpdir(), "palisade-mcp-"));
  // Command capabilities too (with the same hidden directories), when the Engine probed for bubblewrap.
  const sandbox = req.sandboxProbe
    ? sandboxSettings(req.config, req.dataDir, req.sandboxProbe, req.egress, req.log, req.protect ?? [])
    : undefined;
  const host = new CapabilityHost({
    dataDir: req.dataDir,
    capabilities: configs,
    startupTimeoutMs: req.config.limits.capabilityStartTimeoutMs,
    onStatus: (s) =>
      req.log(
        `capability ${s.id}: ${s.state}${s.message ? ` (${s.message})` : ""}${s.state === "ready" && s.sandbox ? `; sandbox: ${s.sandbox}` : ""}`,
      ),
    mcpWrap: sandboxedStdio({
      workspace: req.workspace,
      protect: [
        req.dataDir,
        ...(req.config.source ? [req.config.source] : []),
        ...(req.config.shield.policyFile ? [req.config.shield.policyFile] : []),
        ...(req.protect ?? []),
      ],
      readOnly: req.config.sandbox.readOnly,
      writable: req.config.sandbox.writable,
      hide: req.config.sandbox.hide,
      runRoot,
      onEgress: (id, e) => {
        req.log(
          `capability ${id}: egress ${e.allowed ? "allowed" : "refused"} ${e.method} ${e.host}:${e.port}${e.reason ? ` (${e.reason})` : ""}`,
        );
        req.egress?.listener?.(id, e, []);
      },
    }),
    ...(sandbox ? { sandbox: sandbox.settings } : {}),
    // capability_idle_stop_s: 0 keeps local capabilities running from the Engine's start to its end.
    ...(req.lifecycle && req.config.limits.capabilityIdleStopMs > 0
      ? { startOnFirstUse: true, idleStopMs: req.config.limits.capabilityIdleStopMs }
      : {}),
    // Off the record nothing is written: those sessions' artifacts stay in memory.
    ...(req.otr ? { inMemorySessions: (id: string) => req.otr?.isOtr?.(id) ?? false } : {}),
    log: req.log,
  });
  const cleanup = (): void => {
    rmSync(runRoot, { recursive: true, force: true });
    sandbox?.remove();
  };
  try {
    // The Engine serves at once: an MCP server's tools arrive when it is ready (a slow one holds
    // up nobody; load_tools of its group waits for it). `capability list` and `call` wait.
    await host.start({ waitForMcp: req.lifecycle !== true });
  } catch (err) {
    cleanup();
    throw err;
  }
  return new HostAdapter(host, cleanup, own);
}
