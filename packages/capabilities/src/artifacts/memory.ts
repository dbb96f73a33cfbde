// Artifacts that must never touch the disk (off-the-record sessions): bytes in this process's
// memory only, bounded in total, gone when their session is dropped or the process exits.
// SessionRoutedArtifactStore puts them there for the sessions a predicate names and sends
// everything else to the disk store.
import { CapabilityError } from "../errors.js";
import {
  DEFAULT_ARTIFACT_TTL_MS,
  DEFAULT_MAX_ARTIFACT_BYTES,
  formatBytes,
  newArtifactMeta,
  tooLarge,
} from "./store.js";
import type { ArtifactMeta, ArtifactOwner, ArtifactStore, PutArtifact } from "./store.js";

export const DEFAULT_MEMORY_ARTIFACT_TOTAL_BYTES = 64 * 1024 * 1024;

export interface MemoryArtifactStoreOptions {
  maxBytes?: number;
  /** All artifacts together at most (64 MiB): the Engine's memory is not a disk. */
  maxTotalBytes?: number;
  ttlMs?: number;
  now?: () => number;
}

export class MemoryArtifactStore implements ArtifactStore {
  readonly maxBytes: number;
  private readonly maxTotalBytes: number;
  private readonly ttlMs: number;
  private readonly now: () => number;
  private readonly items = new Map<string, { meta: ArtifactMeta; data: Uint8Array }>();
  private total = 0;

  constructor(options: MemoryArtifactStoreOptions = {}) {
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_ARTIFACT_BYTES;
    this.maxTotalBytes = options.maxTotalBytes ?? DEFAULT_MEMORY_ARTIFACT_TOTAL_BYTES;
    this.ttlMs = options.ttlMs ?? DEFAULT_ARTIFACT_TTL_MS;
    this.now = options.now ?? Date.now;
  }

  /** Bytes held now. */
  get totalBytes(): number {
    return this.total;
  }

  put(data: Uint8Array, info: PutArtifact): Promise<ArtifactMeta> {
    if (data.byteLength > this.maxBytes) return Promise.reject(tooLarge(info.filename, data.byteLength, this.maxBytes));
    if (this.total + data.byteLength > this.maxTotalBytes) {
      return Promise.reject(
        new CapabilityError(
          "artifact_too_large",
          `artifact "${info.filename}" (${data.byteLength} bytes) does not fit: off-the-record artifacts are kept in memory only, at most ${formatBytes(this.maxTotalBytes)} in all, and ${this.total} bytes are in use; end an off-the-record session to free its artifacts, or produce a smaller file`,
        ),
      );
    }
    const meta = newArtifactMeta(data, info, this.now(), this.ttlMs);
    // A copy: the caller's buffer may be reused.
    this.items.set(meta.artifactId, { meta, data: new Uint8Array(data) });
    this.total += data.byteLength;
    return Promise.resolve(meta);
  }

  stat(artifactId: string, owner: ArtifactOwner): Promise<ArtifactMeta | undefined> {
    return Promise.resolve(this.find(artifactId, owner)?.meta);
  }

  read(artifactId: string, owner: ArtifactOwner): Promise<{ meta: ArtifactMeta; data: Uint8Array } | undefined> {
    const item = this.find(artifactId, owner);
    return Promise.resolve(item ? { meta: item.meta, data: item.data } : undefined);
  }

  list(owner: ArtifactOwner): Promise<ArtifactMeta[]> {
    const out: ArtifactMeta[] = [];
    for (const id of [...this.items.keys()]) {
      const item = this.find(id, owner);
      if (item) out.push(item.meta);
    }
    return Promise.resolve(out.sort((a, b) => a.createdAt - b.createdAt));
  }

  delete(artifactId: string, owner: ArtifactOwner): Promise<boolean> {
    if (!this.find(artifactId, owner)) return Promise.resolve(false);
    this.remove(artifactId);
    return Promise.resolve(true);
  }

  /** Forgets every artifact of a session, whoever the user; returns how many. */
  dropSession(sessionId: string): number {
    let n = 0;
    for (const [id, item] of [...this.items]) {
      if (item.meta.sessionId === sessionId) {
        this.remove(id);
        n++;
      }
    }
    return n;
  }

  /** True when the store holds artifacts of this session. */
  hasSession(sessionId: string): boolean {
    for (const item of this.items.values()) if (item.meta.sessionId === sessionId) return true;
    return false;
  }

  sweep(): Promise<number> {
    const now = this.now();
    let n = 0;
    for (const [id, item] of [...this.items]) {
      if (item.meta.expiresAt <= now) {
        this.remove(id);
        n++;
      }
    }
    return Promise.resolve(n);
  }

  private find(artifactId: string, owner: ArtifactOwner): { meta: ArtifactMeta; data: Uint8Array } | undefined {
    const item = this.items.get(artifactId);
    if (!item || item.meta.userId !== owner.userId || item.meta.sessionId !== owner.sessionId) return undefined;
    if (item.meta.expiresAt <= this.now()) {
      this.remove(artifactId);
      return undefined;
    }
    return item;
  }

  private remove(artifactId: string): void {
    const item = this.items.get(artifactId);
    if (!item) return;
    this.items.delete(artifactId);
    this.total -= item.meta.sizeBytes;
    // Overwrite the bytes too: a reference kept elsewhere (a finished download) sees zeros.
    item.data.fill(0);
  }
}

/**
 * New artifacts of the sessions `inMemory` names go to `memory`, all others to `disk`. Lookups
 * ask memory first (a session may end, and stop being named, while its artifacts are deleted),
 * then disk.
 */
export class SessionRoutedArtifactStore implements ArtifactStore {
  constructor(
    private readonly disk: ArtifactStore,
    readonly memory: MemoryArtifactStore,
    private readonly inMemory: (sessionId: string) => boolean,
  ) {}

  get maxBytes(): number {
    return this.disk.maxBytes;
  }

  put(data: Uint8Array, info: PutArtifact): Promise<ArtifactMeta> {
    return this.inMemory(info.owner.sessionId) ? this.memory.put(data, info) : this.disk.put(data, info);
  }

  async stat(artifactId: string, owner: ArtifactOwner): Promise<ArtifactMeta | undefined> {
    return (
      (await this.memory.stat(artifactId, owner)) ??
      (this.inMemory(owner.sessionId) ? undefined : await this.disk.stat(artifactId, owner))
    );
  }

  async read(artifactId: string, owner: ArtifactOwner): Promise<{ meta: ArtifactMeta; data: Uint8Array } | undefined> {
    return (
      (await this.memory.read(artifactId, owner)) ??
      (this.inMemory(owner.sessionId) ? undefined : await this.disk.read(artifactId, owner))
    );
  }

  async list(owner: ArtifactOwner): Promise<ArtifactMeta[]> {
    const mem = await this.memory.list(owner);
    if (this.inMemory(owner.sessionId)) return mem;
    return [...mem, ...(await this.disk.list(owner))].sort((a, b) => a.createdAt - b.createdAt);
  }

  async delete(artifactId: string, owner: ArtifactOwner): Promise<boolean> {
    return (
      (await this.memory.delete(artifactId, owner)) ||
      (!this.inMemory(owner.sessionId) && (await this.disk.delete(artifactId, owner)))
    );
  }

  async sweep(): Promise<number> {
    return (await this.memory.sweep()) + (await this.disk.sweep());
  }
}
