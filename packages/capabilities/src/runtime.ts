import { createHash, randomBytes } from "node:crypto";
import { dirname, join } from "node:path";
import { Code, RpcError, createClient } from "@palisade/protocol";
import type { ClientOptions } from "@palisade/protocol";
import { Capability } from "@palisade/protocol/capability";
import type { CapabilityClient } from "./artifacts/transfer.js";
import { toolEntries, withConfigSemantics } from "./catalog.js";
import type { ToolEntry } from "./catalog.js";
import type { CapabilityConfig } from "./config.js";
import { discoverTools } from "./discover.js";
import { CapabilityError } from "./errors.js";
import { addressCredentials, describeChannel } from "./launch/channel.js";
import { dockerRunArgs, requireDocker, run } from "./launch/docker.js";
import { listenerOwner } from "./launch/listener.js";
import { CapabilityProcess, describeExit, freePort } from "./launch/process.js";
import type { ExitInfo } from "./launch/process.js";
import { loadManifest } from "./manifest/load.js";
import type { Manifest } from "./manifest/types.js";
import {
  configuredWorkspace,
  describeSandbox,
  effectiveNetwork,
  planSandbox,
  prepareCapabilitySandbox,
} from "./launch/sandbox.js";
import type { SandboxPlan, SandboxSettings } from "./launch/sandbox.js";
import { IdleTimer, RestartBudget } from "./supervise.js";
import type { PreparedSandbox } from "@palisade/sandbox";

/** `stopped`: a local process not running now (not started yet, or stopped when idle); it starts on the next call. */
export type CapabilityState = "starting" | "ready" | "not_ready" | "stopped" | "failed" | "not_configured";
export type LaunchMode = "command" | "address" | "image" | "none";
/** Whether the local process of a `command` capability runs. */
export type ProcessState = "started" | "starting" | "stopped";

/** One per-workspace process of a capability (a sandbox binds one workspace). */
export interface InstanceStatus {
  workspace: string;
  state: CapabilityState;
  process: ProcessState;
  pid?: number;
  message: string;
}

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
  /** `command` mode: whether its process runs, and its pid when it does. */
  process?: ProcessState;
  pid?: number;
  /** The workspace its process is bound to (sandboxed `filesystem: workspace`). */
  workspace?: string;
  /** Processes started for other sessions' workspaces. */
  instances?: InstanceStatus[];
  /** MCP servers: the protocol revision in use, e.g. "MCP 2026-07-28 (stateless)". */
  protocol?: string;
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
  /** `command` capabilities with tools in their manifest start on their first call, not at start. */
  startOnFirstUse?: boolean;
  /** A `command` process without calls this long is stopped (it starts again on the next call); 0: never. */
  idleStopMs?: number;
}

