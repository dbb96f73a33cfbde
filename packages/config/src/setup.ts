// What an Engine runs with (config file and its hash, model, base URL, a fingerprint of the key),
// and how that differs from what an Engine started now would run with. The running Engine
// records its setup in engine.json; a client compares it with its own environment and config.
// Imported by the CLI through `@palisade/config/setup`: config parsing only, no engine internals.
import { createHmac, randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { defaultConfig, applyEnv, sha256Hex } from "./config.js";
import { parseConfig } from "./parse.js";
import type { EngineConfig } from "./config.js";
import type { EngineSetup } from "./discovery.js";
import { ConfigError } from "./errors.js";

/** HMAC-SHA256 of the key under `salt`: comparable, never reversible to the key; "" for no key. */
export function keyHmac(key: string | undefined, salt: string): string {
  return key ? createHmac("sha256", salt).update(key).digest("hex") : "";
}

export interface SetupSource {
  /** The config file the Engine was told to read (used when the config has no `source`). */
  configFile: string;
  dataDir: string;
  demo?: boolean;
  /** Salt of the key's HMAC (default: fresh random bytes). */
  keySalt?: string;
}

export function setupOf(config: EngineConfig, o: SetupSource): EngineSetup {
  const keySalt = o.keySalt ?? randomBytes(16).toString("hex");
  return {
    configFile: config.source ?? o.configFile,
    configSha256: config.sourceSha256 ?? "",
    model: config.model.name,
    baseUrl: config.model.baseUrl ?? "",
    apiKeyHmac: keyHmac(config.model.apiKey, keySalt),
    keySalt,
    dataDir: o.dataDir,
    demo: o.demo ?? false,
  };
}

/** What an Engine started now would run with; an invalid config file keeps its problems. */
export type CurrentSetup =
  { ok: true; setup: EngineSetup } | { ok: false; configFile: string; configSha256: string; error: ConfigError };

/** Reads `configFile` with `env` as an Engine starting now would (the key hashed under `keySalt`). */
export async function currentSetup(
  configFile: string,
  env: NodeJS.ProcessEnv,
  o: { dataDir: string; keySalt: string },
): Promise<CurrentSetup> {
  let text: string | undefined;
  try {
    text = await readFile(configFile, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") {
      const error = new ConfigError([
        { file: configFile, path: "", message: `cannot read: ${(err as Error).message}` },
      ]);
      return { ok: false, configFile, configSha256: "", error };
    }
  }
  try {
    const config = text === undefined ? applyEnv(defaultConfig(), env) : parseConfig(text, { file: configFile, env });
    return { ok: true, setup: setupOf(config, { configFile, dataDir: o.dataDir, keySalt: o.keySalt }) };
  } catch (err) {
    if (err instanceof ConfigError)
      return { ok: false, configFile, configSha256: text === undefined ? "" : sha256Hex(text), error: err };
    throw err;
  }
}

/** Whether the config file an Engine started with has other content now (edited, created or deleted). */
export async function configFileChanged(started: Pick<EngineSetup, "configFile" | "configSha256">): Promise<boolean> {
  try {
    return sha256Hex(await readFile(started.configFile, "utf8")) !== started.configSha256;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT" ? started.configSha256 !== "" : true;
  }
}

export interface SetupChange {
  /** "config file", "config file content", "model", "base URL" or "API key". */
  what: string;
  /** As the Engine started (never a secret). */
  from: string;
  /** As an Engine started now would have it. */
  to: string;
}

const content = (sha: string): string => (sha ? `sha256 ${sha.slice(0, 12)}` : "no file (defaults)");
const orNone = (v: string): string => v || "(none)";

/**
 * What differs between the setup an Engine started with and the current one, in the order a
 * person reads it. A demo Engine's model is the demo's: only its config file is compared.
 */
export function setupChanges(started: EngineSetup, now: CurrentSetup): SetupChange[] {
  const out: SetupChange[] = [];
  const configFile = now.ok ? now.setup.configFile : now.configFile;
  const sha = now.ok ? now.setup.configSha256 : now.configSha256;
  if (configFile !== started.configFile) out.push({ what: "config file", from: started.configFile, to: configFile });
  else if (sha !== started.configSha256)
    out.push({ what: "config file content", from: content(started.configSha256), to: content(sha) });
  if (!now.ok || started.demo) return out;
  const s = now.setup;
  if (s.model !== started.model) out.push({ what: "model", from: started.model, to: s.model });
  if (s.baseUrl !== started.baseUrl)
    out.push({ what: "base URL", from: orNone(started.baseUrl), to: orNone(s.baseUrl) });
  if (s.apiKeyHmac !== started.apiKeyHmac) {
    const key = (hmac: string, other: string): string => (!hmac ? "(none)" : other ? "a different key" : "a key");
    out.push({ what: "API key", from: key(started.apiKeyHmac, ""), to: key(s.apiKeyHmac, started.apiKeyHmac) });
  }
  return out;
}
