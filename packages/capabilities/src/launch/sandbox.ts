// Which capability processes run in a bubblewrap sandbox, and the sandbox each one gets:
// from its manifest (filesystem, network, resources) and the Engine's `sandbox:` settings.
import { realpathSync } from "node:fs";
import type { AppliedLimit, EgressEvent, SandboxProbe, SandboxResources, SandboxSpec } from "@palisade/sandbox";
import type { CapabilityConfig } from "../config.js";
import { CapabilityError } from "../errors.js";
import { hostAllowed } from "../manifest/hosts.js";
import type { Manifest, NetworkPolicy } from "../manifest/types.js";

/** The Engine's sandbox settings (config `sandbox:` plus what the Engine knows). */
export interface SandboxSettings {
  /** Whether bubblewrap sandboxes can be made here (probeSandbox). */
  probe: SandboxProbe;
  /** Refuse `filesystem: workspace` capabilities when no sandbox can be made (default true). */
  required: boolean;
  hide: readonly string[];
  readOnly: readonly string[];
  writable: readonly string[];
  /** Palisade's own directories (data, config, runtime): never visible inside. */
  protect: readonly string[];
  /** Addresses the egress proxy may dial although private (e.g. an internal package mirror). */
  allowAddresses: readonly string[];
  /** A 0700 directory for per-launch sandbox state (sockets); short, for unix socket paths. */
  runBase: string;
  /** Each connection an egress proxy decided on, with the sessions that had calls running in that process. */
  onEgress?: (capabilityId: string, event: EgressEvent, sessions: string[]) => void;
}

export interface SandboxPlan {
  spec: SandboxSpec;
  resources: SandboxResources;
  network: NetworkPolicy;
  /** The workspace bound read-write (real path), for `filesystem: workspace`. */
  workspace?: string;
}

/** The effective network policy: the manifest's, with the config's mode (`networkMode`) and extra hosts (`allowHosts`). */
export function effectiveNetwork(manifest: Pick<Manifest, "network">, config: Pick<CapabilityConfig, "networkMode" | "allowHosts">): NetworkPolicy {
  const mode = config.networkMode ?? manifest.network.mode;
  const hosts = mode === "allowlist" ? [...new Set([...manifest.network.hosts, ...(config.allowHosts ?? [])])] : [];
  return { mode, hosts };
}

/** The workspace a `command` capability acts in: its config's `workspace`, else config_json's. */
export function configuredWorkspace(config: CapabilityConfig): string | undefined {
  const fromJson = config.config?.workspace;
  return config.workspace ?? (typeof fromJson === "string" ? fromJson : undefined);
}

/**
 * The sandbox for a `command` capability, or undefined when it runs without one (sandbox: false
 * in its config, or no sandbox possible and not required). Throws CapabilityError("launch")
 * when a sandbox is required and cannot be made.
 */
export function planSandbox(manifest: Manifest, config: CapabilityConfig, settings: SandboxSettings | undefined, workspace: string | undefined): SandboxPlan | undefined {
  if (!settings || config.sandbox === false) return undefined;
  if (!settings.probe.available) {
    if (manifest.filesystem === "workspace" && settings.required) {
      throw new CapabilityError(
        "launch",
        `capability ${config.id} acts in the workspace (filesystem: workspace) and must run in a sandbox, but none can be made here: ${settings.probe.reason ?? "unknown reason"}. ` +
          "Fix that, or set `sandbox: {required: false}` in the Palisade config to run it without one (see docs/security.md for what is lost).",
      );
    }
    return undefined;
  }
  let real: string | undefined;
  if (manifest.filesystem === "workspace") {
    if (!workspace) throw new CapabilityError("launch", `capability ${config.id} has filesystem: workspace but no workspace directory is configured`);
    try {
      real = realpathSync(workspace);
    } catch (err) {
      throw new CapabilityError("launch", `workspace ${workspace} of capability ${config.id} does not exist: ${(err as Error).message}`);
    }
  }
  const network = effectiveNetwork(manifest, config);
  const r = manifest.resources;
  return {
    spec: {
      filesystem: manifest.filesystem,
      ...(real ? { workspace: real } : {}),
      network: network.mode,
      hide: settings.hide,
      readOnly: settings.readOnly,
      writable: settings.writable,
      protect: [...settings.protect, settings.runBase],
      ...(config.cwd ? { cwd: config.cwd } : {}),
    },
    resources: { memoryMb: r.maxMemoryMb, pids: r.pidsLimit, cpuSeconds: r.maxCpuSeconds, ...(r.maxFileSizeMb ? { fileSizeMb: r.maxFileSizeMb } : {}) },
    network,
    ...(real ? { workspace: real } : {}),
  };
}

/** The host filter of the egress proxy for a network policy (`null`: any public host). */
export function hostFilter(network: NetworkPolicy): ((host: string, port: number) => boolean) | null {
  if (network.mode !== "allowlist") return null;
  const hosts = network.hosts;
  return (host, port) => hostAllowed(hosts, host, port);
}

/** One line for `capability list` / `engine status`: what the sandbox allows and how limits were applied. */
export function describeSandbox(plan: SandboxPlan, applied: readonly AppliedLimit[]): string {
  const fs = plan.workspace ? `workspace ${plan.workspace} read-write, system read-only` : "system read-only";
  const net =
    plan.network.mode === "none" ? "no network" : plan.network.mode === "any" ? "network via proxy (public hosts)" : `network via proxy (${plan.network.hosts.length} allowed hosts)`;
  const units: Record<string, string> = { memoryMb: " MiB memory", pids: " processes", cpuSeconds: " CPU s", fileSizeMb: " MiB" };
  const limits = applied.map((a) => `${a.value}${units[a.limit] ?? ""} (${a.by === "none" ? `NOT enforced: ${a.note ?? ""}` : `${a.mechanism ?? a.by}, ${a.note ?? ""}`})`);
  return `bubblewrap: ${fs}, private /tmp, own pid namespace, ${net}; ${limits.join(", ")}`;
}
