// ToolHost over @palisade/capabilities' CapabilityHost, with the built-in capabilities as defaults.
// Until that package lands: no tools.
import type { CapabilityEntry, EngineConfig } from "../config.js";
import type { ToolHost } from "../ports.js";

export interface HostRequest {
  config: EngineConfig;
  dataDir: string;
  workspace: string;
  log: (line: string) => void;
  merge: (defaults: readonly CapabilityEntry[], user: readonly CapabilityEntry[]) => CapabilityEntry[];
}

export async function openCapabilityHost(_req: HostRequest): Promise<ToolHost> {
  return {
    catalog: () => [],
    groups: () => [],
    resolve: (name) => ({ error: `Unknown tool ${name}: no capabilities are available.` }),
    invoke: async () => ({ ok: false, content: "no capabilities are available", artifacts: [] }),
    prompts: () => [],
    status: () => [],
    artifact: async () => undefined,
    close: async () => undefined,
  };
}
