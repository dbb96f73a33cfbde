import { randomBytes } from "node:crypto";
import { mkdir, readFile, readdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { CapabilityError } from "../errors.js";
import { safeArtifactName } from "./filename.js";

export const DEFAULT_MAX_ARTIFACT_BYTES = 5 * 1024 * 1024;
export const DEFAULT_ARTIFACT_TTL_MS = 6 * 60 * 60 * 1000;
export const ARTIFACT_CHUNK_BYTES = 256 * 1024;

/** Every artifact belongs to one user and one session. */
export interface ArtifactOwner {
  userId: string;
  sessionId: string;
}

export interface ArtifactMeta extends ArtifactOwner {
  artifactId: string;
  filename: string;
  mimeType: string;
  sizeBytes: number;
  /** ms since epoch */
  createdAt: number;
  expiresAt: number;
  /** Where it came from, e.g. `capability:pdf` or `upload`. */
  source?: string;
}

export interface PutArtifact {
  filename: string;
  mimeType: string;
  owner: ArtifactOwner;
  source?: string;
}

/**
 * Artifact storage used by the host (and by the Engine for client downloads/uploads).
 * Lookups take the owner: a missing, expired or foreign artifact is the same `undefined`.
 */
export interface ArtifactStore {
  readonly maxBytes: number;
  put(data: Uint8Array, info: PutArtifact): Promise<ArtifactMeta>;
  stat(artifactId: string, owner: ArtifactOwner): Promise<ArtifactMeta | undefined>;
  read(artifactId: string, owner: ArtifactOwner): Promise<{ meta: ArtifactMeta; data: Uint8Array } | undefined>;
  list(owner: ArtifactOwner): Promise<ArtifactMeta[]>;
  delete(artifactId: string, owner: ArtifactOwner): Promise<boolean>;
  /** Removes expired artifacts; returns how many. */
  sweep(): Promise<number>;
}

export interface DiskArtifactStoreOptions {
  /** Directory for `<id>.bin` + `<id>.json` pairs, e.g. `<data dir>/artifacts`. */
  dir: string;
  maxBytes?: number;
  ttlMs?: number;
  /** Clock, injectable for tests. */
  now?: () => number;
}

const ID = /^art_[0-9a-f]{24}$/;

/** Artifacts as files on disk: bytes and metadata side by side, written atomically. */
export class DiskArtifactStore implements ArtifactStore {
  readonly maxBytes: number;
  readonly ttlMs: number;
  private readonly dir: string;
  private readonly now: () => number;
  private ready: Promise<unknown> | undefined;

  constructor(options: DiskArtifactStoreOptions) {
    this.dir = options.dir;
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_ARTIFACT_BYTES;
    this.ttlMs = options.ttlMs ?? DEFAULT_ARTIFACT_TTL_MS;
    this.now = options.now ?? Date.now;
  }

  async put(data: Uint8Array, info: PutArtifact): Promise<ArtifactMeta> {
    if (data.byteLength > this.maxBytes) throw tooLarge(info.filename, data.byteLength, this.maxBytes);
    await (this.ready ??= mkdir(this.dir, { recursive: true, mode: 0o700 }));
    const meta = newArtifactMeta(data, info, this.now(), this.ttlMs);
    const base = join(this.dir, meta.artifactId);
    await writeFile(`${base}.bin.tmp`, data, { mode: 0o600 });
    await rename(`${base}.bin.tmp`, `${base}.bin`);
    // Metadata last: an artifact exists once its .json does.
    await writeFile(`${base}.json.tmp`, JSON.stringify(meta), { mode: 0o600 });
    await rename(`${base}.json.tmp`, `${base}.json`);
    return meta;
  }

  async stat(artifactId: string, owner: ArtifactOwner): Promise<ArtifactMeta | undefined> {
    const meta = await this.readMeta(artifactId);
    if (!meta || meta.userId !== owner.userId || meta.sessionId !== owner.sessionId) return undefined;
    if (meta.expiresAt <= this.now()) {
      await this.remove(artifactId);
      return undefined;
    }
    return meta;
  }

  async read(artifactId: string, owner: ArtifactOwner): Promise<{ meta: ArtifactMeta; data: Uint8Array } | undefined> {
    const meta = await this.stat(artifactId, owner);
    if (!meta) return undefined;
    const data = await readFile(join(this.dir, `${artifactId}.bin`)).catch(() => undefined);
    return data ? { meta, data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) } : undefined;
  }

  async list(owner: ArtifactOwner): Promise<ArtifactMeta[]> {
    const out: ArtifactMeta[] = [];
    for (const id of await this.ids()) {
      const meta = await this.stat(id, owner);
      if (meta) out.push(meta);
    }
    return out.sort((a, b) => a.createdAt - b.createdAt);
  }

  async delete(artifactId: string, owner: ArtifactOwner): Promise<boolean> {
    if (!(await this.stat(artifactId, owner))) return false;
    await this.remove(artifactId);
    return true;
  }

  async sweep(): Promise<number> {
    let removed = 0;
    const now = this.now();
    for (const id of await this.ids()) {
      const meta = await this.readMeta(id);
      if (meta && meta.expiresAt <= now) {
        await this.remove(id);
        removed++;
      }
    }
    return removed;
  }

  private async ids(): Promise<string[]> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    return names
      .filter((n) => n.endsWith(".json"))
      .map((n) => n.slice(0, -".json".length))
      .filter((id) => ID.test(id));
  }

  private async readMeta(artifactId: string): Promise<ArtifactMeta | undefined> {
    if (!ID.test(artifactId)) return undefined;
    try {
      return JSON.parse(await readFile(join(this.dir, `${artifactId}.json`), "utf8")) as ArtifactMeta;
    } catch {
      return undefined;
    }
  }

  private async remove(artifactId: string): Promise<void> {
    const base = join(this.dir, artifactId);
    await rm(`${base}.json`, { force: true });
    await rm(`${base}.bin`, { force: true });
  }
}

