import { randomUUID } from "node:crypto";
import type { ArtifactMeta, ArtifactRef, InputArtifact } from "./types.js";

export const ARTIFACT_CHUNK_BYTES = 256 * 1024;
export const DEFAULT_MAX_ARTIFACT_BYTES = 5 * 1024 * 1024;
export const DEFAULT_ARTIFACT_TTL_MS = 6 * 60 * 60 * 1000;
const DEFAULT_MIME = "application/octet-stream";

interface Stored extends InputArtifact {
  expiresAt: number;
}

export interface ArtifactStoreOptions {
  ttlMs?: number;
  now?: () => number;
}

/**
 * Artifacts kept in memory for `ttlMs`: outputs (stored by handlers, read by
 * DownloadOutputArtifact) and inputs (written by UploadInputArtifact, read by handlers).
 * Expired entries are dropped lazily on each access.
 */
export class ArtifactStore {
  private readonly outputs = new Map<string, Stored>();
  private readonly inputs = new Map<string, Stored>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(options: ArtifactStoreOptions = {}) {
    this.ttlMs = options.ttlMs ?? DEFAULT_ARTIFACT_TTL_MS;
    this.now = options.now ?? Date.now;
  }

  storeOutput(data: Uint8Array, meta: ArtifactMeta): ArtifactRef {
    const id = randomUUID();
    const mimeType = meta.mimeType || DEFAULT_MIME;
    this.put(this.outputs, id, { data, filename: meta.filename, mimeType });
    return {
      artifact: {
        capability_artifact_id: id,
        filename: meta.filename,
        mime_type: mimeType,
        size_bytes: data.byteLength,
      },
    };
  }

  getOutput(id: string): InputArtifact | undefined {
    return this.get(this.outputs, id);
  }

  storeInput(artifact: InputArtifact): string {
    const id = randomUUID();
    this.put(this.inputs, id, artifact);
    return id;
  }

  getInput(id: string): InputArtifact | undefined {
    return this.get(this.inputs, id);
  }

  private put(map: Map<string, Stored>, id: string, artifact: InputArtifact): void {
    this.sweep();
    map.set(id, { ...artifact, expiresAt: this.now() + this.ttlMs });
  }

  private get(map: Map<string, Stored>, id: string): InputArtifact | undefined {
    this.sweep();
    const found = map.get(id);
    return found && { data: found.data, filename: found.filename, mimeType: found.mimeType };
  }

  private sweep(): void {
    const now = this.now();
    for (const map of [this.outputs, this.inputs]) {
      for (const [id, a] of map) if (a.expiresAt <= now) map.delete(id);
    }
  }
}

/** Splits `data` into views of at most `size` bytes; an empty artifact yields one empty view. */
export function* chunksOf(data: Uint8Array, size = ARTIFACT_CHUNK_BYTES): Generator<Uint8Array> {
  if (data.byteLength === 0) {
    yield data;
    return;
  }
  for (let offset = 0; offset < data.byteLength; offset += size) yield data.subarray(offset, offset + size);
}
