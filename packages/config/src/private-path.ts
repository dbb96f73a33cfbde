// Paths Palisade trusts only when they are provably the user's: the data directory (the client
// token, engine.json, the database), the config file and the policy file. Another local user who
// can write a path, or any directory above it, could swap what it holds (a token they know, an
// engine.json naming their own server, a config sending the API key to their model server).
//
// A path is private when, walking from `/` down to it:
// - every component is owned by the current uid or by root;
// - no directory is writable by group or others, unless it has the sticky bit (like /tmp), where
//   others can add entries but not rename or remove ours: the entry inside must then be ours (or
//   root's), which the ownership rule already asks;
// - a symbolic link is followed, its target checked by the same rules (the link itself must be
//   ours or root's: in a sticky directory anyone can plant one);
// - the path itself is not writable by group or others (and, for the data directory, is ours
//   with no group or other bits at all: 0700).
// A group-writable component passes when its group is the user's own private group (the user
// is its only account, by /etc/passwd and /etc/group), as with `umask 002` and one group per
// user; OpenSSH's StrictModes in Debian allows the same.
// Deny by default: a component that cannot be inspected is a problem too.
import { lstatSync, readFileSync, readlinkSync } from "node:fs";
import type { Stats } from "node:fs";
import { isAbsolute, join, resolve, sep } from "node:path";

export interface PrivatePathOptions {
  /** What the path is, for messages: "the data directory", "the config file". */
  what: string;
  /** The path itself must be owned by this uid (not merely by root). */
  own?: boolean;
  /** The path itself must have no group or other permission bits at all (0700 / 0600). */
  privateMode?: boolean;
  /**
   * A path that does not exist is fine (its existing ancestors are checked): what is created in
   * a private directory is private. Otherwise a missing path is a problem.
   */
  allowMissing?: boolean;
}

/** A path another local user controls, or could. `path` is the component at fault. */
export class PrivatePathError extends Error {
  readonly code = "PATH_NOT_PRIVATE";
  readonly path: string;
  constructor(message: string, path: string) {
    super(message);
    this.name = new.target.name;
    this.path = path;
  }
}

/** Links followed before giving up (the kernel's own limit is 40). */
const MAX_LINKS = 40;

/** The current uid, or undefined where there are no uids (then nothing is checked). */
function currentUid(): number | undefined {
  return process.getuid?.();
}

/** `name (uid N)` from /etc/passwd, or `uid N`. Only read for messages. */
export function describeUid(uid: number): string {
  try {
    for (const line of readFileSync("/etc/passwd", "utf8").split("\n")) {
      const f = line.split(":");
      if (f[2] === String(uid) && f[0]) return `${f[0]} (uid ${uid})`;
    }
  } catch {
    // no passwd file: the number alone
  }
  return `uid ${uid}`;
}

function mode(st: Stats): string {
  return (st.mode & 0o7777).toString(8).padStart(3, "0");
}

interface Walk {
  uid: number;
  options: PrivatePathOptions;
  /** The path as given, for messages. */
  given: string;
  links: number;
  /** Groups found to have the user as their only account (read once per walk). */
  privateGroups?: Map<number, boolean>;
}

/**
 * Whether `gid` is a group whose only account is `uid`'s: its primary group or a member list
 * naming only them, no other account with it as primary group, no other member. Unreadable
 * account files, or a group they do not list: not private.
 */
export function isPrivateGroup(gid: number, uid: number, files?: { passwd: string; group: string }): boolean {
  let passwd: string, group: string;
  try {
    passwd = files?.passwd ?? readFileSync("/etc/passwd", "utf8");
    group = files?.group ?? readFileSync("/etc/group", "utf8");
  } catch {
    return false;
  }
  let name: string | undefined;
  let primary = false;
  for (const line of passwd.split("\n")) {
    const f = line.split(":");
    if (f.length < 4) continue;
    if (f[2] === String(uid)) {
      name = f[0];
      if (f[3] === String(gid)) primary = true;
    } else if (f[3] === String(gid)) return false;
  }
  if (name === undefined) return false;
  const entry = group
    .split("\n")
    .map((l) => l.split(":"))
    .find((f) => f.length >= 4 && f[2] === String(gid));
  if (!entry) return false;
  const members = (entry[3] ?? "").split(",").filter((m) => m.trim() !== "");
  if (members.some((m) => m.trim() !== name)) return false;
  return primary || members.length > 0;
}

function groupIsPrivate(gid: number, walk: Walk): boolean {
  walk.privateGroups ??= new Map();
  let known = walk.privateGroups.get(gid);
  if (known === undefined) walk.privateGroups.set(gid, (known = isPrivateGroup(gid, walk.uid)));
  return known;
}

