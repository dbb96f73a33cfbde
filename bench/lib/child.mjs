// A benchmark's helper process: bench/lib/<file> forked with IPC (of `root`, another built tree,
// when given); `first` is its first IPC message, `stop()` disconnects it and waits for its exit.
import { fork } from "node:child_process";
import { join, resolve } from "node:path";

export function child(file, args = [], env = {}, root = undefined) {
  const proc = fork(root ? join(resolve(root), "bench", "lib", file) : new URL(`./${file}`, import.meta.url), args, { stdio: ["ignore", "ignore", "inherit", "ipc"], env: { ...process.env, ...env } });
  const first = new Promise((res, rej) => {
    proc.once("message", res);
    proc.once("exit", (code) => rej(new Error(`bench/lib/${file} exited (${code}) before it answered`)));
  });
  void first.catch(() => undefined); // children that never answer (agents) may exit unawaited
  const stop = () => new Promise((res) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return res();
    proc.once("exit", res);
    if (proc.connected) proc.disconnect();
    else proc.kill();
  });
  return { proc, first, stop };
}
