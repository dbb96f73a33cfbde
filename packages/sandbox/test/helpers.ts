import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import * as path from "node:path";
import { probeSandbox, prepareSandbox } from "@palisade/sandbox";
import type { PrepareOptions, PreparedSandbox, SandboxProbe } from "@palisade/sandbox";

export const probe: SandboxProbe = await probeSandbox();
if (!probe.available && process.env.CI) throw new Error(`CI must be able to run bubblewrap sandboxes: ${probe.reason}`);

export interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  sandbox: PreparedSandbox;
}

/** Runs `script` with /bin/sh in a sandbox and collects its output (the sandbox is closed after). */
export async function runIn(
  options: Omit<PrepareOptions, "command" | "runDir"> & {
    runDir?: string;
    beforeRun?: (sandbox: PreparedSandbox) => void;
  },
  script: string,
  timeoutMs = 20_000,
): Promise<Ran> {
  const runDir = options.runDir ?? mkdtempSync("/tmp/pal-sbx-");
  const sandbox = await prepareSandbox({
    env: { PATH: "/usr/bin:/bin", HOME: options.spec.home ?? "/nonexistent" },
    ...options,
    runDir,
    command: ["/bin/sh", "-c", script],
  });
  try {
    options.beforeRun?.(sandbox);
  } catch (err) {
    await sandbox.close();
    throw err;
  }
  const child = spawn(sandbox.argv[0] ?? "", sandbox.argv.slice(1), {
    env: sandbox.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr.on("data", (c: Buffer) => (out += c.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on("close", (c, s) => resolve([c, s])),
  );
  clearTimeout(timer);
  await sandbox.close();
  return { code, signal, out, sandbox };
}

/** A directory outside /tmp (which is private in a sandbox), so that the sandbox sees the host's copy. */
export function visibleTempDir(prefix: string): string {
  return mkdtempSync(path.join("/var/tmp", prefix));
}
