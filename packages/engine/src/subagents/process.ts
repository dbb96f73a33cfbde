// Starting and stopping one sub-agent process.
import type { ChildProcess } from "node:child_process";
import { spawnWithSecret } from "../agent/child-stdin.js";
import type { AgentLaunch } from "../ports.js";

const TAIL = 2000;

export interface ProcessHooks {
  onStderr(text: string): void;
  onExit(code: number | null, signal: NodeJS.Signals | null): void;
  onError(err: Error): void;
}

/** Starts the sub-agent with its spawn token on stdin (held open: it exits when the Engine dies). */
export function startProcess(launch: AgentLaunch, token: string, hooks: ProcessHooks): ChildProcess {
  const child = spawnWithSecret(launch, token, "ignore");
  child.stderr?.setEncoding("utf8").on("data", (s: string) => hooks.onStderr(s));
  child.on("error", (err) => hooks.onError(err));
  child.on("exit", (code, signal) => hooks.onExit(code, signal));
  return child;
}

export function appendTail(tail: string, more: string): string {
  const s = tail + more;
  return s.length > TAIL ? s.slice(s.length - TAIL) : s;
}

export const alive = (child: ChildProcess | undefined): child is ChildProcess =>
  child !== undefined && child.exitCode === null && child.signalCode === null;

/** SIGTERM now, SIGKILL after `graceMs` if it is still there. */
export function terminate(child: ChildProcess | undefined, graceMs: number): void {
  if (!alive(child)) return;
  child.kill("SIGTERM");
  const timer = setTimeout(() => {
    if (alive(child)) child.kill("SIGKILL");
  }, graceMs);
  timer.unref();
  child.once("exit", () => clearTimeout(timer));
}
