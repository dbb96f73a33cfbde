import { createHash, randomBytes } from "node:crypto";
import { mkdtemp } from "node:fs/promises";
import { dirname, join } from "node:path";
import { RpcError, createClient } from "@palisade/protocol";
import type { ClientOptions } from "@palisade/protocol";
import { Capability } from "@palisade/protocol/capability";
import type { CapabilityClient } from "./artifacts/transfer.js";
import { parseDiscoveredTools, toolEntries } from "./catalog.js";
import type { ToolEntry } from "./catalog.js";
import type { CapabilityConfig } from "./config.js";
import { CapabilityError } from "./errors.js";
import { addressCredentials, describeChannel } from "./launch/channel.js";
import { dockerRunArgs, requireDocker, run } from "./launch/docker.js";
import { listenerOwner } from "./launch/listener.js";
import { CapabilityProcess, describeExit, freePort } from "./launch/process.js";
import { loadManifest } from "./manifest/load.js";
import type { Manifest } from "./manifest/types.js";
import { configuredWorkspace, describeSandbox, effectiveNetwork, hostFilter, planSandbox } from "./launch/sandbox.js";
import type { SandboxPlan, SandboxSettings } from "./launch/sandbox.js";
import { prepareSandbox } from "@palisade/sandbox";
import type { EgressEvent, PreparedSandbox } from "@palisade/sandbox";

export type CapabilityState = "starting" | "ready" | "not_ready" | "failed" | "not_configured";
export type LaunchMode = "command" | "address" | "image" | "none";

/** What `host.status()` reports per capability. */
export interface CapabilityStatus {
  id: string;
  state: CapabilityState;
  message: string;
  launchMode: LaunchMode;
  address?: string;
  /** How the Engine reaches it and who else can (e.g. "loopback TCP (Selu PORT convention), unauthenticated"). */
  channel: string;
  toolCount: number;
  restarts: number;
  /** Last lines of the process log, when it failed (command mode). */
  logTail?: string[];
  /** Manifest fields Palisade ignored, and an unauthenticated or unencrypted channel. */
  warnings: string[];
  /** `command` mode: the sandbox it runs in (what it sees, how limits were applied), or why none. */
  sandbox?: string;
}

export interface RuntimeOptions {
  logDir: string;
  startupTimeoutMs: number;
  healthIntervalMs: number;
  recheckIntervalMs: number;
  healthCallTimeoutMs: number;
  redact: (text: string) => string;
  onStatus: (status: CapabilityStatus) => void;
  /** Warnings for people (an unauthenticated channel). */
  log: (line: string) => void;
  /** A fresh socket path in the Engine's 0700 runtime directory for capability `id`. */
  socketFor: (id: string) => Promise<string>;
  docker: string;
  /** Sandboxes for `command` capabilities; none when absent. */
  sandbox?: SandboxSettings;
}

/** The port a Selu-convention server listens on inside its sandbox (reached through a relayed unix socket). */
const SANDBOX_PORT = 50051;

const DISCOVERY_ATTEMPTS = 2;
/** A process healthy this long gets its full restart budget back. */
const RESTART_BUDGET_RESET_MS = 10 * 60_000;

/** One configured capability: its manifest, process or address, client, health and tools. */
export class CapabilityRuntime {
  readonly config: CapabilityConfig;
  manifest: Manifest | undefined;
  client: CapabilityClient | undefined;
  tools: ToolEntry[] = [];
  private state: CapabilityState = "starting";
  private message = "starting";
  private address: string | undefined;
  private process: CapabilityProcess | undefined;
  /** The loopback port of a Selu-convention launch, until its listener is known to be ours. */
  private unverifiedPort: number | undefined;
  private container: string | undefined;
  private restarts = 0;
  private readyAt: number | undefined;
  private stopped = false;
  private recheck: NodeJS.Timeout | undefined;
  private logTail: string[] | undefined;
  private readonly opts: RuntimeOptions;
  private readonly settleWaiters: (() => void)[] = [];
  private sandboxed: PreparedSandbox | undefined;
  private sandboxNote: string | undefined;
  private sandboxWorkspace: string | undefined;
  /** Sessions with calls running in this process (count per session), to attribute egress. */
  readonly inflight = new Map<string, number>();
  /** The workspace a `filesystem: workspace` process is launched for. */
  readonly workspace: string | undefined;
  /** Names this process's socket directory: the id, plus the workspace for a per-workspace process. */
  readonly instanceId: string;

