import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ARTIFACT_CHUNK_BYTES, defineCapability } from "@palisade/capability-sdk";
import type { ArtifactRef } from "@palisade/capability-sdk";
import type { ArtifactChunk } from "@palisade/protocol/capability";
import { json, parse, start } from "./helpers.js";
import type { Harness } from "./helpers.js";

const KiB = 1024;
const MAX_UPLOAD = 1024 * KiB;

/** Deterministic bytes so a misplaced chunk changes the content, not just the length. */
function pattern(size: number): Uint8Array {
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = (i * 31 + (i >> 8)) & 0xff;
  return out;
}

const cap = defineCapability({
  id: "blobs",
  tools: [
    {
      name: "make",
      description: "Stores `size` pattern bytes as an output artifact.",
      inputSchema: {
        type: "object",
        properties: { size: { type: "integer", minimum: 0 }, filename: { type: "string" } },
        required: ["size"],
      },
      handler: async (args: { size: number; filename?: string }, ctx) => ({
        ok: true,
        ...ctx.artifacts.storeOutput(pattern(args.size), {
          filename: args.filename ?? "out.bin",
          mimeType: "application/x-test",
        }),
      }),
    },
    {
      name: "inspect",
      description: "Reads an uploaded input artifact.",
      inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
      handler: async (args: { id: string }, ctx) => {
        const a = ctx.artifacts.getInput(args.id);
        if (!a) return { found: false };
        const same = Buffer.from(a.data).equals(Buffer.from(pattern(a.data.byteLength)));
        return { found: true, filename: a.filename, mimeType: a.mimeType, size: a.data.byteLength, same };
      },
    },
  ],
});

let h: Harness;
beforeAll(async () => {
  h = await start(cap, { maxUploadBytes: MAX_UPLOAD });
});
afterAll(async () => {
  await h.stop();
});

async function make(size: number): Promise<ArtifactRef["artifact"]> {
  const res = await h.client.invoke({ toolName: "make", argsJson: json({ size }) });
  expect(res.error).toBe("");
  return (parse(res.resultJson) as ArtifactRef).artifact;
}

async function download(id: string, client = h.client): Promise<ArtifactChunk[]> {
  const chunks: ArtifactChunk[] = [];
  for await (const c of client.downloadOutputArtifact({ capabilityArtifactId: id })) chunks.push(c);
  return chunks;
}

function* uploadChunks(
  data: Uint8Array,
  chunkSize: number,
  meta = { filename: "in.bin", mimeType: "application/x-in" },
) {
  if (data.byteLength === 0) yield { ...meta, data };
  for (let off = 0, first = true; off < data.byteLength; off += chunkSize, first = false) {
    yield { ...(first ? meta : {}), data: data.subarray(off, off + chunkSize) };
  }
}

