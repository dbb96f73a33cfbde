import { mkdir, writeFile } from "node:fs/promises";
import { basename, extname, join } from "node:path";
import { ARTIFACT_CHUNK_BYTES, artifactNotFound, chunksOf } from "./store.js";
import type { ArtifactMeta, ArtifactOwner, ArtifactStore } from "./store.js";

/** A download chunk for clients: metadata on the first, `done` on the last. */
export interface ArtifactDownloadChunk {
  data: Uint8Array;
  meta?: ArtifactMeta;
  done: boolean;
}

/**
 * Streams a stored artifact to a client (e.g. an Engine RPC) in 256 KiB chunks.
 * Throws `artifact_not_found` for missing, expired and foreign artifacts alike.
 */
export async function* readArtifact(
  store: ArtifactStore,
  artifactId: string,
  owner: ArtifactOwner,
  chunkBytes = ARTIFACT_CHUNK_BYTES,
): AsyncGenerator<ArtifactDownloadChunk> {
  const found = await store.read(artifactId, owner);
  if (!found) throw artifactNotFound(artifactId);
  const chunks = [...chunksOf(found.data, chunkBytes)];
  for (let i = 0; i < chunks.length; i++) {
    yield { data: chunks[i] as Uint8Array, ...(i === 0 ? { meta: found.meta } : {}), done: i === chunks.length - 1 };
  }
}

/** A file name safe to create in a directory: no path parts, no control characters. */
export function safeFilename(name: string, fallback: string): string {
  const printable = [...name.replace(/\\/g, "/")]
    .map((ch) => (ch.charCodeAt(0) < 32 || ch.charCodeAt(0) === 127 ? "_" : ch))
    .join("");
  const base = basename(printable).replace(/^\.+/, "");
  return base === "" ? fallback : base.slice(0, 200);
}

/**
 * Saves an artifact into `dir` under its own (sanitized) filename, never overwriting:
 * `report.pdf`, then `report-1.pdf`, … Returns the path written. For `capability call --out DIR`.
 */
export async function saveArtifact(
  store: ArtifactStore,
  artifactId: string,
  owner: ArtifactOwner,
  dir: string,
): Promise<string> {
  const found = await store.read(artifactId, owner);
  if (!found) throw artifactNotFound(artifactId);
  await mkdir(dir, { recursive: true });
  const name = safeFilename(found.meta.filename, artifactId);
  const ext = extname(name);
  const stem = name.slice(0, name.length - ext.length);
  for (let i = 0; ; i++) {
    const path = join(dir, i === 0 ? name : `${stem}-${i}${ext}`);
    try {
      await writeFile(path, found.data, { flag: "wx" });
      return path;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
}