  constructor(config: CapabilityConfig, opts: RuntimeOptions, workspace?: string) {
    this.config = config;
    this.opts = opts;
    this.workspace = workspace ?? configuredWorkspace(config);
    this.instanceId = workspace === undefined ? config.id : `${config.id}.${createHash("sha256").update(workspace).digest("hex").slice(0, 10)}`;
  }

  get launchMode(): LaunchMode {
    if (this.config.command) return "command";
    if (this.config.address) return "address";
    if (this.config.image ?? this.manifest?.image) return "image";
    return "none";
  }

  get ready(): boolean {
    return this.state === "ready";
  }

  /** The workspace (real path) this process is sandboxed to; undefined when not sandboxed to one. */
  get sandboxedWorkspace(): string | undefined {
    return this.sandboxed ? this.sandboxWorkspace : undefined;
  }

  status(): CapabilityStatus {
    const channel = describeChannel(this.config, this.manifest?.image);
    return {
      id: this.config.id,
      state: this.state,
      message: this.message,
      launchMode: this.launchMode,
      ...(this.address ? { address: this.address } : {}),
      channel: channel.description,
      toolCount: this.tools.length,
      restarts: this.restarts,
      ...(this.logTail ? { logTail: this.logTail } : {}),
      warnings: [...(channel.warning ? [channel.warning] : []), ...(this.manifest?.warnings ?? [])],
      ...(this.sandboxNote ? { sandbox: this.sandboxNote } : {}),
    };
  }

  /**
   * Never throws: every failure becomes a state with a message. Resolves once the state has
   * settled (ready, not_ready, failed, not_configured), including restarts after early crashes.
   */
  async start(): Promise<void> {
    await this.begin();
    while (this.state === "starting" && !this.stopped) await new Promise<void>((resolve) => this.settleWaiters.push(resolve));
  }

  private async begin(): Promise<void> {
    if (this.config.enabled === false) return this.set("not_configured", "disabled in config (enabled: false)");
    try {
      const loaded = await loadManifest(this.config.manifest);
      // The config may change the network policy; the Shield, the sandbox and Docker all use the result.
      this.manifest = { ...loaded, network: effectiveNetwork(loaded, this.config) };
      if (this.manifest.id !== this.config.id) {
        throw new CapabilityError("invalid_config", `config id "${this.config.id}" does not match manifest id "${this.manifest.id}" in ${this.manifest.file}: make them equal`);
      }
      if (this.launchMode === "none") {
        return this.set("not_configured", `no launch mode: set command, address or image for capability ${this.config.id} in the Palisade config`);
      }
      await this.launch();
    } catch (err) {
      this.set("failed", this.opts.redact(err instanceof Error ? err.message : String(err)));
    }
  }

  private async launch(): Promise<void> {
    this.set("starting", "starting");
    const { address, client } = await this.spawnOrLocate();
    this.address = address;
    this.client?.close();
    // Short reconnect backoff: a process that is still starting must be seen soon after it listens.
    this.client = createClient(Capability, address, {
      defaultTimeoutMs: 120_000,
      ...client,
      channelOptions: { "grpc.initial_reconnect_backoff_ms": 100, "grpc.max_reconnect_backoff_ms": 1000, ...client.channelOptions },
    });
    const health = await this.waitHealthy();
    if (this.stopped) return;
    if (!health.ok) {
      if (health.exited) return; // the exit handler decides (restart or failed)
      if (health.foreign) {
        await this.process?.stop();
        this.set("failed", health.message);
        return;
      }
      this.set("not_ready", `capability ${this.config.id} is not ready: ${health.message}`);
      this.scheduleRecheck();
      return;
    }
    const manifest = this.manifest as Manifest;
    this.tools = manifest.toolSource === "dynamic" ? toolEntries(manifest, await this.discover()) : toolEntries(manifest);
    this.readyAt = Date.now();
    this.set("ready", health.message || "ready");
    this.scheduleRecheck();
  }

