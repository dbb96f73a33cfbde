import { spawnSync } from "node:child_process";
import { readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";

/** Result of the self-probe; each `can*` is true when the probe SUCCEEDED (the sandbox did not stop it). */
export interface SandboxProbe {
  canWriteFile: boolean;
  canSpawnProcess: boolean;
  canReadOutside: boolean;
  canStartWorker: boolean;
  permissionModel: boolean;
  networkIsolated: boolean;
  detail: string;
}

function errorCode(err: unknown): string {
  if (err && typeof err === "object" && "code" in err) return String(err.code);
  return err instanceof Error ? err.message : String(err);
}

type Outcome = { ok: true; note?: string } | { ok: false; note: string };

function attempt(fn: () => string | undefined): Outcome {
  try {
    const note = fn();
    return note === undefined ? { ok: true } : { ok: true, note };
  } catch (err) {
    return { ok: false, note: errorCode(err) };
  }
}

const OUTSIDE_FILES = ["/etc/hostname", "/etc/hosts", "/etc/passwd"];

/**
 * Tries what the sandbox should forbid: write a temp file, spawn a process, read a file outside
 * the Agent's code, start a worker. Leaves nothing behind when a probe unexpectedly succeeds.
 */
export async function probeSandbox(): Promise<SandboxProbe> {
  const notes: string[] = [];
  const write = attempt(() => {
    const path = join(tmpdir(), `palisade-agent-probe-${String(process.pid)}-${String(Date.now())}`);
    writeFileSync(path, "probe", { flag: "wx" });
    unlinkSync(path);
    return undefined;
  });
  notes.push(`write:${write.ok ? "allowed" : write.note}`);

  const spawn = attempt(() => {
    const res = spawnSync(process.execPath, ["-e", ""], { stdio: "ignore", timeout: 5000, env: {} });
    if (res.error) throw res.error;
    return undefined;
  });
  notes.push(`spawn:${spawn.ok ? "allowed" : spawn.note}`);

  let read: Outcome = { ok: false, note: "no probe file" };
  for (const file of OUTSIDE_FILES) {
    read = attempt(() => {
      readFileSync(file);
      return file;
    });
    if (read.ok || read.note !== "ENOENT") break;
  }
  notes.push(`read:${read.ok ? `allowed(${read.note ?? ""})` : read.note}`);

  let worker: Worker | undefined;
  const startWorker = attempt(() => {
    worker = new Worker("", { eval: true });
    return undefined;
  });
  if (worker) await worker.terminate();
  notes.push(`worker:${startWorker.ok ? "allowed" : startWorker.note}`);

  const permissionModel = typeof (process as { permission?: { has?: unknown } }).permission?.has === "function";
  const external = Object.values(networkInterfaces())
    .flat()
    .filter((i) => i !== undefined && !i.internal);
  notes.push(`permission_model:${permissionModel ? "on" : "off"}`, `interfaces:${String(external.length)}`);

  return {
    canWriteFile: write.ok,
    canSpawnProcess: spawn.ok,
    canReadOutside: read.ok,
    canStartWorker: startWorker.ok,
    permissionModel,
    networkIsolated: external.length === 0,
    detail: notes.join(" "),
  };
}
