import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { CapabilityError } from "./errors.js";
import type { CredentialSpec, Manifest } from "./manifest/types.js";

/** Where credential values come from. Only names a manifest declares are ever asked for. */
export interface CredentialSource {
  system(capabilityId: string, name: string): string | undefined;
  user(userId: string, capabilityId: string, name: string): Promise<string | undefined>;
  /** The data directory whose credentials.json holds user values (named in the hint that sets one). */
  readonly dataDir?: string;
}

export interface CredentialSourceOptions {
  /** System-scope values from Palisade config, per capability id. */
  system?: Record<string, Record<string, string>>;
  /** Environment consulted for system scope after config, by the declared name (default: none). */
  env?: Record<string, string | undefined>;
  /** Per-user values (user scope). */
  users?: UserCredentialStore;
}

export function createCredentialSource(options: CredentialSourceOptions = {}): CredentialSource {
  return {
    system: (capabilityId, name) => options.system?.[capabilityId]?.[name] ?? nonEmpty(options.env?.[name]),
    user: async (userId, capabilityId, name) => options.users?.get(userId, capabilityId, name),
    ...(options.users ? { dataDir: dirname(options.users.file) } : {}),
  };
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v === "" ? undefined : v;
}

/**
 * The PostgreSQL history's password (`store.url` in the config) in the credential store: one
 * entry per installation, under a capability id no capability can have (ids are lowercase
 * letters, digits and dashes). Set with `palisade store password set`.
 */
export const STORE_PASSWORD = { user: "local", capability: "@store", name: "password" } as const;

/** The store's password kept in `<data dir>/credentials.json`, if any. */
export async function storedStorePassword(dataDir: string): Promise<string | undefined> {
  const v = await new UserCredentialStore(join(dataDir, "credentials.json")).get(
    STORE_PASSWORD.user,
    STORE_PASSWORD.capability,
    STORE_PASSWORD.name,
  );
  return v === undefined || v === "" ? undefined : v;
}

type UserFile = { users: Record<string, Record<string, Record<string, string>>> };

/** Per-user credentials in one owner-only (0600) JSON file, e.g. `<data dir>/credentials.json`. */
export class UserCredentialStore {
  readonly file: string;

  constructor(file: string) {
    this.file = file;
  }

  async get(userId: string, capabilityId: string, name: string): Promise<string | undefined> {
    return (await this.read()).users[userId]?.[capabilityId]?.[name];
  }

  async set(userId: string, capabilityId: string, name: string, value: string): Promise<void> {
    const data = await this.read();
    ((data.users[userId] ??= {})[capabilityId] ??= {})[name] = value;
    await this.write(data);
  }

  async delete(userId: string, capabilityId: string, name: string): Promise<boolean> {
    const data = await this.read();
    const caps = data.users[userId]?.[capabilityId];
    if (!caps || !(name in caps)) return false;
    delete caps[name];
    await this.write(data);
    return true;
  }

  /** Names (never values) stored for a user, per capability. */
  async names(userId: string): Promise<Record<string, string[]>> {
    const caps = (await this.read()).users[userId] ?? {};
    return Object.fromEntries(Object.entries(caps).map(([cap, vals]) => [cap, Object.keys(vals)]));
  }

  private async read(): Promise<UserFile> {
    try {
      const parsed = JSON.parse(await readFile(this.file, "utf8")) as Partial<UserFile>;
      return { users: parsed.users ?? {} };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return { users: {} };
      throw new CapabilityError(
        "invalid_config",
        `credential store ${this.file} is unreadable (${(err as Error).message}): fix or remove the file`,
      );
    }
  }

  private async write(data: UserFile): Promise<void> {
    await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify(data, null, 2), { mode: 0o600 });
    await chmod(tmp, 0o600);
    await rename(tmp, this.file);
  }
}

/**
 * Collects the declared credentials for one call. Throws `missing_credential` naming exactly
 * how to set the first missing required one; optional missing ones are simply left out.
 */
export async function resolveCredentials(
  manifest: Pick<Manifest, "id" | "credentials">,
  source: CredentialSource,
  userId: string,
): Promise<Record<string, string>> {
  const values: Record<string, string> = {};
  for (const spec of manifest.credentials) {
    const value =
      spec.scope === "system"
        ? source.system(manifest.id, spec.name)
        : await source.user(userId, manifest.id, spec.name);
    if (value !== undefined && value !== "") values[spec.name] = value;
    else if (spec.required)
      throw new CapabilityError(
        "missing_credential",
        missingCredentialMessage(manifest.id, spec, userId, source.dataDir),
      );
  }
  return values;
}

/** `arg` as one shell word. */
function shellWord(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, "'\\''")}'`;
}

/** The error for a missing credential, with the command that sets it (for the Engine's data dir, when known). */
export function missingCredentialMessage(
  capabilityId: string,
  spec: CredentialSpec,
  userId: string,
  dataDir?: string,
): string {
  const about = spec.description ? ` (${spec.description})` : "";
  if (spec.scope === "system") {
    return (
      `capability ${capabilityId} needs the system credential ${spec.name}${about}, which is not set. ` +
      `Set it for everyone in the Palisade config under the capability: \`credentials: { ${spec.name}: "..." }\` ` +
      `in the entry with id: ${capabilityId}, or as the environment variable ${spec.name} of the Engine, then restart the Engine.`
    );
  }
  return (
    `capability ${capabilityId} needs your credential ${spec.name}${about}, which user "${userId}" has not set. ` +
    `Set it with: palisade capability credentials set ${shellWord(capabilityId)} ${shellWord(spec.name)} --user ${shellWord(userId)}` +
    (dataDir ? ` --data-dir ${shellWord(dataDir)}` : "") +
    " (the value is read from stdin, or asked for without echo in a terminal)"
  );
}

/** Replaces every known secret value in text; used on logs, errors and results. */
export class SecretRedactor {
  private readonly secrets = new Set<string>();

  add(value: string): void {
    // Very short values would redact ordinary text; they are not secrets worth the name.
    if (value.length >= 4) this.secrets.add(value);
  }

  redact(text: string): string {
    let out = text;
    for (const s of this.secrets) if (out.includes(s)) out = out.split(s).join("[redacted]");
    return out;
  }
}
