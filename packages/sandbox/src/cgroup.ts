import { existsSync, mkdirSync, readFileSync, readdirSync, rmdirSync, statSync, writeFileSync } from "node:fs";
import * as path from "node:path";

/** A cgroup made for one sandbox, in every hierarchy where limits could be written. */
export interface SandboxCgroup {
  /** `cgroup.procs` files the launcher writes its pid to before it starts bubblewrap. */
  procsFiles: string[];
  /** The cgroup version the limit was written in (undefined: not written). */
  pids: 1 | 2 | undefined;
  memory: 1 | 2 | undefined;
  /** Removes the cgroup directories (once the sandbox has exited). */
  remove(): void;
}

interface Hierarchy {
  /** Where the hierarchy is mounted plus this process's own cgroup path in it. */
  dir: string;
  version: 1 | 2;
  controllers: string[];
}

/** This process's cgroups with their mount points (v1 per controller, v2 unified). */
function ownHierarchies(): Hierarchy[] {
  let mountinfo: string;
  let membership: string;
  try {
    mountinfo = readFileSync("/proc/self/mountinfo", "utf8");
    membership = readFileSync("/proc/self/cgroup", "utf8");
  } catch {
    return [];
  }
  const own = new Map<string, string>();
  for (const line of membership.split("\n")) {
    const [id, ctrls, p] = line.split(":");
    if (id === undefined || p === undefined) continue;
    own.set(id === "0" ? "" : (ctrls ?? ""), p);
  }
  const out: Hierarchy[] = [];
  for (const line of mountinfo.split("\n")) {
    const [pre, post] = line.split(" - ");
    if (!pre || !post) continue;
    const fields = pre.split(" ");
    const [fstype, , superOpts = ""] = post.split(" ");
    const root = fields[3] ?? "/";
    const mountPoint = fields[4] ?? "";
    if (fstype === "cgroup2") {
      const p = own.get("");
      if (p === undefined) continue;
      const dir = path.join(mountPoint, path.relative(root, p));
      const controllers = readText(path.join(dir, "cgroup.controllers")).split(/\s+/).filter(Boolean);
      out.push({ dir, version: 2, controllers });
    } else if (fstype === "cgroup") {
      const ctrls = superOpts.split(",").filter((o) => o === "pids" || o === "memory");
      for (const c of ctrls) {
        const key = [...own.keys()].find((k) => k.split(",").includes(c));
        const p = key === undefined ? undefined : own.get(key);
        if (p === undefined) continue;
        out.push({ dir: path.join(mountPoint, path.relative(root, p)), version: 1, controllers: [c] });
      }
    }
  }
  return out;
}

/** Sandbox cgroups are left behind when their processes outlived the removal's retries. */
const STALE_MS = 60_000;

/**
 * Removes `palisade-*` cgroups older than a minute that have no process left: rmdir fails on a
 * cgroup in use, and the age keeps a cgroup made a moment ago (not yet joined) in place.
 */
function sweepStale(parent: string): void {
  let names: string[];
  try {
    names = readdirSync(parent).filter((n) => n.startsWith("palisade-"));
  } catch {
    return;
  }
  const now = Date.now();
  for (const name of names) {
    const dir = path.join(parent, name);
    try {
      if (now - statSync(dir).mtimeMs < STALE_MS) continue;
      rmdirSync(dir);
    } catch {
      // in use, or not ours to remove
    }
  }
}

function readText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

/**
 * Makes a cgroup named `name` below this process's own cgroup with the pids and memory limits,
 * where the hierarchy is writable (as root, or in a delegated subtree). Returns undefined when
 * no limit could be written; callers fall back to rlimits.
 */
export function createSandboxCgroup(
  name: string,
  limits: { pids?: number; memoryMb?: number },
): SandboxCgroup | undefined {
  const made: string[] = [];
  const procsFiles: string[] = [];
  let pids: 1 | 2 | undefined;
  let memory: 1 | 2 | undefined;
  for (const h of ownHierarchies()) {
    const wantPids = limits.pids !== undefined && pids === undefined && h.controllers.includes("pids");
    const wantMemory = limits.memoryMb !== undefined && memory === undefined && h.controllers.includes("memory");
    if (!wantPids && !wantMemory) continue;
    const dir = path.join(h.dir, name);
    try {
      if (!existsSync(h.dir)) continue;
      sweepStale(h.dir);
      mkdirSync(dir);
    } catch {
      continue;
    }
    made.push(dir);
    let wrote = false;
    try {
      if (wantPids) {
        writeFileSync(path.join(dir, "pids.max"), String(limits.pids));
        pids = h.version;
        wrote = true;
      }
    } catch {
      // not delegated here
    }
    try {
      if (wantMemory) {
        const bytes = String((limits.memoryMb ?? 0) * 1024 * 1024);
        if (h.version === 2) {
          writeFileSync(path.join(dir, "memory.max"), bytes);
          try {
            writeFileSync(path.join(dir, "memory.swap.max"), "0");
          } catch {
            // no swap accounting
          }
        } else {
          writeFileSync(path.join(dir, "memory.limit_in_bytes"), bytes);
          try {
            writeFileSync(path.join(dir, "memory.memsw.limit_in_bytes"), bytes);
          } catch {
            // no swap accounting
          }
        }
        memory = h.version;
        wrote = true;
      }
    } catch {
      // not delegated here
    }
    if (wrote) procsFiles.push(path.join(dir, "cgroup.procs"));
  }
  const remove = (): void => {
    for (const dir of made.reverse()) {
      try {
        rmdirSync(dir);
      } catch {
        // still has processes (killed shortly) or already gone
      }
    }
  };
  if (procsFiles.length === 0) {
    remove();
    return undefined;
  }
  return { procsFiles, pids, memory, remove };
}
