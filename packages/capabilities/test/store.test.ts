import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_MAX_ARTIFACT_BYTES,
  DiskArtifactStore,
  chunksOf,
  readArtifact,
  safeFilename,
  saveArtifact,
} from "@palisade/capabilities";

const alice = { userId: "alice", sessionId: "s1" };
const tmp = (): string => mkdtempSync(join(tmpdir(), "palisade-artifacts-"));

describe("DiskArtifactStore", () => {
  it("stores bytes with metadata, owner and expiry (owner-only files)", async () => {
    let now = 1_000_000;
    const dir = tmp();
    const store = new DiskArtifactStore({ dir, now: () => now });
    const meta = await store.put(new TextEncoder().encode("hello"), {
      filename: "a.txt",
      mimeType: "text/plain",
      owner: alice,
      source: "capability:x",
    });
    expect(meta).toMatchObject({
      filename: "a.txt",
      mimeType: "text/plain",
      sizeBytes: 5,
      userId: "alice",
      sessionId: "s1",
      createdAt: now,
      expiresAt: now + 6 * 3600 * 1000,
      source: "capability:x",
    });
    expect(meta.artifactId).toMatch(/^art_[0-9a-f]{24}$/);
    const read = await store.read(meta.artifactId, alice);
    expect(new TextDecoder().decode(read?.data)).toBe("hello");
    expect(statSync(join(dir, `${meta.artifactId}.bin`)).mode & 0o777).toBe(0o600);
    now += 1;
    expect(await store.list(alice)).toHaveLength(1);
  });

  it("another session's or user's artifact looks exactly like a missing one", async () => {
    const store = new DiskArtifactStore({ dir: tmp() });
    const meta = await store.put(new Uint8Array([1]), { filename: "a", mimeType: "x/y", owner: alice });
    expect(await store.read(meta.artifactId, { userId: "alice", sessionId: "s2" })).toBeUndefined();
    expect(await store.read(meta.artifactId, { userId: "bob", sessionId: "s1" })).toBeUndefined();
    expect(await store.stat("art_000000000000000000000000", alice)).toBeUndefined();
    expect(await store.stat("../../etc/passwd", alice)).toBeUndefined();
    expect(await store.delete(meta.artifactId, { userId: "bob", sessionId: "s1" })).toBe(false);
    expect(await store.read(meta.artifactId, alice)).toBeDefined();
  });

  it("expires after the TTL (6 h by default) and sweeps", async () => {
    let now = 0;
    const dir = tmp();
    const store = new DiskArtifactStore({ dir, now: () => now });
    const a = await store.put(new Uint8Array([1]), { filename: "a", mimeType: "x/y", owner: alice });
    now = 6 * 3600 * 1000 - 1;
    expect(await store.stat(a.artifactId, alice)).toBeDefined();
    const b = await store.put(new Uint8Array([2]), { filename: "b", mimeType: "x/y", owner: alice });
    now = 6 * 3600 * 1000;
    expect(await store.stat(a.artifactId, alice)).toBeUndefined();
    expect(await store.sweep()).toBe(0); // a was already evicted on lookup
    now = b.expiresAt;
    expect(await store.sweep()).toBe(1);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("takes exactly 5 MiB and refuses one byte more", async () => {
    const store = new DiskArtifactStore({ dir: tmp() });
    expect(DEFAULT_MAX_ARTIFACT_BYTES).toBe(5 * 1024 * 1024);
    const ok = await store.put(new Uint8Array(DEFAULT_MAX_ARTIFACT_BYTES), {
      filename: "max.bin",
      mimeType: "x/y",
      owner: alice,
    });
    expect(ok.sizeBytes).toBe(5 * 1024 * 1024);
    await expect(
      store.put(new Uint8Array(DEFAULT_MAX_ARTIFACT_BYTES + 1), { filename: "big.bin", mimeType: "x/y", owner: alice }),
    ).rejects.toThrow(/"big.bin" is 5242881 bytes, over the 5 MiB limit/);
  });

  it("chunks at 256 KiB boundaries", () => {
    const sizes = (n: number): number[] => [...chunksOf(new Uint8Array(n))].map((c) => c.byteLength);
    const K = 256 * 1024;
    expect(sizes(0)).toEqual([0]);
    expect(sizes(K)).toEqual([K]);
    expect(sizes(K + 1)).toEqual([K, 1]);
    expect(sizes(2 * K - 1)).toEqual([K, K - 1]);
  });

  it("streams to clients and saves to a directory without overwriting", async () => {
    const store = new DiskArtifactStore({ dir: tmp() });
    const data = new Uint8Array(300 * 1024).map((_, i) => i % 251);
    const meta = await store.put(data, { filename: "../../evil.bin", mimeType: "x/y", owner: alice });
    const chunks = [];
    for await (const c of readArtifact(store, meta.artifactId, alice)) chunks.push(c);
    expect(chunks.map((c) => [c.data.byteLength, c.done, c.meta?.filename])).toEqual([
      [256 * 1024, false, ".._.._evil.bin"],
      [44 * 1024, true, undefined],
    ]);
    await expect(async () => {
      for await (const _ of readArtifact(store, meta.artifactId, { userId: "bob", sessionId: "s1" })) void _;
    }).rejects.toThrow(/was not found in this session/);
    const out = tmp();
    const p1 = await saveArtifact(store, meta.artifactId, alice, out);
    const p2 = await saveArtifact(store, meta.artifactId, alice, out);
    // The stored name has its separators neutralized already; saving keeps it inside `out`.
    expect([p1, p2]).toEqual([join(out, "_.._evil.bin"), join(out, "_.._evil-1.bin")]);
    expect(Buffer.compare(readFileSync(p1), Buffer.from(data))).toBe(0);
    expect(safeFilename("", "fallback")).toBe("fallback");
    expect(safeFilename("..", "f")).toBe("f");
  });
});