describe("output artifacts", () => {
  it("storeOutput returns the deployed result fragment", async () => {
    const res = await h.client.invoke({ toolName: "make", argsJson: json({ size: 5, filename: "r.pdf" }) });
    const result = parse(res.resultJson) as { ok: boolean } & ArtifactRef;
    expect(result.ok).toBe(true);
    expect(result.artifact).toEqual({
      capability_artifact_id: expect.any(String),
      filename: "r.pdf",
      mime_type: "application/x-test",
      size_bytes: 5,
    });
  });

  it.each([
    { size: 0, sizes: [0] },
    { size: 5, sizes: [5] },
    { size: ARTIFACT_CHUNK_BYTES, sizes: [ARTIFACT_CHUNK_BYTES] },
    { size: ARTIFACT_CHUNK_BYTES + 1, sizes: [ARTIFACT_CHUNK_BYTES, 1] },
    { size: 3 * ARTIFACT_CHUNK_BYTES, sizes: [ARTIFACT_CHUNK_BYTES, ARTIFACT_CHUNK_BYTES, ARTIFACT_CHUNK_BYTES] },
  ])("streams $size bytes as chunks of $sizes", async ({ size, sizes }) => {
    const artifact = await make(size);
    const chunks = await download(artifact.capability_artifact_id);
    expect(chunks.map((c) => c.data.byteLength)).toEqual(sizes);
    expect(chunks.map((c) => c.done)).toEqual(sizes.map((_, i) => i === sizes.length - 1));
    expect(chunks.map((c) => [c.filename, c.mimeType])).toEqual(
      sizes.map((_, i) => (i === 0 ? ["out.bin", "application/x-test"] : ["", ""])),
    );
    expect(chunks.every((c) => c.error === "")).toBe(true);
    expect(Buffer.concat(chunks.map((c) => c.data)).equals(Buffer.from(pattern(size)))).toBe(true);
  });

  it("answers an unknown id with one error chunk", async () => {
    const chunks = await download("no-such-id");
    expect(chunks).toHaveLength(1);
    expect(chunks[0]?.error).toMatch(/^unknown capability_artifact_id "no-such-id" for capability blobs/);
    expect(chunks[0]?.done).toBe(true);
  });

  it("forgets artifacts after their TTL", async () => {
    const short = await start(cap, { artifactTtlMs: 100 });
    try {
      const res = await short.client.invoke({ toolName: "make", argsJson: json({ size: 3 }) });
      const { artifact } = parse(res.resultJson) as ArtifactRef;
      expect((await download(artifact.capability_artifact_id, short.client))[0]?.error).toBe("");
      await new Promise((r) => setTimeout(r, 150));
      expect((await download(artifact.capability_artifact_id, short.client))[0]?.error).toMatch(
        /never stored here, or expired/,
      );
    } finally {
      await short.stop();
    }
  });
});

describe("input artifacts", () => {
  async function inspect(id: string): Promise<unknown> {
    const res = await h.client.invoke({ toolName: "inspect", argsJson: json({ id }) });
    expect(res.error).toBe("");
    return parse(res.resultJson);
  }

  it.each([
    { size: 0, chunkSize: 1 },
    { size: 10, chunkSize: 3 },
    { size: ARTIFACT_CHUNK_BYTES, chunkSize: ARTIFACT_CHUNK_BYTES },
    { size: ARTIFACT_CHUNK_BYTES + 1, chunkSize: ARTIFACT_CHUNK_BYTES },
    { size: MAX_UPLOAD, chunkSize: 64 * KiB },
  ])("reassembles $size bytes sent in chunks of $chunkSize", async ({ size, chunkSize }) => {
    const res = await h.client.uploadInputArtifact(uploadChunks(pattern(size), chunkSize));
    expect(res.error).toBe("");
    expect(res.sizeBytes).toBe(BigInt(size));
    expect(await inspect(res.capabilityArtifactId)).toEqual({
      found: true,
      filename: "in.bin",
      mimeType: "application/x-in",
      size,
      same: true,
    });
  });

  it("refuses an upload one byte over the limit", async () => {
    const res = await h.client.uploadInputArtifact(uploadChunks(pattern(MAX_UPLOAD + 1), 64 * KiB));
    expect(res.capabilityArtifactId).toBe("");
    expect(res.error).toBe(
      `artifact in.bin is larger than the ${MAX_UPLOAD}-byte limit of capability blobs; send a smaller file`,
    );
  });

  it("defaults the mime type and tells a handler about unknown ids", async () => {
    const res = await h.client.uploadInputArtifact([{ filename: "x", data: pattern(4) }]);
    expect(await inspect(res.capabilityArtifactId)).toMatchObject({ mimeType: "application/octet-stream" });
    expect(await inspect("no-such-id")).toEqual({ found: false });
  });

  it("keeps inputs and outputs apart: an uploaded id cannot be downloaded", async () => {
    const res = await h.client.uploadInputArtifact(uploadChunks(pattern(4), 4));
    expect((await download(res.capabilityArtifactId))[0]?.error).toMatch(/^unknown capability_artifact_id/);
  });
});
