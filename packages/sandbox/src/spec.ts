/**
 * What a sandboxed process may see and do: built from a capability manifest and the config.
 * The view is an allowlist: the system directories read-only, and only what the fields below
 * list. Whatever is not listed is not there at all (not merely read-only: a unix socket is
 * reachable through a read-only mount, so it must not be in the view).
 */
export interface SandboxSpec {
  /**
   * `none` and `temp`: the system view and a private /tmp; `workspace`: the same plus
   * `workspace` read-write (at its real path).
   */
  filesystem: "none" | "temp" | "workspace";
  /** Absolute directory, required with `filesystem: workspace`. */
  workspace?: string;
  /**
   * `none`: no network interface but loopback. `allowlist` and `any`: the same, plus an HTTP
   * proxy on 127.0.0.1 inside that relays to the Engine's egress proxy (see EgressProxy).
   */
  network: "none" | "allowlist" | "any";
  /** Paths never visible, even inside a path the view binds (the workspace, a writable or read-only path). */
  hide?: readonly string[];
  /** Paths bound read-only (toolchains, a directory inside the workspace made read-only). */
  readOnly?: readonly string[];
  /** Paths bound read-write (caches, toolchain directories that are written). */
  writable?: readonly string[];
  /** Palisade's own data, config and runtime directories: hidden wherever a bind would show them. */
  protect?: readonly string[];
  /**
   * The home directory (default: the current user's). Inside it is a private, empty directory
   * (HOME), so tools that write there work; nothing of the host's home is visible unless a field
   * above lists it.
   */
  home?: string;
  /** Size of the private /tmp and home, MiB (default 256 each). */
  tmpSizeMb?: number;
  /** Working directory inside the sandbox (default the workspace, else /). */
  cwd?: string;
  /**
   * Unix sockets, or directories holding them, bound read-write at the same place: the Engine's
   * own (the launch's socket directory, the egress proxy's) and a host socket a capability
   * declares. No other socket of the host is in the view.
   */
  sockets?: readonly string[];
  /**
   * The programs run inside and the packages they load (see codeView): bound read-only at
   * their real paths.
   */
  code?: readonly string[];
  /** Symbolic links to recreate inside (e.g. node_modules/.bin entries, linked workspace packages). */
  links?: ReadonlyArray<{ dest: string; target: string }>;
  /** Files made for this sandbox (e.g. an /etc/passwd naming only its user), bound read-only at `dest`. */
  files?: ReadonlyArray<{ src: string; dest: string }>;
}

/** Resource limits, as a manifest's `resources` gives them. Absent: not limited. */
export interface SandboxResources {
  memoryMb?: number;
  pids?: number;
  cpuSeconds?: number;
  /** Largest file a process may write, MiB. */
  fileSizeMb?: number;
}

/** How a limit was enforced, or why it was not. */
export interface AppliedLimit {
  limit: keyof SandboxResources;
  value: number;
  /** `cgroup` (the whole sandbox), `rlimit` (per process, set with prlimit), or `none`. */
  by: "cgroup" | "rlimit" | "none";
  /** The exact mechanism, e.g. "memory cgroup v1", "RLIMIT_DATA 832 MiB"; absent with `none`. */
  mechanism?: string;
  /** What the limit covers ("the whole sandbox", "each process"), or why it is not enforced. */
  note?: string;
}
