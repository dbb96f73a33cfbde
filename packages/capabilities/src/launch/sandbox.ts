// Which capability processes run in a bubblewrap sandbox, and the sandbox each one gets:
// from its manifest (filesystem, network, resources) and the Engine's `sandbox:` settings.
import { existsSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { mkdtemp } from "node:fs/promises";
import { describeView, prepareSandbox, viewMounts } from "@palisade/sandbox";
import type {
  AppliedLimit,
  EgressEvent,
  PreparedSandbox,
  SandboxProbe,
  SandboxResources,
  SandboxSpec,
  ViewEntry,
} from "@palisade/sandbox";
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
  /** Config `sandbox.hide`: hidden even inside a bound path. */
  hide: readonly string[];
  /** Config `sandbox.read_only` / `writable`: bound into every capability's view (e.g. a toolchain, a cache). */
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
  /** What the manifest declared beyond the default view (home expanded; sockets that exist). */
  declared: { readOnly: string[]; writable: string[]; sockets: string[] };
  resources: SandboxResources;
  network: NetworkPolicy;
  /** The workspace bound read-write (real path), for `filesystem: workspace`. */
  workspace?: string;
}

/** The effective network policy: the manifest's, with the config's mode (`networkMode`) and extra hosts (`allowHosts`). */
export function effectiveNetwork(
  manifest: Pick<Manifest, "network">,
  config: Pick<CapabilityConfig, "networkMode" | "allowHosts">,
): NetworkPolicy {
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
export function planSandbox(
  manifest: Manifest,
  config: CapabilityConfig,
  settings: SandboxSettings | undefined,
  workspace: string | undefined,
): SandboxPlan | undefined {
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
    if (!workspace)
      throw new CapabilityError(
        "launch",
        `capability ${config.id} has filesystem: workspace but no workspace directory is configured`,
      );
    try {
      real = realpathSync(workspace);
    } catch (err) {
      throw new CapabilityError(
        "launch",
        `workspace ${workspace} of capability ${config.id} does not exist: ${(err as Error).message}`,
      );
    }
  }
  const network = effectiveNetwork(manifest, config);
  const r = manifest.resources;
  const declared = declaredPaths(manifest.sandbox);
  return {
    spec: {
      filesystem: manifest.filesystem,
      ...(real ? { workspace: real } : {}),
      network: network.mode,
      hide: settings.hide,
      readOnly: [...settings.readOnly, ...declared.readOnly],
      writable: [...settings.writable, ...declared.writable],
      ...(declared.sockets.length > 0 ? { sockets: declared.sockets } : {}),
      protect: [...settings.protect, settings.runBase],
      ...(config.cwd ? { cwd: config.cwd } : {}),
    },
    declared,
    resources: {
      memoryMb: r.maxMemoryMb,
      pids: r.pidsLimit,
      cpuSeconds: r.maxCpuSeconds,
      ...(r.maxFileSizeMb ? { fileSizeMb: r.maxFileSizeMb } : {}),
    },
    network,
    ...(real ? { workspace: real } : {}),
  };
}

export interface CapabilitySandboxOptions {
  /** The capability's id (names its run directory, tags its egress events). */
  id: string;
  command: readonly string[];
  /** Directories of the Engine's own sockets the capability needs (its listening socket's). */
  sockets?: readonly string[];
  /** More of the Engine's directories to hide (its capability runtime directory). */
  protect?: readonly string[];
  /** A Selu-convention server's TCP port inside, relayed from a unix socket outside. */
  inboundPort?: number;
  /** The sessions with calls running in the process, for the egress audit. */
  sessions?: () => string[];
}