/**
 * Why `path` is not private, or undefined when it is. `path` is made absolute against the
 * current directory. On a system without uids (no `process.getuid`) nothing is checked.
 */
export function privatePathProblem(path: string, options: PrivatePathOptions): string | undefined {
  const uid = currentUid();
  if (uid === undefined) return undefined;
  const walk: Walk = { uid, options, given: path, links: 0 };
  try {
    return check(resolve(path), walk, true);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return `${options.what} ${path} cannot be checked (${e.code ?? e.message}): Palisade uses it only when it can tell it is yours`;
  }
}

/** Throws PrivatePathError unless `path` is private (see privatePathProblem). */
export function assertPrivatePath(path: string, options: PrivatePathOptions): void {
  const problem = privatePathProblem(path, options);
  if (problem !== undefined) throw new PrivatePathError(problem, path);
}

/** Checks `abs` (absolute, normalised) from `/` down; `leaf` when it is the path asked about. */
function check(abs: string, walk: Walk, leaf: boolean): string | undefined {
  const parts = abs.split(sep).filter((p) => p !== "");
  let cur = "/";
  const rootProblem = componentProblem(cur, lstatSync(cur), walk, leaf && parts.length === 0);
  if (rootProblem) return rootProblem;
  for (let i = 0; i < parts.length; i++) {
    const last = i === parts.length - 1;
    const next = join(cur, parts[i] as string);
    let entry: Stats;
    try {
      entry = lstatSync(next);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT" && walk.options.allowMissing) return undefined;
      if ((err as NodeJS.ErrnoException).code === "ENOENT")
        return `${walk.options.what} ${walk.given} does not exist (${next} is missing)`;
      throw err;
    }
    if (entry.isSymbolicLink()) {
      const owner = ownerProblem(next, entry, walk, false);
      if (owner) return owner;
      if (++walk.links > MAX_LINKS) return `${walk.options.what} ${walk.given}: too many symbolic links`;
      const link = readlinkSync(next);
      const target = isAbsolute(link) ? resolve(link) : resolve(cur, link);
      // the target is checked whole, from `/`, then the walk goes on below it
      const rest = parts.slice(i + 1);
      return check(rest.length > 0 ? join(target, ...rest) : target, walk, leaf);
    }
    const problem = componentProblem(next, entry, walk, leaf && last);
    if (problem) return problem;
    cur = next;
  }
  return undefined;
}

/** `the config file F` for the path asked about, `the config file F: /above/it` for a component. */
function where(path: string, walk: Walk): string {
  const { what } = walk.options;
  return path === resolve(walk.given) ? `${what} ${path}` : `${what} ${walk.given}: ${path}`;
}

function ownerProblem(path: string, st: Stats, walk: Walk, isLeaf: boolean): string | undefined {
  const { uid, options } = walk;
  const link = st.isSymbolicLink() ? " (a symbolic link)" : "";
  const at = `${where(path, walk)}${link}`;
  const you = uid === 0 ? "you (root)" : `you (${describeUid(uid)}) or root`;
  if (isLeaf && options.own && st.uid !== uid)
    return `${at} is owned by ${describeUid(st.uid)}, not by you (${describeUid(uid)}): that user could read or replace what it holds. Use one of your own: move it under your home, or remove it and let Palisade create it`;
  if (st.uid !== uid && st.uid !== 0)
    return `${at} is owned by ${describeUid(st.uid)}, not by ${you}: that user could replace what it holds. Move it under your home`;
  return undefined;
}

function componentProblem(path: string, st: Stats, walk: Walk, isLeaf: boolean): string | undefined {
  const owner = ownerProblem(path, st, walk, isLeaf);
  if (owner) return owner;
  const { options } = walk;
  const at = where(path, walk);
  const dir = st.isDirectory();
  const fix = dir ? "chmod 700" : "chmod 600";
  if (isLeaf && options.privateMode && (st.mode & 0o077) !== 0)
    return `${at} is open to other users (mode ${mode(st)}); fix it with: ${fix} ${path}`;
  if ((st.mode & 0o022) === 0) return undefined;
  if ((st.mode & 0o002) === 0 && groupIsPrivate(st.gid, walk)) return undefined;
  // sticky: others may add entries but not rename or remove ours; entries below are checked as owned
  if (dir && !isLeaf && (st.mode & 0o1000) !== 0) return undefined;
  const who = (st.mode & 0o002) !== 0 ? "every user" : "its group";
  if (isLeaf)
    return `${at} is writable by ${who} (mode ${mode(st)}): they could replace it; fix it with: chmod go-w ${path}`;
  return `${at} is writable by ${who} (mode ${mode(st)}) without the sticky bit, so they could replace ${walk.given}; fix it with: chmod go-w ${path}, or move ${walk.given} under your home`;
}
