import { join } from "node:path";
import type { ArtifactStore } from "./artifacts/store.js";
import { DiskArtifactStore } from "./artifacts/store.js";
import { MemoryArtifactStore, SessionRoutedArtifactStore } from "./artifacts/memory.js";
import { resolveTool } from "./catalog.js";
import type { ToolEntry } from "./catalog.js";
import { isMcpConfig } from "./config.js";
import type { AnyCapabilityConfig } from "./config.js";
import { SecretRedactor, UserCredentialStore, createCredentialSource } from "./credentials.js";
import type { CredentialSource } from "./credentials.js";
import { CapabilityError } from "./errors.js";
import { AsyncQueue } from "@palisade/protocol";
import { DEFAULT_INVOKE_TIMEOUT_MS, failedCall, invokeTool } from "./invoke.js";
import type { InvokeOptions, InvokeResult } from "./invoke.js";
import type { Manifest } from "./manifest/types.js";
import type { StdioWrapper } from "./mcp/launch.js";
import { McpRuntime } from "./mcp/runtime.js";
import type { McpServerInfo } from "./mcp/runtime.js";
import { RunDir, defaultRunBase } from "./launch/run-dir.js";
import { CapabilityRuntime } from "./runtime.js";
import type { CapabilityStatus, RuntimeOptions } from "./runtime.js";
import type { SandboxSettings } from "./launch/sandbox.js";
import { WorkspaceProcesses } from "./workspaces.js";

export interface CapabilityHostOptions {
  /** Palisade data directory: artifacts and user credentials live under it by default. */
  dataDir: string;
  capabilities: AnyCapabilityConfig[];
  /**
   * Default: system values from each config's `credentials`, else from `env` by the declared
   * name; user values from `<dataDir>/credentials.json`.
   */
  credentials?: CredentialSource;
  /** Environment for system-scope credentials of the default source (default process.env). */
  env?: Record<string, string | undefined>;
  /** Default: a DiskArtifactStore in `<dataDir>/artifacts`. */
  artifacts?: ArtifactStore;
  /**
   * Sessions whose artifacts must never be written to disk (off the record): theirs are kept in
   * memory only (see MemoryArtifactStore) and dropped with `dropSessionArtifacts`.
   */
  inMemorySessions?: (sessionId: string) => boolean;
  /** Capability process logs (`<id>.log`); default `<dataDir>/logs/capabilities`. */
  logDir?: string;
  /** Wait for the first `ready: true` (30 s). */
  startupTimeoutMs?: number;
  /** Healthcheck poll interval while starting (200 ms). */
  healthIntervalMs?: number;
  /** Re-check interval once started (10 s). */
  recheckIntervalMs?: number;
  /** Deadline of one Healthcheck call (2 s). */
  healthCallTimeoutMs?: number;
  /** Called on every state change. */
  onStatus?: (status: CapabilityStatus) => void;
  /** Docker CLI (default `docker`). */
  docker?: string;
  /** Turns a stdio MCP server's command line into the spawned one (e.g. a sandbox). */
  mcpWrap?: StdioWrapper;
  /**
   * Directory in which the Engine's 0700 runtime directory for capability sockets is created
   * (default: $XDG_RUNTIME_DIR when private, else the system temp dir). Removed on stop.
   */
  runtimeBase?: string;
  /** Warnings for people, e.g. a capability reachable without authentication (default: stderr). */
  log?: (line: string) => void;
  /** Run `command` capabilities in bubblewrap sandboxes with these settings (none when absent). */
  sandbox?: SandboxSettings;
  /** Sandboxed workspace processes kept per capability at most (8); the least recently used is stopped. */
  maxWorkspaceProcesses?: number;
  /**
   * `command` capabilities whose tools are in their manifest start on their first call instead
   * of in start() (default false: start() starts every capability).
   */
  startOnFirstUse?: boolean;
  /** A local process (`command`) without calls this long is stopped; the next call starts it again. 0 (default): never. */
  idleStopMs?: number;
  /** MCP servers: the wait before the first restart (1 s), doubling with each further one. */
  mcpRestartBackoffMs?: number;
}

/** One streamed event of `invokeStream`. */
export type InvokeEvent = { type: "chunk"; text: string } | { type: "result"; result: InvokeResult };