/** Prepares one launch's sandbox for a `command` capability: its command line, environment and egress proxy. */
export async function prepareCapabilitySandbox(
  plan: SandboxPlan,
  settings: SandboxSettings,
  options: CapabilitySandboxOptions,
): Promise<PreparedSandbox> {
  const id = options.id;
  return prepareSandbox({
    spec: {
      ...plan.spec,
      sockets: [...(plan.spec.sockets ?? []), ...(options.sockets ?? [])],
      protect: [...(plan.spec.protect ?? []), ...(options.protect ?? [])],
    },
    resources: plan.resources,
    command: options.command,
    runDir: await mkdtemp(join(settings.runBase, `${id.slice(0, 20)}-`)),
    ...(plan.network.mode === "none"
      ? {}
      : {
          egress: {
            allowHost: hostFilter(plan.network),
            allowAddresses: settings.allowAddresses,
            onConnection: (e: EgressEvent) => settings.onEgress?.(id, e, options.sessions?.() ?? []),
          },
        }),
    ...(options.inboundPort !== undefined ? { inboundPort: options.inboundPort } : {}),
    ...(settings.probe.bwrap ? { bwrap: settings.probe.bwrap } : {}),
  });
}

/** `~/x` → the home's x. */
export function expandHome(p: string, home: string = process.env.HOME || homedir()): string {
  return p === "~" ? home : p.startsWith("~/") ? join(home, p.slice(2)) : p;
}

/**
 * A manifest's `sandbox:` paths with the home expanded. A socket that is not there is left out
 * (the capability then fails to connect, as it would on a host without that server).
 */
export function declaredPaths(paths: Manifest["sandbox"] | undefined): SandboxPlan["declared"] {
  return {
    readOnly: (paths?.readOnly ?? []).map((p) => expandHome(p)),
    writable: (paths?.writable ?? []).map((p) => expandHome(p)),
    sockets: (paths?.sockets ?? []).map((p) => expandHome(p)).filter((p) => existsSync(p)),
  };
}

/** The host filter of the egress proxy for a network policy (`null`: any public host). */
export function hostFilter(network: NetworkPolicy): ((host: string, port: number) => boolean) | null {
  if (network.mode !== "allowlist") return null;
  const hosts = network.hosts;
  return (host, port) => hostAllowed(hosts, host, port);
}

/**
 * One line for `capability list` / `engine status`: what the sandbox shows and reaches, and how
 * limits were applied. The full view (every path) is `capability list --verbose`.
 */
export function describeSandbox(plan: SandboxPlan, applied: readonly AppliedLimit[]): string {
  const fs = plan.workspace ? `workspace ${plan.workspace} read-write, system read-only` : "system read-only";
  const extra = [
    ...(plan.spec.readOnly?.length ? [`read-only ${plan.spec.readOnly.join(" ")}`] : []),
    ...(plan.spec.writable?.length ? [`read-write ${plan.spec.writable.join(" ")}`] : []),
  ];
  const sockets =
    plan.declared.sockets.length > 0 ? `host sockets ${plan.declared.sockets.join(" ")} only` : "no host socket";
  const net =
    plan.network.mode === "none"
      ? "no network"
      : plan.network.mode === "any"
        ? "network via proxy (public hosts)"
        : `network via proxy (${plan.network.hosts.length} allowed hosts)`;
  const units: Record<string, string> = {
    memoryMb: " MiB memory",
    pids: " processes",
    cpuSeconds: " CPU s",
    fileSizeMb: " MiB",
  };
  const limits = applied.map(
    (a) =>
      `${a.value}${units[a.limit] ?? ""} (${a.by === "none" ? `NOT enforced: ${a.note ?? ""}` : `${a.mechanism ?? a.by}, ${a.note ?? ""}`})`,
  );
  return `bubblewrap: ${[fs, ...extra].join(", ")}, its code read-only, home empty and private, private /tmp and /run, ${sockets}, own pid namespace, ${net}; ${limits.join(", ")}`;
}

/**
 * The view a sandbox for `command` with `spec` gets, path by path (what `capability list
 * --verbose` prints); the launch's own socket directory is added when it starts.
 */
export function previewView(spec: SandboxSpec, command: readonly string[]): ViewEntry[] {
  return describeView(viewMounts(spec, command, process.env.PATH ? { path: process.env.PATH } : {}));
}
