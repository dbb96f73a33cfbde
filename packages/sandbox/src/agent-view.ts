// The Agent's view: an empty root. Unlike a tool's sandbox, which starts from the system
// directories, the Agent gets nothing of the host but what it runs: its Node binary, the shared
// libraries the loader maps for it, its own code (read-only), and the directory holding the
// Engine's sockets (read-only: connect() needs no write access, and the Agent must not replace a
// socket). A read-only bind of / would still let it connect to every unix socket of the user.
import { execFile } from "node:child_process";
import { existsSync, realpathSync, statSync } from "node:fs";
import * as path from "node:path";
import { SandboxError } from "./errors.js";
import { isWithin } from "./hidden.js";

/** Where the Engine's socket directory appears inside. */
export const AGENT_SOCKET_DIR = "/run/palisade";

export interface AgentViewSpec {
  /** The Node binary, at the path the process is started by (bound from its real path). */
  node: string;
  /** Shared libraries by the paths the dynamic loader opens them (`sharedLibraries`). */
  libraries: readonly string[];
  /** Files and directories of the code the process runs (its permission model's read grants). */
  code: readonly string[];
  /** Socket directories, as `socketDirs` maps them. */
  sockets: SocketDirs;
}

/** Host socket directories and where each appears inside. */
export interface SocketDirs {
  binds: { host: string; inside: string }[];
  /** The inside path of a host socket path (one of those given to `socketDirs`). */
  inside(hostPath: string): string;
}

/**
 * Binds the directories of `sockets` (files that may not exist yet: the Engine listens after the
 * Agent starts) at AGENT_SOCKET_DIR, or at AGENT_SOCKET_DIR/<n> when they lie in several
 * directories. Inside, the paths name no host directory.
 */
export function socketDirs(sockets: readonly string[]): SocketDirs {
  const dirs: string[] = [];
  for (const s of sockets) {
    if (!path.isAbsolute(s)) throw new SandboxError("invalid_spec", `socket path "${s}" must be absolute`);
    const dir = path.dirname(s);
    if (!dirs.includes(dir)) dirs.push(dir);
  }
  const binds = dirs.map((host, i) => ({
    host,
    inside: dirs.length === 1 ? AGENT_SOCKET_DIR : `${AGENT_SOCKET_DIR}/${String(i)}`,
  }));
  return {
    binds,
    inside(hostPath: string): string {
      const bind = binds.find((b) => b.host === path.dirname(hostPath));
      if (!bind) throw new SandboxError("invalid_spec", `"${hostPath}" is not in a socket directory of this view`);
      return `${bind.inside}/${path.basename(hostPath)}`;
    },
  };
}

function real(p: string, what: string): string {
  try {
    return realpathSync(p);
  } catch (err) {
    throw new SandboxError("invalid_spec", `${what} "${p}" does not exist: the Agent's view cannot show it`, {
      cause: err,
    });
  }
}

/**
 * Code paths without those another one already shows: a path inside another whose real path is
 * the same place inside that one's real path.
 */
function withoutCovered(paths: readonly string[]): string[] {
  const unique = [...new Set(paths)].sort((a, b) => a.length - b.length);
  const kept: { dest: string; src: string }[] = [];
  for (const dest of unique) {
    const src = real(dest, "code path");
    const covered = kept.some((k) => isWithin(dest, k.dest) && src === path.join(k.src, path.relative(k.dest, dest)));
    if (!covered) kept.push({ dest, src });
  }
  return kept.map((k) => k.dest);
}

/**
 * The bubblewrap arguments (up to and including `--`) for the Agent's view, in its own user, pid,
 * IPC, UTS, cgroup and network namespaces, with no capabilities, no further user namespaces, a
 * new session, a fresh /proc of its pid namespace and bubblewrap's minimal /dev; killed when its
 * parent dies. The root is bubblewrap's empty tmpfs, made read-only once the mount points exist.
 */
export function agentViewArgs(spec: AgentViewSpec): string[] {
  const args = [
    "--die-with-parent",
    "--new-session",
    "--unshare-all",
    "--unshare-user",
    "--disable-userns",
    "--cap-drop",
    "ALL",
    "--hostname",
    "palisade-agent",
  ];
  const files = [
    { dest: spec.node, what: "the Node binary" },
    ...spec.libraries.map((dest) => ({ dest, what: "shared library" })),
  ];
  const seen = new Set<string>();
  for (const { dest, what } of files) {
    if (seen.has(dest)) continue;
    seen.add(dest);
    args.push("--ro-bind", real(dest, what), dest);
  }
  // Parents first, so a package inside another bound one lands on top of it.
  for (const dest of withoutCovered(spec.code)) args.push("--ro-bind", real(dest, "code path"), dest);
  for (const b of spec.sockets.binds) {
    if (!statSync(b.host, { throwIfNoEntry: false })?.isDirectory())
      throw new SandboxError("invalid_spec", `socket directory "${b.host}" does not exist`);
    args.push("--ro-bind", b.host, b.inside);
  }
  args.push("--proc", "/proc", "--dev", "/dev", "--remount-ro", "/", "--chdir", "/", "--");
  return args;
}

/** The directories a dynamic loader searches when no list of libraries can be had (no ldd). */
const LIBRARY_DIRS = ["/lib", "/lib64", "/lib32", "/usr/lib", "/usr/lib64", "/usr/lib32"];

/**
 * The shared libraries `binary` loads, by the paths the loader opens (ldd's `=> /path` and the
 * loader itself). Without ldd (or for a static binary) the system library directories instead.
 */
export function sharedLibraries(
  binary: string,
  options: { signal?: AbortSignal; ldd?: string } = {},
): Promise<string[]> {
  const ldd = options.ldd ?? ["/usr/bin/ldd", "/bin/ldd"].find((p) => existsSync(p));
  const fallback = (): string[] => LIBRARY_DIRS.filter((d) => existsSync(d));
  if (!ldd) return Promise.resolve(fallback());
  return new Promise((resolve) => {
    execFile(
      ldd,
      [binary],
      {
        encoding: "utf8",
        timeout: 10_000,
        env: { PATH: "/usr/bin:/bin" },
        ...(options.signal ? { signal: options.signal } : {}),
      },
      (err, stdout) => {
        if (err) return resolve(fallback());
        const libs = stdout
          .split("\n")
          .map((l) => /(?:=>\s*)?(\/\S+)\s+\(0x[0-9a-f]+\)/.exec(l)?.[1])
          .filter((p): p is string => p !== undefined && existsSync(p));
        resolve(libs.length > 0 ? libs : fallback());
      },
    );
  });
}