  private warnedChannel = false;

  /** Where the capability is and how the client reaches it (a launch secret, TLS). */
  private async spawnOrLocate(): Promise<{ address: string; client: ClientOptions }> {
    const c = this.config;
    const channel = describeChannel(c, this.manifest?.image);
    if (channel.warning && !this.warnedChannel) {
      this.warnedChannel = true;
      this.opts.log(`WARNING: ${channel.warning}`);
    }
    if (c.address) {
      const tls = addressCredentials(c);
      return { address: c.address, client: { channelCredentials: tls.credentials, channelOptions: tls.options } };
    }
    if (c.command) {
      const spec = { command: c.command, ...(c.cwd ? { cwd: c.cwd } : {}), env: c.env ?? {}, logFile: join(this.opts.logDir, `${c.id}.log`), redact: this.opts.redact };
      const plan = planSandbox(this.manifest as Manifest, c, this.opts.sandbox, this.workspace);
      if (!plan) this.sandboxed = undefined;
      if (!plan) this.sandboxNote = c.sandbox === false ? "none (sandbox: false in the config)" : this.opts.sandbox ? `none: ${this.opts.sandbox.probe.reason ?? "no sandbox"}` : undefined;
      let proc: CapabilityProcess;
      let located: { address: string; client: ClientOptions };
      if (c.protocol === "palisade") {
        // A fresh secret per launch: a restarted process never accepts the old one.
        const secret = randomBytes(32).toString("base64url");
        const socketPath = await this.opts.socketFor(this.instanceId);
        const inSandbox = plan ? await this.sandbox(plan, { sockets: [dirname(socketPath)], protect: [dirname(dirname(socketPath))] }) : undefined;
        proc = CapabilityProcess.start(inSandbox ? { ...spec, command: inSandbox.argv, env: { ...spec.env, ...inSandbox.env } } : spec, { kind: "socket", socketPath, secret });
        located = { address: `unix:${socketPath}`, client: { bearerToken: secret } };
      } else if (plan) {
        // A Selu-convention server listens on PORT inside its own network namespace; the Engine
        // reaches it through a unix socket relayed to that port, which no one else can reach.
        const inSandbox = await this.sandbox(plan, { inboundPort: SANDBOX_PORT });
        proc = CapabilityProcess.start({ ...spec, command: inSandbox.argv, env: { ...spec.env, ...inSandbox.env } }, { kind: "port", port: SANDBOX_PORT });
        located = { address: `unix:${inSandbox.inboundSocket ?? ""}`, client: {} };
      } else {
        const port = await freePort();
        this.unverifiedPort = port;
        proc = CapabilityProcess.start(spec, { kind: "port", port });
        located = { address: `127.0.0.1:${port}`, client: {} };
      }
      this.process = proc;
      const sandboxed = plan ? this.sandboxed : undefined;
      void proc.exited.then(async (info) => {
        await sandboxed?.close();
        await this.onExit(proc, describeExit(info));
      });
      return located;
    }
    const image = (c.image ?? this.manifest?.image) as string;
    await requireDocker(c.id, image, this.opts.docker);
    const port = await freePort();
    this.container = `palisade-${c.id}-${randomBytes(4).toString("hex")}`;
    const manifest = this.manifest as Manifest;
    if (manifest.network.mode === "none") await run(this.opts.docker, ["network", "create", "--internal", "palisade-none"]);
    const res = await run(this.opts.docker, dockerRunArgs({ image, containerName: this.container, manifest, hostPort: port, ...(c.workspace ? { workspaceDir: c.workspace } : {}), ...(c.env ? { env: c.env } : {}) }), 120_000);
    if (res.code !== 0) throw new CapabilityError("launch", `docker run ${image} failed: ${res.stderr.trim() || `exit code ${res.code}`}`);
    if (manifest.network.mode !== "none") return { address: `127.0.0.1:${port}`, client: {} };
    const ip = await run(this.opts.docker, ["inspect", "-f", "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}", this.container]);
    return { address: `${ip.stdout.trim()}:50051`, client: {} };
  }

