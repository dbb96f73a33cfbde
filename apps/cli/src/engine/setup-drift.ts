// Whether the running Engine started with the setup this client would start one with: a model
// exported after it started, an edited config file, another --config. Keys are compared by
// fingerprint only (engine.json holds an HMAC), and never printed.
import type { EngineInfo } from "@palisade/config/discovery";
import type { SetupChange } from "@palisade/config/setup";
import type { PalisadePaths } from "../engine-address.js";
import { configDigest, knownSame, recordingEnv, rememberSame } from "./setup-check-cache.js";

export interface SetupDrift {
  changes: SetupChange[];
  /** The current config file's problems (path-precise), when it is invalid now. */
  problems?: string;
}

/**
 * What differs between the running Engine's recorded setup and the current one; undefined when
 * nothing does. "Nothing" is remembered in the data dir for the same inputs (setup-check-cache.ts).
 */
export async function setupDrift(
  paths: PalisadePaths,
  env: Record<string, string | undefined>,
  info: EngineInfo,
): Promise<SetupDrift | undefined> {
  const started = info.setup;
  if (!started) return undefined; // an older Engine recorded nothing to compare with
  let digest: string | undefined;
  try {
    digest = await configDigest(paths.configFile);
    if (await knownSame(paths.dataDir, started, paths.configFile, digest, env)) return undefined;
  } catch {
    digest = undefined; // unreadable: compared below, which reports it
  }
  const { currentSetup, setupChanges } = await import("@palisade/config/setup");
  const seen = recordingEnv(env);
  const now = await currentSetup(paths.configFile, seen.env, { dataDir: paths.dataDir, keySalt: started.keySalt });
  const changes = setupChanges(started, now);
  if (changes.length === 0) {
    // Only a valid config read as the same content: an invalid one compares the file alone.
    if (now.ok && digest !== undefined && now.setup.configSha256 === digest) {
      await rememberSame(paths.dataDir, started, paths.configFile, digest, env, [...seen.names]);
    }
    return undefined;
  }
  return now.ok ? { changes } : { changes, problems: now.error.message };
}

/** The drift as lines a person reads: what differs (old → new), then the command that applies it. */
export function driftLines(d: SetupDrift, restartCommand: string): string[] {
  const lines = ["The running Engine started with a different setup than this one:"];
  for (const c of d.changes) lines.push(`  ${c.what}: ${c.from} → ${c.to}`);
  if (d.problems) {
    lines.push("The config file is now invalid; the running Engine keeps what it read at start.");
    lines.push(...d.problems.split("\n"));
    lines.push("Fix it, then restart the Engine:");
  } else {
    lines.push("To use the current one, restart the Engine (running turns finish first, sessions are kept):");
  }
  // On a line of its own, so it can be copied whole.
  lines.push(`  ${restartCommand}`);
  return lines;
}
