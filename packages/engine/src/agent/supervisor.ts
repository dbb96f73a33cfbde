// Spawns the Agent process (compiled JS under Node's permission model, minimal environment,
// per-spawn token on its stdin, bound to the spawned pid) and respawns it when it dies, within a budget (default 5 per 60 s).
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { RestartBudget } from "@palisade/capabilities";
import { spawnWithSecret } from "./child-stdin.js";
import type { AgentLaunch, AgentLauncher, AgentLaunchRequest } from "../ports.js";
import type { AgentLink } from "./link.js";

/** `idle`: stopped because no turn needed it for a while; the next turn starts it again (`wake`). */
export type SupervisorState =
  "stopped" | "starting" | "running" | "restarting" | "failed" | "refused" | "external" | "idle";

export interface SupervisorOptions {
  link: AgentLink;
  launcher: AgentLauncher;
  request: () => Omit<AgentLaunchRequest, "token">;
  budget: number;
  windowMs: number;
  /** Kill an Agent that has not connected by then. */
  readyTimeoutMs: number;
  log: (line: string) => void;
}

export class AgentSupervisor {
  private child: ChildProcess | undefined;
  private readonly budget: RestartBudget;
  private stopping = false;
  /** Set while an idle stop runs; resolves once the old process is gone. */
  private idleStopping: Promise<void> | undefined;
  private wakeRequested = false;
  private readyTimer: NodeJS.Timeout | undefined;
  private exitWaiters = new Set<() => void>();
  private release: Promise<void> | undefined;
  /** How the current (or last) Agent process was launched: its command, flags and environment. */
  launch: AgentLaunch | undefined;
  state: SupervisorState = "stopped";
  restarts = 0;
  lastError = "";

  constructor(private readonly options: SupervisorOptions) {
    this.budget = new RestartBudget(options.budget, options.windowMs);
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /**
   * Spawns the Agent. With `release`, early: the process starts now and gets its token (so it can
   * connect) when `release` resolves; the Engine starts it before its own slow steps and releases
   * it once it listens.
   */
  async start(release?: Promise<void>): Promise<void> {
    this.stopping = false;
    this.state = "starting";
    this.release = release;
    await this.spawnOnce();
  }

  /** Called by the link when the Agent connected. */
  connected(): void {
    clearTimeout(this.readyTimer);
    this.state = "running";
  }

  /** Called by the link when the Agent was refused (unconfined): do not respawn. */
  refused(reason: string): void {
    this.state = "refused";
    this.lastError = reason;
    this.options.log(`agent: ${reason}`);
    this.kill("SIGKILL");
  }

  /** Called when the Agent stream ended: make sure the process is gone (its exit respawns it). */
  disconnected(reason: string): void {
    if (this.stopping || this.state === "refused") return;
    this.lastError = reason;
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      // A live process without a stream is useless: kill it, the exit handler respawns.
      setTimeout(() => {
        if (this.child === child) child.kill("SIGKILL");
      }, 1000).unref();
    }
  }

  private async spawnOnce(): Promise<void> {
    const token = randomBytes(32).toString("base64url");
    const launch = await this.options.launcher({ ...this.options.request(), token });
    this.launch = launch;
    const child = spawnWithSecret(launch, token, "pipe", this.release);
    // Same tick as the spawn: the child cannot have connected yet.
    this.options.link.expect(token, child.pid);
    this.child = child;
    const prefix = (line: string): void => {
      if (line.trim()) this.options.log(`agent[${child.pid ?? "?"}]: ${line}`);
    };
    child.stdout?.setEncoding("utf8").on("data", (s: string) => s.split("\n").forEach(prefix));
    child.stderr?.setEncoding("utf8").on("data", (s: string) => s.split("\n").forEach(prefix));
    child.on("error", (err) => {
      this.lastError = `cannot start the Agent (${launch.command}): ${err.message}`;
      this.options.log(`agent: ${this.lastError}`);
    });
    child.on("exit", (code, signal) => this.onExit(child, code, signal));
    clearTimeout(this.readyTimer);
    this.readyTimer = setTimeout(() => {
      if (this.child === child && !this.options.link.connected) {
        this.lastError = `the Agent did not connect within ${this.options.readyTimeoutMs} ms`;
        this.options.log(`agent: ${this.lastError}; killing it`);
        child.kill("SIGKILL");
      }
    }, this.options.readyTimeoutMs);
    this.readyTimer.unref();
  }

  private onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.child !== child) return;
    this.child = undefined;
    clearTimeout(this.readyTimer);
    for (const w of [...this.exitWaiters]) w();
    // The stream may outlive the process by a moment; it is dead now.
    this.options.link.close(`the Agent process exited (${signal ?? `code ${code}`})`);
    if (this.stopping) {
      this.state = "stopped";
      return;
    }
    if (this.state === "refused") return;
    this.options.link.expect(undefined);
    if (!this.budget.take()) {
      this.state = "failed";
      this.lastError = `the Agent crashed ${this.options.budget} times within ${this.options.windowMs / 1000} s; not restarting it (last: ${signal ?? `exit code ${code}`}). Restart the Engine.`;
      this.options.log(`agent: ${this.lastError}`);
      return;
    }
    this.restarts++;
    this.state = "restarting";
    this.options.log(`agent: process exited (${signal ?? `code ${code}`}); restarting (${this.restarts})`);
    this.spawnOnce().catch((err: unknown) => {
      this.state = "failed";
      this.lastError = `cannot restart the Agent: ${(err as Error).message}`;
      this.options.log(`agent: ${this.lastError}`);
    });
  }

  private kill(sig: NodeJS.Signals): void {
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) child.kill(sig);
  }

  /**
   * Stops a running Agent no turn needs (the caller sends ShutdownDirective first and checks that
   * no turn runs); `wake` starts it again. Not a crash: no restart budget is spent.
   */
  async idleStop(graceMs = 2000): Promise<void> {
    if (this.state !== "running" || this.idleStopping) return;
    this.idleStopping = this.stop(graceMs).finally(() => (this.idleStopping = undefined));
    await this.idleStopping;
    this.state = "idle";
    // A turn that arrived while it was stopping starts it again at once.
    if (this.wakeRequested) void this.wake();
  }

  /**
   * Starts an Agent stopped while idle; a no-op in any other state. Resolves once an idle stop in
   * progress has ended (so the caller then waits for the new Agent, not the departing one).
   */
  wake(): Promise<void> {
    if (this.idleStopping) {
      this.wakeRequested = true;
      return this.idleStopping;
    }
    this.wakeRequested = false;
    if (this.state !== "idle") return Promise.resolve();
    this.options.log("agent: starting it again for a turn");
    this.start().catch((err: unknown) => {
      this.state = "failed";
      this.lastError = `cannot start the Agent again: ${(err as Error).message}`;
      this.options.log(`agent: ${this.lastError}`);
    });
    return Promise.resolve();
  }

  /** Asks the Agent to stop (the caller sends ShutdownDirective first), then kills it after `graceMs`. */
  async stop(graceMs = 2000): Promise<void> {
    this.stopping = true;
    clearTimeout(this.readyTimer);
    this.options.link.expect(undefined);
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) {
      this.state = "stopped";
      return;
    }
    const exited = new Promise<void>((resolve) => this.exitWaiters.add(resolve));
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    child.kill("SIGTERM");
    await exited;
    clearTimeout(timer);
    this.state = "stopped";
  }
}
