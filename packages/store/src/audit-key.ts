// The audit chain's HMAC key lives in a 0600 file in the config directory, outside the database:
// someone who can edit the database (the data directory) cannot recompute the chain without it.
// One file serves every database of the installation; for each database it records the first
// seq written with the key (rows before it were chained before keys existed, plain SHA-256).
import { randomBytes } from "node:crypto";
import { chmod, mkdir, open, readFile, rename, stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import type { AuditKey } from "./audit.js";
import { StoreError } from "./errors.js";

export const AUDIT_KEY_FILE = "audit.key";

interface KeyFile {
  version: 1;
  key: string;
  /** Absolute database path → first seq hashed with the key. */
  databases: Record<string, number>;
}

function parse(text: string, file: string): KeyFile {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new StoreError(
      "AUDIT_KEY",
      `${file} is not a Palisade audit key file (not JSON); move it away to make a new key (older audit entries then no longer verify)`,
    );
  }
  const o = v as Partial<KeyFile> | null;
  if (
    o === null ||
    typeof o !== "object" ||
    o.version !== 1 ||
    typeof o.key !== "string" ||
    !/^[0-9a-f]{64}$/.test(o.key) ||
    o.databases === null ||
    typeof o.databases !== "object"
  ) {
    throw new StoreError("AUDIT_KEY", `${file}: expected {"version": 1, "key": <64 hex>, "databases": {...}}`);
  }
  return o as KeyFile;
}

async function checkMode(file: string): Promise<void> {
  const st = await stat(file);
  if ((st.mode & 0o077) !== 0) {
    throw new StoreError(
      "AUDIT_KEY",
      `${file} is readable or writable by other users (mode ${(st.mode & 0o777).toString(8)}); fix it with: chmod 600 ${file}`,
    );
  }
}

async function write(file: string, content: KeyFile): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  const fh = await open(tmp, "w", 0o600);
  try {
    await fh.writeFile(`${JSON.stringify(content, null, 2)}\n`);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await chmod(tmp, 0o600);
  await rename(tmp, file);
}

/** The key for a database, or undefined when the file does not exist or does not know the database. */
export async function readAuditKey(file: string, databasePath: string): Promise<AuditKey | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new StoreError("AUDIT_KEY", `cannot read the audit key ${file}: ${(e as Error).message}`, { cause: e });
  }
  await checkMode(file);
  const k = parse(text, file);
  const from = k.databases[resolve(databasePath)];
  return from === undefined ? undefined : { key: Buffer.from(k.key, "hex"), fromSeq: from };
}

/**
 * The key for a database, creating the file (0600, directory 0700) or the database's entry when
 * missing: a database first keyed now is keyed from the entry after its current head.
 */
export async function loadOrCreateAuditKey(file: string, databasePath: string, headSeq: number): Promise<AuditKey> {
  const db = resolve(databasePath);
  let k: KeyFile;
  try {
    const text = await readFile(file, "utf8");
    await checkMode(file);
    k = parse(text, file);
  } catch (e) {
    if (!(e instanceof Error && (e as NodeJS.ErrnoException).code === "ENOENT")) throw e;
    k = { version: 1, key: randomBytes(32).toString("hex"), databases: {} };
  }
  let from = k.databases[db];
  if (from === undefined) {
    from = headSeq + 1;
    k.databases[db] = from;
    await write(file, k);
  }
  return { key: Buffer.from(k.key, "hex"), fromSeq: from };
}

/**
 * The key of the file, creating the file when missing, without recording a database in it: a
 * PostgreSQL store keeps the first keyed seq in the database itself, shared by every Engine.
 */
export async function loadOrCreateKeySecret(file: string): Promise<Buffer> {
  try {
    const text = await readFile(file, "utf8");
    await checkMode(file);
    return Buffer.from(parse(text, file).key, "hex");
  } catch (e) {
    if (!(e instanceof Error && (e as NodeJS.ErrnoException).code === "ENOENT")) throw e;
  }
  const k: KeyFile = { version: 1, key: randomBytes(32).toString("hex"), databases: {} };
  await write(file, k);
  return Buffer.from(k.key, "hex");
}
