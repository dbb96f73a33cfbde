import type { Mount } from "./plan.js";

/** The host name inside every sandbox (its own UTS namespace). */
export const HOSTNAME = "palisade-sandbox";

export interface BwrapOptions {
  mounts: readonly Mount[];
  /** Working directory inside. */
  cwd: string;
  /** An empty regular file bound over hidden files (a device node would read as "permission denied"). */
  emptyFile: string;
  /** Keep the host's network namespace (only for callers that do their own network isolation). */
  shareNetwork?: boolean;
}

/**
 * The bubblewrap arguments (pure) for a process that sees only `mounts` (on an empty, read-only
 * root), in its own user, pid, ipc,
 * uts, cgroup and network namespaces, with no capabilities, unable to create further user
 * namespaces, in a new session (no terminal injection), and killed when its parent dies.
 * The command follows the returned arguments.
 */
export function bwrapArgs(options: BwrapOptions): string[] {
  const args = [
    "--die-with-parent",
    "--new-session",
    "--unshare-all",
    "--unshare-user",
    "--disable-userns",
    "--cap-drop",
    "ALL",
    "--hostname",
    HOSTNAME,
  ];
  if (options.shareNetwork) args.push("--share-net");
  const remountRo: string[] = [];
  for (const m of options.mounts) {
    switch (m.op) {
      case "ro-bind":
      case "bind":
        args.push(`--${m.op}`, m.src, m.dest);
        break;
      case "symlink":
        args.push("--symlink", m.target, m.dest);
        break;
      case "dev":
      case "proc":
        args.push(`--${m.op}`, m.dest);
        break;
      case "tmpfs":
        if (m.sizeBytes !== undefined) args.push("--size", String(m.sizeBytes));
        args.push("--tmpfs", m.dest);
        if (m.readOnly) remountRo.push(m.dest);
        break;
      case "hide-file":
        args.push("--ro-bind", options.emptyFile, m.dest);
        break;
    }
  }
  // Last: a read-only tmpfs must stay writable until the mount points inside it are made. The
  // root (bubblewrap's own tmpfs, holding only mount points) is made read-only too.
  args.push("--remount-ro", "/");
  for (const dest of remountRo) args.push("--remount-ro", dest);
  args.push("--chdir", options.cwd, "--");
  return args;
}
