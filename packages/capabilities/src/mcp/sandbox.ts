import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { prepareSandbox } from "@palisade/sandbox";
import type { EgressEvent } from "@palisade/sandbox";
import { hostAllowed } from "../manifest/hosts.js";
import type { StdioWrapper } from "./launch.js";

export interface SandboxedStdioOptions {
  /** The Engine's workspace: read-write for servers with `filesystem: workspace`. */
  workspace: string;
  /** Palisade's own directories (data, config, policy): never visible inside. */
  protect: readonly string[];
  /** A 0700 directory for each launch's run directory (proxy socket). */
  runRoot: string;
  onEgress?: (capabilityId: string, event: EgressEvent) => void;
}

/**
 * Runs each stdio MCP server in a bubblewrap sandbox built from its config: the system
 * read-only, the workspace read-write (`filesystem: workspace`), credentials and Palisade's
 * directories hidden, no network or egress only through the allowlisting proxy (`network`),
 * killed with the Engine (bubblewrap's --die-with-parent).
 */
export function sandboxedStdio(options: SandboxedStdioOptions): StdioWrapper {
  return async (spec, context) => {
    const { network } = context;
    const prepared = await prepareSandbox({
      spec: {
        filesystem: context.filesystem,
        ...(context.filesystem === "workspace" ? { workspace: options.workspace } : {}),
        network: network.mode,
        protect: options.protect,
        ...(spec.cwd ? { cwd: spec.cwd } : {}),
      },
      command: [spec.command, ...spec.args],
      runDir: join(options.runRoot, `${context.capabilityId}-${randomBytes(4).toString("hex")}`),
      env: spec.env,
      ...(network.mode === "none"
        ? {}
        : {
            egress: {
              allowHost: network.mode === "any" ? null : (host: string, port: number) => hostAllowed(network.hosts, host, port),
              ...(options.onEgress ? { onConnection: (e: EgressEvent) => options.onEgress?.(context.capabilityId, e) } : {}),
            },
          }),
    });
    const [command = "", ...args] = prepared.argv;
    // The working directory is set inside the sandbox (bubblewrap --chdir).
    return { command, args, env: prepared.env, close: () => prepared.close() };
  };
}