/** The port a Selu-convention server listens on inside its sandbox (reached through a relayed unix socket). */
const SANDBOX_PORT = 50051;

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
  private readonly budget: RestartBudget;
  private readonly idle: IdleTimer;
  /** Aborted (reason: a `restarted` CapabilityError) when the process is killed under its calls. */
  private calls = new AbortController();
  /** Why the process is being killed; its exit handler reports it. */
  private killReason: string | undefined;
  private launching: Promise<void> | undefined;
  /** The workspace a sandbox will bind, known before the first launch (start on first use). */
  private plannedWorkspace: string | undefined;
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
    this.instanceId =
      workspace === undefined
        ? config.id
        : `${config.id}.${createHash("sha256").update(workspace).digest("hex").slice(0, 10)}`;
    this.budget = new RestartBudget(config.maxRestarts ?? 3);
    this.idle = new IdleTimer(opts.idleStopMs ?? 0, () => void this.idleStop());
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

  /** Its tools can be called: it is ready, or stopped (or being started for a call) and starts on the call. */
  get available(): boolean {
    if (this.state === "ready") return true;
    return (
      (this.state === "stopped" || (this.state === "starting" && this.launching !== undefined)) && this.tools.length > 0
    );
  }

  /** The workspace (real path) this process is sandboxed to; undefined when not sandboxed to one. */
  get sandboxedWorkspace(): string | undefined {
    return this.sandboxed ? this.sandboxWorkspace : this.plannedWorkspace;
  }

  /** The process's pid while it runs. */
  get pid(): number | undefined {
    const proc = this.process;
    return proc && !proc.hasExited ? proc.pid : undefined;
  }

  private processState(): ProcessState | undefined {
    if (this.launchMode !== "command") return undefined;
    if (this.state === "starting") return "starting";
    return (this.state === "ready" || this.state === "not_ready") && this.pid !== undefined ? "started" : "stopped";
  }

  /**
   * For a call that failed in transport: a function saying how the process serving it ended, if
   * it ends within `waitMs` (a process killed mid-call drops the connection first), e.g. by the
   * memory cgroup at its limit. Take it before the call: the process may be restarted after.
   */
  exitWatch(): (waitMs: number) => Promise<string | undefined> {
    const proc = this.process;
    const sandbox = this.sandboxed;
    return async (waitMs) => {
      if (!proc) return undefined;
      let timer: NodeJS.Timeout | undefined;
      const info = await Promise.race([
        proc.exited,
        new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), waitMs))),
      ]);
      clearTimeout(timer);
      return info ? `its process was ${describeEnd(info, sandbox)}` : undefined;
    };
  }

  status(): CapabilityStatus {
    const channel = describeChannel(this.config, this.manifest?.image);
    const proc = this.processState();
    const pid = proc === "stopped" ? undefined : this.pid;
    return {
      id: this.config.id,
      state: this.state,
      message: this.message,
      launchMode: this.launchMode,
      ...(this.address ? { address: this.address } : {}),
      channel: channel.description,
      toolCount: this.tools.length,
      restarts: this.budget.restarts(),
      ...(this.logTail ? { logTail: this.logTail } : {}),
      warnings: [...(channel.warning ? [channel.warning] : []), ...(this.manifest?.warnings ?? [])],
      ...(this.sandboxNote ? { sandbox: this.sandboxNote } : {}),
      ...(proc ? { process: proc } : {}),
      ...(pid !== undefined ? { pid } : {}),
      ...(this.sandboxedWorkspace ? { workspace: this.sandboxedWorkspace } : {}),
    };
  }

  /**
   * Never throws: every failure becomes a state with a message. Resolves once the state has
   * settled (ready, not_ready, failed, not_configured), including restarts after early crashes.
   */
  async start(): Promise<void> {
    await this.begin();
    await this.settled();
  }

  /**
   * Starts a stopped process (not started yet, or stopped when idle) and resolves once its state
   * has settled; never throws. Concurrent callers share one launch.
   */
  async ensureStarted(): Promise<void> {
    if (this.state === "stopped" && !this.stopped) {
      this.launching ??= this.launch()
        .catch((err: unknown) => this.set("failed", this.opts.redact(err instanceof Error ? err.message : String(err))))
        .finally(() => (this.launching = undefined));
      await this.launching;
    }
    await this.settled();
  }

  private async settled(): Promise<void> {
    while (this.state === "starting" && !this.stopped)
      await new Promise<void>((resolve) => this.settleWaiters.push(resolve));
  }

  /**
   * A call on this process: the signal aborts (reason: a `restarted` CapabilityError) when the
   * process is killed under it; no idle stop while it runs. `end` when the call is done.
   */
  beginCall(sessionId: string): { signal: AbortSignal; end: () => void } {
    const signal = this.calls.signal;
    this.inflight.set(sessionId, (this.inflight.get(sessionId) ?? 0) + 1);
    const idle = this.idle.begin();
    let ended = false;
    return {
      signal,
      end: () => {
        if (ended) return;
        ended = true;
        const left = (this.inflight.get(sessionId) ?? 1) - 1;
        if (left > 0) this.inflight.set(sessionId, left);
        else this.inflight.delete(sessionId);
        idle();
      },
    };
  }

  private async begin(): Promise<void> {
    if (this.config.enabled === false) return this.set("not_configured", "disabled in config (enabled: false)");
    try {
      const loaded = await loadManifest(this.config.manifest);
      // The config may change the network policy; the Shield, the sandbox and Docker all use the result.
      this.manifest = { ...loaded, network: effectiveNetwork(loaded, this.config) };
      if (this.manifest.id !== this.config.id) {
        throw new CapabilityError(
          "invalid_config",
          `config id "${this.config.id}" does not match manifest id "${this.manifest.id}" in ${this.manifest.file}: make them equal`,
        );
      }
      if (this.launchMode === "none") {
        return this.set(
          "not_configured",
          `no launch mode: set command, address or image for capability ${this.config.id} in the Palisade config`,
        );
      }
      if (this.opts.startOnFirstUse && this.launchMode === "command" && this.manifest.toolSource !== "dynamic") {
        // Tools come from the manifest: nothing needs the process before the first call.
        const plan = planSandbox(this.manifest, this.config, this.opts.sandbox, this.workspace);
        this.plannedWorkspace = plan?.workspace;
        this.sandboxNote = plan ? `${describeSandbox(plan, [])}limits applied when it starts` : this.noSandboxNote();
        this.tools = withConfigSemantics(toolEntries(this.manifest), this.config.semantics);
        return this.set("stopped", "not started yet: starts on its first call");
      }
      await this.launch();
    } catch (err) {
      this.set("failed", this.opts.redact(err instanceof Error ? err.message : String(err)));
    }
  }

  private async launch(): Promise<void> {
    this.set("starting", "starting");
    this.killReason = undefined;
    this.calls = new AbortController();
    const { address, client } = await this.spawnOrLocate();
    this.address = address;
    this.client?.close();
    // Short reconnect backoff: a process that is still starting must be seen soon after it listens.
    this.client = createClient(Capability, address, {
      defaultTimeoutMs: 120_000,
      ...client,
      channelOptions: {
        "grpc.initial_reconnect_backoff_ms": 100,
        "grpc.max_reconnect_backoff_ms": 1000,
        ...client.channelOptions,
      },
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
    this.tools = withConfigSemantics(
      manifest.toolSource === "dynamic" ? toolEntries(manifest, await this.discover()) : toolEntries(manifest),
      this.config.semantics,
    );
    this.set("ready", health.message || "ready");
    this.scheduleRecheck();
    if (this.launchMode === "command") this.idle.arm();
  }

  /** Stops an idle `command` process; its tools stay listed and the next call starts it again. */
  private async idleStop(): Promise<void> {
    const proc = this.process;
    if (this.stopped || !proc || (this.state !== "ready" && this.state !== "not_ready")) return;
    this.idle.cancel();
    clearTimeout(this.recheck);
    const seconds = Math.round((this.opts.idleStopMs ?? 0) / 1000);
    this.set("stopped", `stopped after ${seconds} s without calls: starts again on its next call`);
    this.client?.close();
    this.client = undefined;
    this.opts.log(`capability ${this.instanceId}: stopped after ${seconds} s without calls`);
    await proc.stop();
  }

  /**
   * Kills a process that stopped answering or overran a call's deadline: SIGKILL to its process
   * group (the sandbox goes with it). Calls running on it end with the returned message; its exit
   * restarts it within the restart budget, else the capability is failed (shown as down).
   * Returns undefined when there is nothing to kill (not a local process, or already being killed).
   */
  kill(why: string): string | undefined {
    const proc = this.process;
    if (
      this.stopped ||
      !proc ||
      proc.isStopping ||
      proc.hasExited ||
      this.killReason !== undefined ||
      this.launchMode !== "command"
    )
      return undefined;
    this.killReason = why;
    const restart = this.budget.allows();
    const message = restart
      ? `capability ${this.config.id} ${why}; the Engine killed it and is restarting it (restart ${this.budget.restarts() + 1} of ${this.budget.max}). The call did not complete: try it again.`
      : `capability ${this.config.id} ${why}; the Engine killed it and its restart budget (${this.budget.max}) is spent, so it stays down. The call did not complete.`;
    this.opts.log(`capability ${this.instanceId}: ${why}; killing process group ${proc.pid ?? "?"}`);
    this.idle.cancel();
    clearTimeout(this.recheck);
    this.calls.abort(new CapabilityError("restarted", message));
    proc.kill();
    return message;
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
      const spec = {
        command: c.command,
        ...(c.cwd ? { cwd: c.cwd } : {}),
        env: c.env ?? {},
        logFile: join(this.opts.logDir, `${c.id}.log`),
        redact: this.opts.redact,
      };
      const plan = planSandbox(this.manifest as Manifest, c, this.opts.sandbox, this.workspace);
      if (!plan) this.sandboxed = undefined;
      if (!plan) this.sandboxNote = this.noSandboxNote();
      let proc: CapabilityProcess;
      let located: { address: string; client: ClientOptions };
      if (c.protocol === "palisade") {
        // A fresh secret per launch: a restarted process never accepts the old one.
        const secret = randomBytes(32).toString("base64url");
        const socketPath = await this.opts.socketFor(this.instanceId);
        const inSandbox = plan
          ? await this.sandbox(plan, { sockets: [dirname(socketPath)], protect: [dirname(dirname(socketPath))] })
          : undefined;
        proc = CapabilityProcess.start(
          inSandbox ? { ...spec, command: inSandbox.argv, env: { ...spec.env, ...inSandbox.env } } : spec,
          { kind: "socket", socketPath, secret },
        );
        located = { address: `unix:${socketPath}`, client: { bearerToken: secret } };
      } else if (plan) {
        // A Selu-convention server listens on PORT inside its own network namespace; the Engine
        // reaches it through a unix socket relayed to that port, which no one else can reach.
        const inSandbox = await this.sandbox(plan, { inboundPort: SANDBOX_PORT });
        proc = CapabilityProcess.start(
          { ...spec, command: inSandbox.argv, env: { ...spec.env, ...inSandbox.env } },
          { kind: "port", port: SANDBOX_PORT },
        );
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
        await this.onExit(proc, describeEnd(info, sandboxed));
      });
      return located;
    }
    const image = (c.image ?? this.manifest?.image) as string;
    await requireDocker(c.id, image, this.opts.docker);
    const port = await freePort();
    this.container = `palisade-${c.id}-${randomBytes(4).toString("hex")}`;
    const manifest = this.manifest as Manifest;
    if (manifest.network.mode === "none")
      await run(this.opts.docker, ["network", "create", "--internal", "palisade-none"]);
    const res = await run(
      this.opts.docker,
      dockerRunArgs({
        image,
        containerName: this.container,
        manifest,
        hostPort: port,
        ...(c.workspace ? { workspaceDir: c.workspace } : {}),
        ...(c.env ? { env: c.env } : {}),
      }),
      120_000,
    );
    if (res.code !== 0)
      throw new CapabilityError(
        "launch",
        `docker run ${image} failed: ${res.stderr.trim() || `exit code ${res.code}`}`,
      );
    if (manifest.network.mode !== "none") return { address: `127.0.0.1:${port}`, client: {} };
    const ip = await run(this.opts.docker, [
      "inspect",
      "-f",
      "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}",
      this.container,
    ]);
    return { address: `${ip.stdout.trim()}:50051`, client: {} };
  }

  /** Why a `command` process runs without a sandbox (undefined: the host makes none at all). */
  private noSandboxNote(): string | undefined {
    if (this.config.sandbox === false) return "none (sandbox: false in the config)";
    return this.opts.sandbox ? `none: ${this.opts.sandbox.probe.reason ?? "no sandbox"}` : undefined;
  }

  /** Prepares this launch's sandbox: the command line, its environment and its egress proxy. */
  private async sandbox(
    plan: SandboxPlan,
    extra: { sockets?: string[]; protect?: string[]; inboundPort?: number },
  ): Promise<PreparedSandbox> {
    const settings = this.opts.sandbox as SandboxSettings;
    const c = this.config;
    const prepared = await prepareCapabilitySandbox(plan, settings, {
      id: c.id,
      command: c.command ?? [],
      ...extra,
      sessions: () => [...this.inflight.keys()],
    });
    this.sandboxed = prepared;
    this.sandboxWorkspace = plan.workspace;
    this.sandboxNote = describeSandbox(plan, prepared.applied);
    return prepared;
  }

  private async onExit(proc: CapabilityProcess, exit: string): Promise<void> {
    if (this.stopped || proc.isStopping || proc !== this.process) return;
    this.idle.cancel();
    clearTimeout(this.recheck);
    const how = this.killReason === undefined ? `process ${exit}` : `${this.killReason} (killed)`;
    // Calls still running on it end now, not at their deadline.
    this.calls.abort(new CapabilityError("restarted", `capability ${this.config.id}: ${how}`));
    this.tools = [];
    if (this.budget.take()) {
      const n = this.budget.restarts();
      this.set("starting", `${how}; restarting (${n}/${this.budget.max})`);
      await new Promise((r) => setTimeout(r, Math.min(200 * n, 2000)));
      if (this.stopped) return;
      await this.launch().catch((err: unknown) => this.set("failed", this.opts.redact(String(err))));
      return;
    }
    this.logTail = proc.lastLines(20);
    const tail = this.logTail.length > 0 ? `; last log lines:\n${this.logTail.join("\n")}` : "";
    const n = this.budget.restarts();
    this.set(
      "failed",
      `capability ${this.config.id}: ${how} after ${n} restart${n === 1 ? "" : "s"}; see ${join(this.opts.logDir, `${this.config.id}.log`)}${tail}`,
    );
  }

  /** Polls Healthcheck every `healthIntervalMs` until ready, the startup timeout, or process exit. */
  private async waitHealthy(): Promise<{ ok: boolean; message: string; exited?: boolean; foreign?: boolean }> {
    const deadline = Date.now() + this.opts.startupTimeoutMs;
    let last = "no answer to Healthcheck yet";
    let answered = false;
    let failed = false;
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
          await new Promise((r) =>
            setTimeout(r, Math.min(this.opts.healthIntervalMs, Math.max(0, deadline - Date.now()))),
          );
          continue;
        }
        this.unverifiedPort = undefined;
      }
      const res = await this.check(Math.min(this.opts.healthCallTimeoutMs, remaining));
      if (res.ok) return res;
      // The server's own "not ready" answer says more than a poll cut short by the startup deadline,
      // and so does why a connection failed (a certificate, a refused port) than a later poll that
      // ran out of time while the channel was still trying.
      if (res.answered === true || (!answered && !(res.timedOut === true && failed))) last = res.message;
      failed ||= res.timedOut !== true;
      answered ||= res.answered === true;
      await new Promise((r) => setTimeout(r, Math.min(this.opts.healthIntervalMs, Math.max(0, deadline - Date.now()))));
    }
    return { ok: false, message: "stopped" };
  }

  private async check(
    timeoutMs: number,
  ): Promise<{ ok: boolean; message: string; answered?: boolean; timedOut?: boolean }> {
    if (!this.client) return { ok: false, message: "no client" };
    try {
      const res = await this.client.healthcheck({}, { timeoutMs });
      return res.ready
        ? { ok: true, message: res.message, answered: true }
        : { ok: false, message: res.message || "Healthcheck says ready: false", answered: true };
    } catch (err) {
      const e = RpcError.from(err);
      // Only silence is no answer: a status the server sent back (UNIMPLEMENTED, INTERNAL, ...) is its own word.
      const silent = e.code === Code.DEADLINE_EXCEEDED || e.code === Code.UNAVAILABLE;
      return {
        ok: false,
        message: `Healthcheck failed: ${e.codeName}: ${e.message}`,
        ...(silent ? {} : { answered: true }),
        ...(e.code === Code.DEADLINE_EXCEEDED ? { timedOut: true } : {}),
      };
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
        this.tools = withConfigSemantics(
          manifest.toolSource === "dynamic" ? toolEntries(manifest, await this.discover()) : toolEntries(manifest),
          this.config.semantics,
        );
        this.set("ready", res.message || "ready");
      } catch (err) {
        this.set("failed", this.opts.redact(err instanceof Error ? err.message : String(err)));
        return;
      }
    } else if (!res.ok) {
      if (res.answered !== true && this.launchMode === "command") {
        // A process of ours that does not answer at all is hung or spinning: one more try (a
        // loaded machine can miss one), then it is killed and restarted.
        const again = await this.check(this.opts.healthCallTimeoutMs);
        if (this.stopped || (this.state !== "ready" && this.state !== "not_ready")) return;
        if (!again.ok && again.answered !== true) {
          this.kill(`stopped answering Healthcheck (${again.message})`);
          return;
        }
        if (again.ok) {
          this.set("ready", again.message || "ready");
          this.scheduleRecheck();
          return;
        }
      }
      this.set("not_ready", `capability ${this.config.id} is not ready: ${res.message}`);
    }
    this.scheduleRecheck();
  }

  private discover(): ReturnType<typeof discoverTools> {
    return discoverTools(this.client as CapabilityClient, this.manifest as Manifest, this.config.timeoutMs ?? 30_000);
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
    this.idle.cancel();
    clearTimeout(this.recheck);
    this.client?.close();
    await this.process?.stop();
    await this.sandboxed?.close();
    if (this.container) await run(this.opts.docker, ["rm", "--force", this.container]);
  }
}

/**
 * How a capability process ended. bubblewrap reports a sandboxed process killed by a signal as
 * exit code 128 + signal; a SIGKILL under a memory cgroup is what the cgroup does at its limit.
 */
function describeEnd(info: ExitInfo, sandbox: PreparedSandbox | undefined): string {
  const killed = info.signal === "SIGKILL" || (sandbox !== undefined && info.code === 137);
  if (!killed) return describeExit(info);
  const memory = sandbox?.applied.find((a) => a.limit === "memoryMb" && a.by === "cgroup");
  return memory
    ? `killed by SIGKILL (what its memory cgroup does when it goes over its ${memory.value} MiB limit, max_memory_mb)`
    : "killed by SIGKILL";
}