/** The record of a new artifact of `data`, with a fresh id, expiring `ttlMs` after `now`. */
export function newArtifactMeta(data: Uint8Array, info: PutArtifact, now: number, ttlMs: number): ArtifactMeta {
  return {
    artifactId: `art_${randomBytes(12).toString("hex")}`,
    // chosen by a capability: bidi overrides, control and zero-width characters made plain
    filename: safeArtifactName(info.filename),
    mimeType: info.mimeType,
    sizeBytes: data.byteLength,
    userId: info.owner.userId,
    sessionId: info.owner.sessionId,
    createdAt: now,
    expiresAt: now + ttlMs,
    ...(info.source === undefined ? {} : { source: info.source }),
  };
}

export function tooLarge(filename: string, size: number | string, max: number): CapabilityError {
  return new CapabilityError(
    "artifact_too_large",
    `artifact "${filename}" is ${typeof size === "number" ? `${size} bytes` : size}, over the ${formatBytes(max)} limit (${max} bytes): produce a smaller file or raise the artifact size limit in the Palisade config`,
  );
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

/** Splits bytes into transfer chunks (256 KiB by default); empty data gives one empty chunk. */
export function* chunksOf(data: Uint8Array, size = ARTIFACT_CHUNK_BYTES): Generator<Uint8Array> {
  if (data.byteLength === 0) {
    yield data;
    return;
  }
  for (let i = 0; i < data.byteLength; i += size) yield data.subarray(i, Math.min(i + size, data.byteLength));
}

/** Same message for missing, expired and foreign artifacts: never confirm another session's id. */
export function artifactNotFound(artifactId: string): CapabilityError {
  return new CapabilityError(
    "artifact_not_found",
    `artifact "${artifactId}" was not found in this session (it may have expired, or belong to another session): use an artifact_id produced in this session, or produce the file again`,
  );
}
