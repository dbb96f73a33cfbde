// The Engine's default collaborators, each built by its adapter file; options override any.
import type { CapabilityEntry, EngineConfig } from "@palisade/config";
import type { AgentLauncher, EngineShield, EngineStore, ToolHost } from "../ports.js";
import { openCapabilityHost } from "./capabilities.js";
import { createEngineShield } from "./shield.js";
import { openPostgresStore } from "./postgres-store.js";
import { openSqliteStore } from "./sqlite-store.js";
import type { SandboxProbe } from "@palisade/sandbox";
import type { EgressHook } from "./sandbox.js";
import type { OtrHook } from "./capabilities.js";

export interface PartsRequest {
  dataDir: string;
  config: EngineConfig;
  workspace: string;
  log: (line: string) => void;
  mergeCapabilities: (defaults: readonly CapabilityEntry[], user: readonly CapabilityEntry[]) => CapabilityEntry[];
  /** The audit chain's HMAC key file (in the config directory); the default store keys its chain with it. */
  auditKeyFile?: string;
  /** Whether tool sandboxes can be made here. */
  sandboxProbe?: SandboxProbe;
  egress?: EgressHook;
  /** Names the off-the-record sessions (set once the session directory exists): their artifacts stay in memory. */
  otr?: OtrHook;
  store?: EngineStore;
  shield?: EngineShield;
  host?: ToolHost;
  launcher?: AgentLauncher;
}

export interface Parts {
  store: EngineStore;
  shield: EngineShield;
  host: ToolHost;
  /** The launcher given (the Engine makes the default one: it depends on the Agent's wall). */
  launcher?: AgentLauncher;
}

export async function defaultParts(req: PartsRequest): Promise<Parts> {
  const store =
    req.store ??
    (req.config.store
      ? await openPostgresStore(req.config.store, req.log, req.auditKeyFile, { dataDir: req.dataDir })
      : await openSqliteStore(req.dataDir, req.log, req.auditKeyFile));
  try {
    const shield = req.shield ?? (await createEngineShield(req.config, req.dataDir, req.workspace));
    const host =
      req.host ??
      (await openCapabilityHost({
        config: req.config,
        dataDir: req.dataDir,
        workspace: req.workspace,
        log: req.log,
        merge: req.mergeCapabilities,
        lifecycle: true,
        ...(req.sandboxProbe ? { sandboxProbe: req.sandboxProbe } : {}),
        ...(req.egress ? { egress: req.egress } : {}),
        ...(req.otr ? { otr: req.otr } : {}),
        ...(req.auditKeyFile ? { protect: [req.auditKeyFile] } : {}),
      }));
    return { store, shield, host, ...(req.launcher ? { launcher: req.launcher } : {}) };
  } catch (err) {
    if (!req.store) await store.close();
    throw err;
  }
}