  /** Prepares this launch's sandbox: the command line, its environment and its egress proxy. */
  private async sandbox(plan: SandboxPlan, extra: { sockets?: string[]; protect?: string[]; inboundPort?: number }): Promise<PreparedSandbox> {
    const settings = this.opts.sandbox as SandboxSettings;
    const c = this.config;
    const prepared = await prepareSandbox({
      spec: { ...plan.spec, sockets: [...(plan.spec.sockets ?? []), ...(extra.sockets ?? [])], protect: [...(plan.spec.protect ?? []), ...(extra.protect ?? [])] },
      resources: plan.resources,
      command: c.command ?? [],
      runDir: await mkdtemp(join(settings.runBase, `${c.id.slice(0, 20)}-`)),
      ...(plan.network.mode === "none"
        ? {}
        : { egress: { allowHost: hostFilter(plan.network), allowAddresses: settings.allowAddresses, onConnection: (e: EgressEvent) => settings.onEgress?.(c.id, e, [...this.inflight.keys()]) } }),
      ...(extra.inboundPort !== undefined ? { inboundPort: extra.inboundPort } : {}),
      ...(settings.probe.bwrap ? { bwrap: settings.probe.bwrap } : {}),
    });
    this.sandboxed = prepared;
    this.sandboxWorkspace = plan.workspace;
    this.sandboxNote = describeSandbox(plan, prepared.applied);
    return prepared;
  }

  private async onExit(proc: CapabilityProcess, how: string): Promise<void> {
    if (this.stopped || proc.isStopping || proc !== this.process) return;
    this.tools = [];
    // The budget is for crash loops: a process that ran healthy for a while earns it back.
    if (this.readyAt !== undefined && Date.now() - this.readyAt >= RESTART_BUDGET_RESET_MS) this.restarts = 0;
    this.readyAt = undefined;
    const budget = this.config.maxRestarts ?? 3;
    if (this.restarts < budget) {
      this.restarts++;
      this.set("starting", `process ${how}; restarting (${this.restarts}/${budget})`);
      await new Promise((r) => setTimeout(r, Math.min(200 * this.restarts, 2000)));
      if (this.stopped) return;
      await this.launch().catch((err: unknown) => this.set("failed", this.opts.redact(String(err))));
      return;
    }
    this.logTail = proc.lastLines(20);
    const tail = this.logTail.length > 0 ? `; last log lines:\n${this.logTail.join("\n")}` : "";
    this.set("failed", `capability ${this.config.id} process ${how} after ${this.restarts} restart${this.restarts === 1 ? "" : "s"}; see ${join(this.opts.logDir, `${this.config.id}.log`)}${tail}`);
  }

  /** Polls Healthcheck every `healthIntervalMs` until ready, the startup timeout, or process exit. */
  private async waitHealthy(): Promise<{ ok: boolean; message: string; exited?: boolean; foreign?: boolean }> {
    const deadline = Date.now() + this.opts.startupTimeoutMs;
    let last = "no answer to Healthcheck yet";
    let answered = false;
    let exited = false;
    const proc = this.process;
    void proc?.exited.then(() => (exited = true));
    while (!this.stopped) {
      if (exited && this.config.command) return { ok: false, message: "process exited", exited: true };
      const remaining = deadline - Date.now();
      if (remaining <= 0) return { ok: false, message: `${last} (after ${this.opts.startupTimeoutMs} ms)` };
      const port = this.unverifiedPort;
      if (port !== undefined && proc?.pid !== undefined) {
        // Nothing is sent to the port before the listener is known to be the launched process's.
        const owner = await listenerOwner(port, proc.pid);
        if (owner.kind === "foreign") {
          const who = owner.pid === undefined ? "a process of another user" : `process ${owner.pid}`;
          return {
            ok: false,
            foreign: true,
            message: `capability ${this.config.id}: 127.0.0.1:${port} is held by ${who}, not by the capability the Engine launched; refusing to send it anything (another local process took the port first)`,
          };
        }
        if (owner.kind === "none") {
          last = `nothing listens on 127.0.0.1:${port} (its PORT) yet`;
          await new Promise((r) => setTimeout(r, Math.min(this.opts.healthIntervalMs, Math.max(0, deadline - Date.now()))));
          continue;
        }
        this.unverifiedPort = undefined;
      }
      const res = await this.check(Math.min(this.opts.healthCallTimeoutMs, remaining));
      if (res.ok) return res;
      // The server's own "not ready" answer says more than a poll cut short by the startup deadline.
      if (res.answered === true || !answered) last = res.message;
      answered ||= res.answered === true;
      await new Promise((r) => setTimeout(r, Math.min(this.opts.healthIntervalMs, Math.max(0, deadline - Date.now()))));
    }
    return { ok: false, message: "stopped" };
  }

