// Children of the Engine (the Agent, sub-agents) get their spawn token on stdin, never in their
// environment or arguments (both readable by other processes through /proc and `ps e`). The pipe
// stays open for the child's whole life: when the Engine dies, by any signal, the kernel closes
// it and the child sees end-of-file and exits (see @palisade/agent's parent.ts).
import { spawn } from "node:child_process";
import type { ChildProcess, StdioOptions } from "node:child_process";
import type { AgentLaunch } from "../ports.js";

/**
 * Spawns `launch` with `secret` as the first line of its stdin, which is then held open. With
 * `release`, the secret is written when it resolves: the child starts (loads its code) first and
 * waits for it, so it cannot connect before the Engine is ready for it.
 */
export function spawnWithSecret(
  launch: AgentLaunch,
  secret: string,
  output: "pipe" | "ignore" = "pipe",
  release?: Promise<void>,
): ChildProcess {
  const stdio: StdioOptions = ["pipe", output, "pipe"];
  const child = spawn(launch.command, launch.args, { env: launch.env, cwd: launch.cwd, stdio });
  // A child that exits early closes its end; writing to it then fails with EPIPE, which is no news.
  child.stdin?.on("error", () => undefined);
  const write = (): void => void child.stdin?.write(`${secret}\n`);
  if (release) release.then(write, () => undefined);
  else write();
  return child;
}
