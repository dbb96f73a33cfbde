// A benchmark's helper process: bench/lib/<file> forked with IPC (of `root`, another built tree,
// when given); `first` is its first IPC message, `stop()` disconnects it and waits for its exit.
import { fork, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join, resolve } from "node:path";

export function child(file, args = [], env = {}, root = undefined) {
  const proc = fork(root ? join(resolve(root), "bench", "lib", file) : new URL(`./${file}`, import.meta.url), args, {
    stdio: ["ignore", "ignore", "inherit", "ipc"],
    env: { ...process.env, ...env },
  });
  const first = new Promise((res, rej) => {
    proc.once("message", res);
    proc.once("exit", (code) => rej(new Error(`bench/lib/${file} exited (${code}) before it answered`)));
  });
  void first.catch(() => undefined); // children that never answer (agents) may exit unawaited
  const stop = () =>
    new Promise((res) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return res();
      proc.once("exit", res);
      if (proc.connected) proc.disconnect();
      else proc.kill();
    });
  return { proc, first, stop };
}

/**
 * A capability started as the Engine starts it: `entry` with PALISADE_CAPABILITY_SOCKET=`socket`
 * and a fresh secret on its stdin; resolves once it says "listening on" (rejects if it exits first).
 */
export async function spawnCapability(entry, socket, { env = {}, nodeArgs = [], stdout = "ignore" } = {}) {
  const secret = randomBytes(24).toString("hex");
  const proc = spawn(process.execPath, [...nodeArgs, entry], {
    env: { ...env, PALISADE_CAPABILITY_SOCKET: socket },
    stdio: ["pipe", stdout, "pipe"],
  });
  proc.stdin.write(`${secret}\n`);
  let stderr = "";
  await new Promise((res, rej) => {
    proc.stderr.on("data", (c) => {
      stderr += c;
      if (stderr.includes("listening on")) res();
    });
    proc.once("exit", (code) => rej(new Error(`${entry} exited ${code}: ${stderr}`)));
  });
  return { proc, secret };
}