  private async check(timeoutMs: number): Promise<{ ok: boolean; message: string; answered?: boolean }> {
    if (!this.client) return { ok: false, message: "no client" };
    try {
      const res = await this.client.healthcheck({}, { timeoutMs });
      return res.ready ? { ok: true, message: res.message, answered: true } : { ok: false, message: res.message || "Healthcheck says ready: false", answered: true };
    } catch (err) {
      const e = RpcError.from(err);
      return { ok: false, message: `Healthcheck failed: ${e.codeName}: ${e.message}` };
    }
  }

  private scheduleRecheck(): void {
    clearTimeout(this.recheck);
    if (this.stopped) return;
    this.recheck = setTimeout(() => {
      void this.recheckOnce();
    }, this.opts.recheckIntervalMs);
    this.recheck.unref();
  }

  private async recheckOnce(): Promise<void> {
    if (this.stopped || (this.state !== "ready" && this.state !== "not_ready")) return;
    const res = await this.check(this.opts.healthCallTimeoutMs);
    if (this.stopped || (this.state !== "ready" && this.state !== "not_ready")) return;
    if (res.ok && this.state === "not_ready") {
      const manifest = this.manifest as Manifest;
      try {
        this.tools = manifest.toolSource === "dynamic" ? toolEntries(manifest, await this.discover()) : toolEntries(manifest);
        this.set("ready", res.message || "ready");
      } catch (err) {
        this.set("failed", this.opts.redact(err instanceof Error ? err.message : String(err)));
        return;
      }
    } else if (!res.ok) {
      this.set("not_ready", `capability ${this.config.id} is not ready: ${res.message}`);
    }
    this.scheduleRecheck();
  }

  /** Calls the discovery tool; two attempts, then a `discovery` error. */
  private async discover(): Promise<ReturnType<typeof parseDiscoveredTools>> {
    const manifest = this.manifest as Manifest;
    const source = `discovery tool ${manifest.discoveryToolName} of capability ${manifest.id}`;
    let lastError: unknown;
    for (let attempt = 1; attempt <= DISCOVERY_ATTEMPTS; attempt++) {
      try {
        const res = await (this.client as CapabilityClient).invoke(
          { toolName: manifest.discoveryToolName, argsJson: new TextEncoder().encode("{}"), configJson: new TextEncoder().encode("{}"), capabilityId: manifest.id },
          { timeoutMs: this.config.timeoutMs ?? 30_000 },
        );
        if (res.error) throw new CapabilityError("discovery", `${source} failed: ${res.error}`);
        let parsed: unknown;
        try {
          parsed = JSON.parse(new TextDecoder().decode(res.resultJson));
        } catch {
          throw new CapabilityError("discovery", `${source} must return a JSON array of tools, got non-JSON text`);
        }
        return parseDiscoveredTools(parsed, source);
      } catch (err) {
        lastError = err instanceof CapabilityError ? err : new CapabilityError("discovery", `${source} failed: ${RpcError.from(err).message}`, { cause: err });
      }
    }
    throw lastError;
  }

  private set(state: CapabilityState, message: string): void {
    const changed = state !== this.state || message !== this.message;
    this.state = state;
    this.message = message;
    if (changed) this.opts.onStatus(this.status());
    if (state !== "starting") this.wakeSettled();
  }

  private wakeSettled(): void {
    for (const wake of this.settleWaiters.splice(0)) wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeSettled();
    clearTimeout(this.recheck);
    this.client?.close();
    await this.process?.stop();
    await this.sandboxed?.close();
    if (this.container) await run(this.opts.docker, ["rm", "--force", this.container]);
  }
}