/** A capability prompt (`prompt.md`) to add to the system prompt while its tools are loaded. */
export interface CapabilityPrompt {
  capabilityId: string;
  text: string;
}

/**
 * The Engine's side of Selu: runs the configured capabilities, gates them on health,
 * exposes their tools and invokes them with credentials and artifacts handled.
 */
export class CapabilityHost {
  readonly artifacts: ArtifactStore;
  private readonly runtimes: Array<CapabilityRuntime | McpRuntime>;
  private catalogCache: { parts: Array<readonly ToolEntry[] | undefined>; entries: ToolEntry[] } | undefined;
  private readonly credentials: CredentialSource;
  private readonly redactor = new SecretRedactor();
  private sweeper: NodeJS.Timeout | undefined;
  private runDir: Promise<RunDir> | undefined;
  private readonly runtimeBase: string | undefined;
  private readonly workspaces: WorkspaceProcesses;
  private readonly startupTimeoutMs: number;
  /** Each capability's first start, by id (its promise settles with its state). */
  private readonly starts = new Map<string, Promise<void>>();

  constructor(options: CapabilityHostOptions) {
    this.startupTimeoutMs = options.startupTimeoutMs ?? 30_000;
    const disk = options.artifacts ?? new DiskArtifactStore({ dir: join(options.dataDir, "artifacts") });
    const inMemory = options.inMemorySessions;
    this.artifacts = inMemory
      ? new SessionRoutedArtifactStore(disk, new MemoryArtifactStore({ maxBytes: disk.maxBytes }), inMemory)
      : disk;
    const system = Object.fromEntries(
      options.capabilities.map((c) => [c.id, isMcpConfig(c) ? {} : (c.credentials ?? {})]),
    );
    for (const values of Object.values(system)) for (const v of Object.values(values)) this.redactor.add(v);
    this.credentials =
      options.credentials ??
      createCredentialSource({
        system,
        env: options.env ?? process.env,
        users: new UserCredentialStore(join(options.dataDir, "credentials.json")),
      });
    const runtimeOptions: RuntimeOptions = {
      logDir: options.logDir ?? join(options.dataDir, "logs", "capabilities"),
      startupTimeoutMs: this.startupTimeoutMs,
      healthIntervalMs: options.healthIntervalMs ?? 200,
      recheckIntervalMs: options.recheckIntervalMs ?? 10_000,
      healthCallTimeoutMs: options.healthCallTimeoutMs ?? 2_000,
      redact: (t: string) => this.redactor.redact(t),
      onStatus: options.onStatus ?? (() => undefined),
      log: options.log ?? ((line: string) => void process.stderr.write(`${line}\n`)),
      socketFor: async (id: string) =>
        (await this.runDirectory()).socketFor(
          id,
          options.capabilities.findIndex((c) => c.id === id),
        ),
      docker: options.docker ?? "docker",
      ...(options.sandbox ? { sandbox: options.sandbox } : {}),
      startOnFirstUse: options.startOnFirstUse ?? false,
      idleStopMs: options.idleStopMs ?? 0,
    };
    const mcpOptions = {
      ...runtimeOptions,
      credentials: this.credentials,
      redactor: this.redactor,
      artifacts: this.artifacts,
      ...(options.mcpWrap ? { wrap: options.mcpWrap } : {}),
      ...(options.mcpRestartBackoffMs !== undefined ? { restartBackoffMs: options.mcpRestartBackoffMs } : {}),
      oauthFile: join(options.dataDir, "credentials.json"),
    };
    this.runtimes = options.capabilities.map((c) =>
      isMcpConfig(c) ? new McpRuntime(c, mcpOptions) : new CapabilityRuntime(c, runtimeOptions),
    );
    this.runtimeBase = options.runtimeBase;
    this.workspaces = new WorkspaceProcesses(
      { ...runtimeOptions, onStatus: () => undefined },
      options.maxWorkspaceProcesses ?? 8,
    );
  }

  /**
   * Starts every capability and waits for each to be ready or to fail; never throws. With
   * `waitForMcp: false` MCP servers are started without waiting for them: their tools join the
   * catalog when each is ready (`settled` says when); a slow server holds up nobody.
   */
  async start(options: { waitForMcp?: boolean } = {}): Promise<CapabilityStatus[]> {
    // Expired artifacts go at start and then every 10 minutes.
    void this.artifacts.sweep().catch(() => undefined);
    this.sweeper = setInterval(() => void this.artifacts.sweep().catch(() => undefined), 10 * 60_000);
    this.sweeper.unref();
    const waited: Promise<void>[] = [];
    for (const r of this.runtimes) {
      // start() never throws: it settles in a state with a message
      const started = r.start();
      this.starts.set(r.config.id, started);
      if (options.waitForMcp !== false || !(r instanceof McpRuntime)) waited.push(started);
    }
    await Promise.all(waited);
    return this.status();
  }

