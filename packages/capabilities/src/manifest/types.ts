import type { ManifestPolicy } from "@palisade/protocol/policy";
/** A Selu capability manifest with every default applied. */
export interface Manifest {
  id: string;
  class: "tool" | "environment";
  /** Docker image, as Selu manifests declare it; optional in Palisade (launch mode is config). */
  image?: string;
  toolSource: "manifest" | "dynamic";
  discoveryToolName: string;
  tools: ManifestTool[];
  network: NetworkPolicy;
  filesystem: "none" | "temp" | "workspace";
  /** Palisade extension: what the sandbox binds besides the default view (docs/security.md). */
  sandbox: SandboxPaths;
  credentials: CredentialSpec[];
  resources: Resources;
  /** Absolute path of the manifest file. */
  file: string;
  /** Text of `prompt.md` beside the manifest, for the system prompt; undefined when absent. */
  prompt?: string;
  /** Fields Palisade does not know (kept loadable for Selu manifests), as `path: message`. */
  warnings: string[];
}

export interface ManifestTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  requiresConfirmation: boolean;
  recommendedPolicy?: ManifestPolicy;
  terminalOnSuccess: boolean;
  /** Palisade extension: the tool streams partial output (StreamInvoke); default Invoke. */
  streaming: boolean;
  /** Palisade extension: what the arguments mean to the Shield (kind, recipients, hosts, paths, ...). */
  semantics?: Record<string, unknown>;
}

export interface NetworkPolicy {
  mode: "none" | "allowlist" | "any";
  /** `host`, `host:port`, `*.suffix` or `*.suffix:port`. */
  hosts: string[];
}

/**
 * Host paths a capability needs in its sandbox, beyond the default view: absolute, or `~/…`
 * for the home (which is otherwise invisible). A host unix socket is reachable only when listed
 * in `sockets`.
 */
export interface SandboxPaths {
  /** Toolchains and data bound read-only (e.g. `~/.rustup`, `/opt/jdk`). */
  readOnly: string[];
  /** Caches and directories bound read-write (e.g. `~/.cache/pip`). */
  writable: string[];
  /** Unix sockets, or directories of them, the capability may connect to (e.g. `/run/postgresql`). */
  sockets: string[];
}

export interface CredentialSpec {
  name: string;
  scope: "system" | "user";
  credentialType: "secret";
  required: boolean;
  description: string;
}

export interface Resources {
  maxMemoryMb: number;
  maxCpuFraction: number;
  /** CPU seconds of each process (RLIMIT_CPU in a sandbox). */
  maxCpuSeconds: number;
  pidsLimit: number;
  /** Palisade extension: the largest file a process may write, MiB (RLIMIT_FSIZE); unlimited when absent. */
  maxFileSizeMb?: number;
}

export const RESOURCE_DEFAULTS: Resources = { maxMemoryMb: 128, maxCpuFraction: 0.5, maxCpuSeconds: 30, pidsLimit: 64 };
