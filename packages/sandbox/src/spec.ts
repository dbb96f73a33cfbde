/** What a sandboxed process may see and do: built from a capability manifest and the config. */
export interface SandboxSpec {
  /**
   * `none` and `temp`: the system read-only and a private /tmp; `workspace`: the same plus
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
  /** Paths never visible, added to the defaults (credentials, other homes, ...). */
  hide?: readonly string[];
  /** Paths made read-only (e.g. a directory inside the workspace). */
  readOnly?: readonly string[];
  /** Extra paths made read-write. */
  writable?: readonly string[];
  /** Palisade's own data, config and runtime directories: always hidden, even inside a writable path. */
  protect?: readonly string[];
  /** Home directory whose secrets are hidden (default: the current user's). */
  home?: string;
  /** Size of the private /tmp, MiB (default 256). */
  tmpSizeMb?: number;
  /** Working directory inside the sandbox (default the workspace, else /). */
  cwd?: string;
  /** Paths bound read-write at the same place, not subject to hiding (e.g. the launch's socket directory). */
  sockets?: readonly string[];
  /**
   * The programs run inside (the Node binary, scripts, their packages). They are visible through
   * the read-only system anyway, except under /tmp, which the sandbox replaces with its own: there
   * the top directory holding each (e.g. a checkout in /tmp/build) is bound back read-only.
   */
  code?: readonly string[];
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
