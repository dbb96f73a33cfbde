import * as path from "node:path";
import { SandboxError } from "./errors.js";
import { defaultHidden, isWithin } from "./hidden.js";
import type { SandboxSpec } from "./spec.js";
import { ETC_ENTRIES, SYSTEM_DIRS } from "./view.js";

/** What a path is on the host. `real` has every symlink resolved. */
export interface PathFact {
  kind: "dir" | "file" | "missing";
  real: string;
  /** Set when the path itself is a symbolic link: its target as written. */
  link?: string;
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
  | { op: "hide-file"; dest: string }
  | { op: "symlink"; target: string; dest: string }
  | { op: "dev" | "proc"; dest: string };

const MiB = 1024 * 1024;

/** Ranks at one depth: fresh file systems first, then what is bound over them, hiding, and the sockets last. */
const RANK = { fresh: 0, system: 1, bind: 2, readOnly: 3, hide: 4, socket: 5 } as const;

/**
 * Turns a spec into an ordered list of mounts (pure, given the facts), on an empty read-only
 * root: the system directories and selected /etc entries read-only, fresh /tmp, /run, /dev and
 * /proc, a private empty home, then what the spec lists (workspace, writable and read-only paths,
 * code, made files, sockets). Parents are mounted before their children, so a workspace inside
 * the home stays visible, and a protected directory inside the workspace stays hidden.
 */
export function planMounts(spec: SandboxSpec, facts: HostFacts): Mount[] {
  if (spec.filesystem === "workspace" && !spec.workspace) {
    throw new SandboxError("invalid_spec", "filesystem: workspace needs a workspace directory (an absolute path)");
  }
  const ordered: Array<{ mount: Mount; rank: number }> = [];
  const add = (mount: Mount, rank: number): void => {
    ordered.push({ mount, rank });
  };
  const existing = (p: string, field: string): PathFact => {
    if (!path.isAbsolute(p)) throw new SandboxError("invalid_spec", `${field} "${p}" must be an absolute path`);
    return facts.inspect(p);
  };
  const tmpBytes = (spec.tmpSizeMb ?? 256) * MiB;

  // The system, read-only; a path that is a link on the host (merged /usr: /bin -> usr/bin) stays one.
  for (const p of [...SYSTEM_DIRS, ...ETC_ENTRIES.map((e) => e.path)]) {
    const f = facts.inspect(p);
    if (f.link !== undefined) add({ op: "symlink", target: f.link, dest: p }, RANK.system);
    else if (f.kind !== "missing") add({ op: "ro-bind", src: f.real, dest: p }, RANK.system);
  }
  add({ op: "dev", dest: "/dev" }, RANK.fresh);
  add({ op: "proc", dest: "/proc" }, RANK.fresh);
  add({ op: "tmpfs", dest: "/tmp", sizeBytes: tmpBytes }, RANK.fresh);
  add({ op: "tmpfs", dest: "/run", sizeBytes: 4 * MiB }, RANK.fresh);
  add({ op: "symlink", target: "../run", dest: "/var/run" }, RANK.fresh);
  const home = path.resolve(facts.home);
  if (home !== "/") add({ op: "tmpfs", dest: home, sizeBytes: tmpBytes }, RANK.fresh);

  const binds: string[] = [];
  const bind = (op: "bind" | "ro-bind", real: string, rank: number): void => {
    if (real === "/")
      throw new SandboxError("invalid_spec", "/ cannot be bound into a sandbox (name the directories it needs)");
    binds.push(real);
    add({ op, src: real, dest: real }, rank);
  };
  if (spec.filesystem === "workspace" && spec.workspace) {
    const ws = existing(spec.workspace, "workspace");
    if (ws.kind !== "dir")
      throw new SandboxError("invalid_spec", `workspace "${spec.workspace}" is not an existing directory`);
    if (ws.real === "/")
      throw new SandboxError("invalid_spec", "the workspace cannot be / (choose a project directory)");
    bind("bind", ws.real, RANK.bind);
  }
  for (const p of spec.writable ?? []) {
    const f = existing(p, "sandbox.writable entry");
    if (f.kind !== "missing") bind("bind", f.real, RANK.bind);
  }
  for (const p of spec.readOnly ?? []) {
    const f = existing(p, "sandbox.read_only entry");
    if (f.kind !== "missing") bind("ro-bind", f.real, RANK.readOnly);
  }
  // Code inside a bind made above (a program in the workspace) is visible already, and must not
  // turn that part of a read-write path read-only.
  const readWrite = [...binds];
  for (const p of spec.code ?? []) {
    const f = existing(p, "code path");
    if (
      f.kind === "missing" ||
      SYSTEM_DIRS.some((d) => isWithin(f.real, d)) ||
      readWrite.some((b) => isWithin(f.real, b))
    )
      continue;
    bind("ro-bind", f.real, RANK.readOnly);
  }
  for (const l of spec.links ?? []) {
    if (!path.isAbsolute(l.dest)) throw new SandboxError("invalid_spec", `link "${l.dest}" must be an absolute path`);
    // Inside a bound directory the host's link is already there.
    if (!binds.some((b) => isWithin(l.dest, b))) add({ op: "symlink", target: l.target, dest: l.dest }, RANK.readOnly);
  }
  for (const f of spec.files ?? []) add({ op: "ro-bind", src: f.src, dest: f.dest }, RANK.readOnly);

  // Hiding matters only where a bind shows the host: elsewhere nothing is there to hide.
  const hidden = [...defaultHidden(home, facts.homes()), ...(spec.hide ?? []), ...(spec.protect ?? [])];
  const seen = new Set<string>();
  for (const p of hidden) {
    const f = existing(p, "sandbox.hide entry");
    if (f.kind === "missing" || f.real === "/" || seen.has(f.real)) continue;
    if (!binds.some((b) => isWithin(f.real, b))) continue;
    seen.add(f.real);
    add(
      f.kind === "dir"
        ? { op: "tmpfs", dest: f.real, sizeBytes: 4096, readOnly: true }
        : { op: "hide-file", dest: f.real },
      RANK.hide,
    );
  }
  // Socket directories come last at their depth: the Engine must reach them even if a hidden
  // directory (its runtime dir) contains them.
  for (const p of spec.sockets ?? []) {
    const f = existing(p, "socket path");
    if (f.kind === "missing") throw new SandboxError("invalid_spec", `socket path "${p}" does not exist`);
    add({ op: "bind", src: f.real, dest: f.real }, RANK.socket);
  }
  const depth = (m: Mount): number => m.dest.split("/").filter(Boolean).length;
  // A stable sort keeps the order within a rank.
  ordered.sort((a, b) => depth(a.mount) - depth(b.mount) || a.rank - b.rank);
  return ordered.map((o) => o.mount);
}
