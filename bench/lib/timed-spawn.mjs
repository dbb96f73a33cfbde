// Runs a command as a user would and times it from the spawn: to the first byte on stdout (the
// first token of `palisade run`) and to its exit.
import { spawn } from "node:child_process";

/**
 * @returns {Promise<{ firstByteMs: number, exitMs: number, code: number | null, stdout: string, stderr: string }>}
 */
export function timedSpawn(command, args, { env, cwd, timeoutMs = 120_000 } = {}) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let firstByteMs = NaN;
    let stdout = "";
    let stderr = "";
    const child = spawn(command, args, { env, cwd, stdio: ["ignore", "pipe", "pipe"] });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.stdout.on("data", (d) => {
      if (Number.isNaN(firstByteMs)) firstByteMs = performance.now() - t0;
      stdout += d;
    });
    child.stderr.on("data", (d) => (stderr += d));
    child.once("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ firstByteMs, exitMs: performance.now() - t0, code, stdout, stderr });
    });
  });
}

/** timedSpawn that fails on a non-zero exit, with what the command printed. */
export async function mustRun(command, args, options) {
  const r = await timedSpawn(command, args, options);
  if (r.code !== 0) throw new Error(`${command} ${args.join(" ")} exited ${r.code}:\n${r.stdout}${r.stderr}`);
  return r;
}
