// The Engine's capability host, Shield and argument validation without the rest of the Engine:
// `palisade capability list|call` see and call exactly the tools a running Engine would (the same
// config, built-ins, policy, protected paths, credentials and artifact store).
import { dirname, resolve } from "node:path";
import { probeSandboxOnce } from "@palisade/sandbox";
import {
  builtinCapabilities,
  loadConfig,
  mergeCapabilities,
  auditKeyPath,
  ensureDataDir,
  resolveConfigPath,
  resolveDataDir,
} from "@palisade/config";
import { openCapabilityHost } from "../adapters/capabilities.js";
import { createEngineShield } from "../adapters/shield.js";
import type { CapabilityEntry, EngineConfig } from "@palisade/config";
import type { EngineShield, ToolHost, ToolSpec } from "../ports.js";
import { ArgumentValidator } from "./validate.js";

export interface LocalToolsOptions {
  configPath?: string;
  dataDir?: string;
  /** The directory the files and shell capabilities act in. */
  workspace: string;
  env?: NodeJS.ProcessEnv;
  /** Capability start-up lines (default: dropped). */
  log?: (line: string) => void;
  /** Start only these entries instead of the built-ins and the configured ones (e.g. a manifest and an address). */
  only?: CapabilityEntry[];
  /** Start only the capabilities with these ids (of the built-ins and the configured ones). */
  select?: string[];
  /** Of the chosen capabilities, start only these (default: all); the rest are still listed in `capabilities`. */
  start?: string[];
  /** Told the ids about to be started (in parallel), before any starts. */
  onStarting?: (ids: string[]) => void;
}

export interface LocalCapability {
  id: string;
  /** Absolute path of its manifest, when the entry names one. */
  manifest?: string;
  /** The entry as configured (built-ins merged with the config). */
  entry: CapabilityEntry;
}

export interface LocalTools {
  config: EngineConfig;
  configPath: string;
  dataDir: string;
  workspace: string;
  shield: EngineShield;
  host: ToolHost;
  /** Every enabled capability (built-ins merged with the config), started or not. */
  capabilities: LocalCapability[];
  /** Undefined when `args` fit the tool's schema, else every problem in one line. */
  validate(tool: ToolSpec, args: unknown): string | undefined;
  close(): Promise<void>;
}

/** Loads the config and starts its capabilities; throws ConfigError on an invalid config. */
export async function openLocalTools(options: LocalToolsOptions): Promise<LocalTools> {
  const env = options.env ?? process.env;
  const log = options.log ?? (() => undefined);
  const dataDir = resolveDataDir({ ...(options.dataDir ? { dataDir: options.dataDir } : {}), env });
  const configPath = resolveConfigPath({ ...(options.configPath ? { configPath: options.configPath } : {}), env });
  const config = await loadConfig(configPath, env);
  const workspace = options.workspace;
  await ensureDataDir(dataDir);
  const shield = await createEngineShield(config, dataDir, workspace);
  const baseDir = config.source ? dirname(config.source) : process.cwd();
  const select = options.select;
  const chosen = (all: CapabilityEntry[]): CapabilityEntry[] =>
    select ? all.filter((e) => select.includes(e.id)) : all;
  const only = options.only;
  const start = options.start;
  const started = (all: CapabilityEntry[]): CapabilityEntry[] => {
    const picked = start ? all.filter((e) => start.includes(e.id)) : all;
    options.onStarting?.(picked.map((e) => e.id));
    return picked;
  };
  const merge = only
    ? (): CapabilityEntry[] => started(only)
    : (d: readonly CapabilityEntry[], u: readonly CapabilityEntry[]): CapabilityEntry[] =>
        started(chosen(mergeCapabilities(d, u)));
  const entries = only ?? chosen(mergeCapabilities(await builtinCapabilities(workspace, log), config.capabilities));
  const capabilities = entries.map((e) => ({
    id: e.id,
    entry: e,
    ...(typeof e["manifest"] === "string" ? { manifest: resolve(baseDir, e["manifest"]) } : {}),
  }));
  // Sandboxed like the Engine's: the same probe, hidden directories (the audit key beside the config) and limits.
  const sandboxProbe = await probeSandboxOnce();
  const host = await openCapabilityHost({
    config,
    dataDir,
    workspace,
    log,
    merge,
    sandboxProbe,
    protect: [auditKeyPath(configPath)],
  });
  const validator = new ArgumentValidator();
  return {
    config,
    configPath,
    dataDir,
    workspace,
    shield,
    host,
    capabilities,
    validate: (tool, args) => validator.validate(tool.name, tool.parameters, args),
    close: () => host.close(),
  };
}
