import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { prepareSandbox } from "@palisade/sandbox";
import type { EgressEvent, SandboxSpec } from "@palisade/sandbox";
import { hostAllowed } from "../manifest/hosts.js";
import type { StdioContext, StdioWrapper } from "./launch.js";

export interface SandboxedStdioOptions {
  /** The Engine's workspace: read-write for servers with `filesystem: workspace`. */
  workspace: string;
  /** Palisade's own directories (data, config, policy): hidden wherever a bind would show them. */
  protect: readonly string[];
  /** Config `sandbox.read_only`, `writable` and `hide`: the same for every server (default none). */
  readOnly?: readonly string[];
  writable?: readonly string[];
  hide?: readonly string[];
  /** A 0700 directory for each launch's run directory (proxy socket). */
  runRoot: string;
  onEgress?: (capabilityId: string, event: EgressEvent) => void;
}

/**
 * Runs each stdio MCP server in a bubblewrap sandbox with the same view as a Selu capability:
 * the system read-only, the server's own code read-only (its package and dependencies), the
 * workspace read-write (`filesystem: workspace`), an empty private home, /tmp and /run, and
 * nothing else of the host (no other file, no host socket); no network or egress only through
 * the allowlisting proxy (`network`); killed with the Engine (bubblewrap's --die-with-parent).
 */
export function sandboxedStdio(options: SandboxedStdioOptions): StdioWrapper {
  return async (spec, context) => {
    const { network } = context;
    const prepared = await prepareSandbox({
      spec: stdioSandboxSpec(options, context, spec.cwd),
      command: [spec.command, ...spec.args],
      runDir: join(options.runRoot, `${context.capabilityId}-${randomBytes(4).toString("hex")}`),
      env: spec.env,
      ...(network.mode === "none"
        ? {}
        : {
            egress: {
              allowHost:
                network.mode === "any" ? null : (host: string, port: number) => hostAllowed(network.hosts, host, port),
              ...(options.onEgress
                ? { onConnection: (e: EgressEvent) => options.onEgress?.(context.capabilityId, e) }
                : {}),
            },
          }),
    });
    const [command = "", ...args] = prepared.argv;
    // The working directory is set inside the sandbox (bubblewrap --chdir).
    return { command, args, env: prepared.env, close: () => prepared.close() };
  };
}

/** The sandbox spec of a stdio server (also what `capability list --verbose` shows). */
export function stdioSandboxSpec(
  options: Pick<SandboxedStdioOptions, "workspace" | "protect" | "readOnly" | "writable" | "hide">,
  context: Pick<StdioContext, "filesystem" | "network">,
  cwd?: string,
): SandboxSpec {
  return {
    filesystem: context.filesystem,
    ...(context.filesystem === "workspace" ? { workspace: options.workspace } : {}),
    network: context.network.mode,
    protect: options.protect,
    ...(options.readOnly ? { readOnly: options.readOnly } : {}),
    ...(options.writable ? { writable: options.writable } : {}),
    ...(options.hide ? { hide: options.hide } : {}),
    ...(cwd ? { cwd } : {}),
  };
}
