// Remembers that the running Engine's setup matched this client's, so the next command skips the
// comparison (loading and running the config parser, ~20 ms of a ~150 ms command) while nothing
// it read has changed. The entry's key covers everything the comparison read: the Engine's
// recorded setup, the config file's path and content, and the environment variables the config
// code actually looked at (recorded through a Proxy, so a variable it starts reading later is
// covered without a change here). Values enter the key only as HMACs under the Engine's key salt:
// the file never holds a key. It lives in the data directory (0700, the user's own).
import { createHash, createHmac } from "node:crypto";
import { readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { EngineSetup } from "@palisade/config/discovery";

export const SETUP_CHECK_FILE = "setup-check.json";

interface Entry {
  /** The environment variables the comparison read. */
  env: string[];
  key: string;
}

/** sha256 (hex) of the config file's content, "" when it does not exist: as engine.json records it. */
export async function configDigest(file: string): Promise<string> {
  try {
    return createHash("sha256")
      .update(await readFile(file, "utf8"))
      .digest("hex");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return "";
    throw err;
  }
}

function keyOf(
  started: EngineSetup,
  configFile: string,
  configDigest: string,
  env: Record<string, string | undefined>,
  names: string[],
): string {
  const h = createHash("sha256")
    .update(JSON.stringify(started))
    .update("\0")
    .update(configFile)
    .update("\0")
    .update(configDigest);
  for (const name of [...names].sort()) {
    const value = env[name];
    h.update(`\0${name}=`).update(
      value === undefined ? "-" : createHmac("sha256", started.keySalt).update(value).digest("hex"),
    );
  }
  return h.digest("hex");
}

/** Whether the data dir remembers "no difference" for exactly these inputs. */
export async function knownSame(
  dataDir: string,
  started: EngineSetup,
  configFile: string,
  configDigest: string,
  env: Record<string, string | undefined>,
): Promise<boolean> {
  let entry: Entry;
  try {
    entry = JSON.parse(await readFile(join(dataDir, SETUP_CHECK_FILE), "utf8")) as Entry;
  } catch {
    return false;
  }
  if (!Array.isArray(entry.env) || !entry.env.every((n) => typeof n === "string") || typeof entry.key !== "string")
    return false;
  return entry.key === keyOf(started, configFile, configDigest, env, entry.env);
}

/** Records "no difference" for these inputs (best effort: a read-only data dir just keeps comparing). */
export async function rememberSame(
  dataDir: string,
  started: EngineSetup,
  configFile: string,
  configDigest: string,
  env: Record<string, string | undefined>,
  names: string[],
): Promise<void> {
  const entry: Entry = { env: [...new Set(names)].sort(), key: keyOf(started, configFile, configDigest, env, names) };
  const file = join(dataDir, SETUP_CHECK_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    await writeFile(tmp, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
    await rename(tmp, file);
  } catch {
    // not cached; the next command compares again
  }
}

/** `env` as seen by code that reads it, recording every name it asks for (or enumerates). */
export function recordingEnv(env: Record<string, string | undefined>): { env: NodeJS.ProcessEnv; names: Set<string> } {
  const names = new Set<string>();
  const proxy = new Proxy(env, {
    get(target, p) {
      if (typeof p === "string") names.add(p);
      return Reflect.get(target, p) as unknown;
    },
    has(target, p) {
      if (typeof p === "string") names.add(p);
      return Reflect.has(target, p);
    },
    ownKeys(target) {
      const keys = Reflect.ownKeys(target);
      for (const k of keys) if (typeof k === "string") names.add(k);
      return keys;
    },
    getOwnPropertyDescriptor(target, p) {
      if (typeof p === "string") names.add(p);
      return Reflect.getOwnPropertyDescriptor(target, p);
    },
  });
  return { env: proxy, names };
}
