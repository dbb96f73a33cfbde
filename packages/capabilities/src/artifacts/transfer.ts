import { RpcError } from "@palisade/protocol";
import type { Client } from "@palisade/protocol";
import type { Capability } from "@palisade/protocol/capability";
import { CapabilityError } from "../errors.js";
import { ARTIFACT_CHUNK_BYTES, chunksOf, tooLarge } from "./store.js";

export type CapabilityClient = Client<typeof Capability>;

export interface DownloadedArtifact {
  data: Uint8Array;
  filename: string;
  mimeType: string;
}

export interface TransferOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/**
 * Streams an output artifact out of a capability. Stops as soon as it passes `maxBytes`.
 * An `error` chunk or a broken stream is an `artifact_transfer` error; the stream may end
 * without a `done` chunk (some servers send none for empty files).
 */
export async function downloadArtifact(
  client: CapabilityClient,
  capabilityId: string,
  capabilityArtifactId: string,
  maxBytes: number,
  options: TransferOptions = {},
): Promise<DownloadedArtifact> {
  const parts: Uint8Array[] = [];
  let size = 0;
  let filename = "";
  let mimeType = "";
  const controller = new AbortController();
  const onAbort = (): void => controller.abort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const stream = client.downloadOutputArtifact(
      { capabilityArtifactId },
      { signal: controller.signal, ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) },
    );
    for await (const chunk of stream) {
      if (chunk.error) {
        throw new CapabilityError(
          "artifact_transfer",
          `capability ${capabilityId} could not send artifact "${capabilityArtifactId}": ${chunk.error}`,
        );
      }
      filename ||= chunk.filename;
      mimeType ||= chunk.mimeType;
      size += chunk.data.byteLength;
      if (size > maxBytes) {
        controller.abort();
        throw tooLarge(filename || capabilityArtifactId, `more than ${maxBytes} bytes`, maxBytes);
      }
      if (chunk.data.byteLength > 0) parts.push(chunk.data);
      if (chunk.done) break;
    }
  } catch (err) {
    if (err instanceof CapabilityError) throw err;
    const e = RpcError.from(err);
    throw new CapabilityError(
      "artifact_transfer",
      `downloading artifact "${capabilityArtifactId}" from capability ${capabilityId} failed: ${e.codeName}: ${e.message}`,
      { cause: err },
    );
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
  }
  return { data: concat(parts, size), filename, mimeType };
}

/** Streams a stored artifact into a capability in 256 KiB chunks; returns its id for it. */
export async function uploadArtifact(
  client: CapabilityClient,
  capabilityId: string,
  file: { data: Uint8Array; filename: string; mimeType: string },
  options: TransferOptions = {},
): Promise<string> {
  let response;
  try {
    const chunks = function* (): Generator<{ filename: string; mimeType: string; data: Uint8Array }> {
      let first = true;
      for (const data of chunksOf(file.data, ARTIFACT_CHUNK_BYTES)) {
        yield first ? { filename: file.filename, mimeType: file.mimeType, data } : { filename: "", mimeType: "", data };
        first = false;
      }
    };
    response = await client.uploadInputArtifact(chunks(), {
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    });
  } catch (err) {
    const e = RpcError.from(err);
    throw new CapabilityError(
      "artifact_transfer",
      `uploading "${file.filename}" to capability ${capabilityId} failed: ${e.codeName}: ${e.message}; the tool was not called`,
      { cause: err },
    );
  }
  if (response.error || !response.capabilityArtifactId) {
    throw new CapabilityError(
      "artifact_transfer",
      `capability ${capabilityId} refused the upload of "${file.filename}": ${response.error || "it returned no capability_artifact_id"}; the tool was not called`,
    );
  }
  return response.capabilityArtifactId;
}

function concat(parts: Uint8Array[], size: number): Uint8Array {
  if (parts.length === 1 && parts[0]) return parts[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

const MIME: Record<string, string> = {
  pdf: "application/pdf",
  json: "application/json",
  txt: "text/plain",
  md: "text/markdown",
  csv: "text/csv",
  html: "text/html",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  svg: "image/svg+xml",
  webp: "image/webp",
  zip: "application/zip",
  xml: "application/xml",
  ics: "text/calendar",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
};

/** Fallback MIME type by file extension. */
export function guessMimeType(filename: string): string {
  const ext = filename.includes(".") ? filename.slice(filename.lastIndexOf(".") + 1).toLowerCase() : "";
  return MIME[ext] ?? "application/octet-stream";
}