  /**
   * Resolves once capability `id`'s first start has settled (ready, failed, not ready), or after
   * `timeoutMs` or on `signal`, whichever comes first; at once for an unknown id.
   */
  async settled(id: string, opts: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<void> {
    const started = this.starts.get(id);
    if (!started) return;
    const timeoutMs = opts.timeoutMs ?? this.startupTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    await Promise.race([
      started,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
        timer.unref();
      }),
      new Promise<void>((resolve) => {
        if (opts.signal?.aborted) return resolve();
        onAbort = resolve;
        opts.signal?.addEventListener("abort", onAbort, { once: true });
      }),
    ]);
    clearTimeout(timer);
    if (onAbort) opts.signal?.removeEventListener("abort", onAbort);
  }

  async stop(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.runtimes.map((r) => r.stop()), this.workspaces.stop()]);
    const dir = this.runDir;
    this.runDir = undefined;
    if (dir) await (await dir.catch(() => undefined))?.remove();
  }

  /** The 0700 runtime directory, created on the first launch that needs a socket. */
  private runDirectory(): Promise<RunDir> {
    this.runDir ??= (async () => RunDir.create(this.runtimeBase ?? (await defaultRunBase())))();
    return this.runDir;
  }

  status(): CapabilityStatus[] {
    return this.runtimes.map((r) => {
      const s = r.status();
      const instances = r instanceof CapabilityRuntime ? this.workspaces.instances(r.config.id) : [];
      return instances.length > 0 ? { ...s, instances } : s;
    });
  }

  /** Tools of every ready capability. */
  catalog(): ToolEntry[] {
    // Asked on every turn and tool call: rebuilt only when a capability's readiness or tool
    // list changed (a runtime replaces its `tools` array, never edits it). Callers must not
    // modify the returned array.
    const cached = this.catalogCache;
    if (
      cached &&
      cached.parts.length === this.runtimes.length &&
      this.runtimes.every((r, i) => (r.available ? r.tools : undefined) === cached.parts[i])
    ) {
      return cached.entries;
    }
    const parts = this.runtimes.map((r) => (r.available ? r.tools : undefined));
    const entries = parts.flatMap((p) => p ?? []);
    this.catalogCache = { parts, entries };
    return entries;
  }

  /** Capabilities whose tools cannot be called now (not ready, failed, restarting; not those stopped when idle). */
  unavailable(): { id: string; state: CapabilityStatus["state"]; restarts: number }[] {
    return this.runtimes
      .filter((r) => !r.available)
      .map((r) => {
        const s = r.status();
        return { id: r.config.id, state: s.state, restarts: s.restarts };
      });
  }

  /** Full name, or a bare name that is unique; throws CapabilityError (`unknown_tool`, `ambiguous_tool`, `not_ready`). */
  resolve(name: string): ToolEntry {
    try {
      return resolveTool(this.catalog(), name);
    } catch (err) {
      // A known capability that is not ready gives a clearer answer than "unknown tool".
      const runtime = this.runtimes.find((r) => name.startsWith(`${r.config.id}__`));
      if (runtime && !runtime.available) throw new CapabilityError("not_ready", notReadyMessage(runtime.status()));
      throw err;
    }
  }

  /** `prompt.md` texts (an MCP server's instructions) of ready capabilities. */
  prompts(): CapabilityPrompt[] {
    return this.runtimes.flatMap((r) => {
      const text = r instanceof McpRuntime ? r.server?.instructions : r.manifest?.prompt;
      return r.available && text ? [{ capabilityId: r.config.id, text }] : [];
    });
  }

  /** Name, version and capabilities of a connected MCP server; undefined for Selu capabilities. */
  mcpServer(capabilityId: string): McpServerInfo | undefined {
    const r = this.runtimes.find((x) => x.config.id === capabilityId);
    return r instanceof McpRuntime ? r.server : undefined;
  }

  manifest(capabilityId: string): Manifest | undefined {
    return this.runtimes.find((r) => r.config.id === capabilityId)?.manifest;
  }

  /**
   * Calls a tool by name. Every failure is returned as `{ok: false, error}`, never thrown. The
   * arguments are not validated here: the caller validates them against the tool's schema once.
   */
  async invoke(name: string, args: unknown, opts: InvokeOptions): Promise<InvokeResult> {
    let entry: ToolEntry;
    try {
      entry = this.resolve(name);
    } catch (err) {
      const e = err instanceof CapabilityError ? err : new CapabilityError("unknown_tool", String(err));
      return failedCall(e.code, e.message);
    }
    return this.invokeEntry(entry, args, opts);
  }

  /** Calls a tool already resolved (resolve()), without resolving its name again. */
  async invokeEntry(entry: ToolEntry, args: unknown, opts: InvokeOptions): Promise<InvokeResult> {
    const found = this.runtimes.find((r) => r.config.id === entry.capabilityId);
    if (!found) {
      const message = `${entry.fullName}: no capability ${entry.capabilityId} is configured`;
      return failedCall("unknown_tool", message);
    }
    if (found instanceof McpRuntime) return found.invoke(entry, args, opts);
    const primary = found;
    if (!primary.available || !primary.manifest) {
      const message = notReadyMessage(primary.status());
      return failedCall("not_ready", message);
    }
    // A sandboxed workspace capability sees one workspace: another session's workspace gets its own process.
    let runtime = primary;
    let workspace = opts.workspace;
    let release = (): void => undefined;
    if (primary.sandboxedWorkspace !== undefined && opts.workspace !== undefined) {
      const found = await this.workspaces.forWorkspace(primary, opts.workspace);
      if ("error" in found) {
        return failedCall("not_ready", found.error);
      }
      runtime = found.runtime;
      workspace = found.workspace;
      release = found.release;
    }
    // Not started yet, or stopped when idle: it starts for this call.
    await runtime.ensureStarted();
    if (!runtime.ready || !runtime.client || !runtime.manifest) {
      release();
      const message = notReadyMessage(runtime.status());
      return failedCall("not_ready", message);
    }
    const c = runtime.config;
    const call = runtime.beginCall(opts.sessionId);
    const exitOf = runtime.exitWatch();
    try {
      const result = await invokeTool(
        {
          entry,
          manifest: runtime.manifest,
          client: runtime.client,
          defaultTimeoutMs: c.perToolTimeoutMs?.[entry.name] ?? c.timeoutMs ?? DEFAULT_INVOKE_TIMEOUT_MS,
          credentials: this.credentials,
          artifacts: this.artifacts,
          redactor: this.redactor,
          extraConfig: {
            ...(c.config ?? {}),
            ...(workspace !== undefined && runtime.manifest.filesystem === "workspace" ? { workspace } : {}),
          },
        },
        args,
        { ...opts, signal: opts.signal ? AbortSignal.any([opts.signal, call.signal]) : call.signal },
      );
      if (result.error?.code === "transport") {
        const how = await exitOf(1000);
        if (!how) return result;
        const message = `${result.error.message}: ${how}`;
        return { ...result, content: message, error: { ...result.error, message } };
      }
      if (result.error?.code !== "timeout") return result;
      // A call past its deadline may leave the process stuck (a runaway loop): it is killed and restarted.
      const killed = runtime.kill(`did not finish ${entry.fullName} within its deadline`);
      if (!killed) return result;
      const message = `${result.error.message}; ${killed}`;
      return { ...result, content: message, error: { code: "timeout", message } };
    } finally {
      call.end();
      release();
    }
  }

  /** StreamInvoke as an async iterable: text chunks as they arrive, then the result. */
  invokeStream(name: string, args: unknown, opts: Omit<InvokeOptions, "onChunk">): AsyncIterable<InvokeEvent> {
    const queue = new AsyncQueue<InvokeEvent>();
    void this.invoke(name, args, { ...opts, onChunk: (text) => queue.push({ type: "chunk", text }) }).then((result) => {
      queue.push({ type: "result", result });
      queue.end();
    });
    return queue;
  }
}

function notReadyMessage(s: CapabilityStatus): string {
  return s.message.startsWith(`capability ${s.id} `) ? s.message : `capability ${s.id} is not ready: ${s.message}`;
}
