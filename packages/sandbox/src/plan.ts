import * as path from "node:path";
import { SandboxError } from "./errors.js";
import { defaultHidden, isWithin } from "./hidden.js";
import type { SandboxSpec } from "./spec.js";

/** What a path is on the host. `real` has every symlink resolved. */
export interface PathFact {
  kind: "dir" | "file" | "missing";
  real: string;
}

/** The host facts a plan needs; the default implementation reads the file system. */
export interface HostFacts {
  inspect(p: string): PathFact;
  /** Entries of a directory that holds users' homes (e.g. /home/*), absolute. */
  homes(): string[];
  home: string;
}

export type Mount =
  | { op: "ro-bind" | "bind"; src: string; dest: string }
  | { op: "tmpfs"; dest: string; sizeBytes?: number; readOnly?: boolean }
  | { op: "hide-file"; dest: string };

/** Mount points that only the sandbox's own private file systems provide: nothing to hide there. */
const PRIVATE_ROOTS = ["/tmp", "/proc", "/dev"];

/**
 * Turns a spec into an ordered list of mounts (pure, given the facts). Parents are mounted
 * before their children, so a workspace under a hidden directory stays visible, and a protected
 * directory inside the workspace stays hidden.
 */
export function planMounts(spec: SandboxSpec, facts: HostFacts): Mount[] {
  if (spec.filesystem === "workspace" && !spec.workspace) {
    throw new SandboxError("invalid_spec", "filesystem: workspace needs a workspace directory (an absolute path)");
  }
  const base: Mount[] = [
    { op: "ro-bind", src: "/", dest: "/" },
    { op: "tmpfs", dest: "/tmp", sizeBytes: (spec.tmpSizeMb ?? 256) * 1024 * 1024 },
  ];
  const ordered: Array<{ mount: Mount; rank: number }> = [];
  const add = (mount: Mount, rank: number): void => {
    ordered.push({ mount, rank });
  };
  const existing = (p: string, field: string): PathFact => {
    if (!path.isAbsolute(p)) throw new SandboxError("invalid_spec", `${field} "${p}" must be an absolute path`);
    return facts.inspect(p);
  };

  if (spec.filesystem === "workspace" && spec.workspace) {
    const ws = existing(spec.workspace, "workspace");
    if (ws.kind !== "dir") throw new SandboxError("invalid_spec", `workspace "${spec.workspace}" is not an existing directory`);
    if (ws.real === "/") throw new SandboxError("invalid_spec", "the workspace cannot be / (choose a project directory)");
    add({ op: "bind", src: ws.real, dest: ws.real }, 0);
  }
  for (const p of spec.writable ?? []) {
    const f = existing(p, "sandbox.writable entry");
    if (f.kind !== "missing") add({ op: "bind", src: f.real, dest: f.real }, 0);
  }
  for (const p of spec.readOnly ?? []) {
    const f = existing(p, "sandbox.read_only entry");
    if (f.kind !== "missing") add({ op: "ro-bind", src: f.real, dest: f.real }, 1);
  }
  // Code under /tmp: bind its top directory (/tmp/<name>) back read-only, so the sandbox can run
  // it, and let hiding apply below it again.
  const codeRoots = new Set<string>();
  for (const p of spec.code ?? []) {
    const f = existing(p, "code path");
    if (f.kind === "missing" || !isWithin(f.real, "/tmp") || f.real === "/tmp") continue;
    const top = path.join("/tmp", f.real.slice("/tmp/".length).split("/")[0] ?? "");
    if (codeRoots.has(top)) continue;
    codeRoots.add(top);
    add({ op: "ro-bind", src: top, dest: top }, 1);
  }
  const hidden = [...defaultHidden(facts.home, facts.homes()), ...(spec.hide ?? []), ...(spec.protect ?? [])];
  const seen = new Set<string>();
  for (const p of hidden) {
    const f = existing(p, "sandbox.hide entry");
    if (f.kind === "missing" || f.real === "/" || seen.has(f.real)) continue;
    // Under /tmp, /proc or /dev the sandbox's own file systems already hide it, unless a bind
    // (the workspace, a writable or read-only path, code) brings the host's copy back.
    const rebound = ordered.some(({ mount }) => (mount.op === "bind" || mount.op === "ro-bind") && isWithin(f.real, mount.dest));
    if (!rebound && PRIVATE_ROOTS.some((r) => isWithin(f.real, r))) continue;
    seen.add(f.real);
    add(f.kind === "dir" ? { op: "tmpfs", dest: f.real, sizeBytes: 4096, readOnly: true } : { op: "hide-file", dest: f.real }, 2);
  }
  // Socket directories come last at their depth: the Engine must reach them even if a hidden
  // directory (its runtime dir) contains them.
  for (const p of spec.sockets ?? []) {
    const f = existing(p, "socket directory");
    if (f.kind === "missing") throw new SandboxError("invalid_spec", `socket directory "${p}" does not exist`);
    add({ op: "bind", src: f.real, dest: f.real }, 3);
  }
  const depth = (m: Mount): number => m.dest.split("/").filter(Boolean).length;
  ordered.sort((a, b) => depth(a.mount) - depth(b.mount) || a.rank - b.rank);
  return [...base, ...ordered.map((o) => o.mount)];
}
