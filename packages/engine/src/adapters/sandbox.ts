// The Engine's tool sandbox settings: its own directories hidden from every sandbox, the config's
// `sandbox:` section, a private directory for per-launch sockets, and the egress audit hook.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SandboxSettings } from "@palisade/capabilities";
import type { EgressEvent, SandboxProbe } from "@palisade/sandbox";
import type { EngineConfig } from "@palisade/config";

/** Set by the Engine once its audit trail exists; called for each connection a sandbox proxy decided on. */
export interface EgressHook {
  listener?: (capabilityId: string, event: EgressEvent, sessionIds: string[]) => void;
}

/** `engine status` and the start log: whether tools run contained, and what happens when they cannot. */
export function toolSandboxLine(probe: SandboxProbe, required: boolean): string {
  if (probe.available)
    return `tool sandbox: bubblewrap ${probe.version ?? ""} (own user, pid and network namespaces)`.replace("  ", " ");
  return `tool sandbox: UNAVAILABLE (${probe.reason ?? "unknown reason"}); ${
    required
      ? "capabilities with filesystem: workspace (files, shell) will not start; set sandbox.required: false to run them unsandboxed"
      : "sandbox.required is false: capabilities run WITHOUT a sandbox (see docs/security.md for what is lost)"
  }`;
}

export function sandboxSettings(
  config: EngineConfig,
  dataDir: string,
  probe: SandboxProbe,
  egress: EgressHook | undefined,
  log: (line: string) => void,
  extraProtect: readonly string[] = [],
): { settings: SandboxSettings; remove: () => void } {
  // Short and private: unix socket paths are limited to 107 bytes.
  const runBase = mkdtempSync(join(tmpdir(), "palisade-sbx-"));
  // The config file itself (not its directory, which may be the workspace).
  const protect = [
    dataDir,
    ...(config.source ? [config.source] : []),
    ...(config.shield.policyFile ? [config.shield.policyFile] : []),
    ...extraProtect,
  ];
  return {
    settings: {
      probe,
      required: config.sandbox.required,
      hide: config.sandbox.hide,
      readOnly: config.sandbox.readOnly,
      writable: config.sandbox.writable,
      protect,
      allowAddresses: config.sandbox.allowAddresses,
      runBase,
      onEgress: (capabilityId, event, sessions) => {
        if (!event.allowed)
          log(
            `sandbox egress refused for ${capabilityId}: ${event.method} ${event.host}:${event.port}: ${event.reason ?? ""}`,
          );
        egress?.listener?.(capabilityId, event, sessions);
      },
    },
    remove: () => rmSync(runBase, { recursive: true, force: true }),
  };
}
