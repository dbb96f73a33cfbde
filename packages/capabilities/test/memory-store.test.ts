import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DiskArtifactStore, MemoryArtifactStore, SessionRoutedArtifactStore } from "@palisade/capabilities";

const otr = { userId: "local", sessionId: "ses_otr" };
const normal = { userId: "local", sessionId: "ses_normal" };
const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

describe("MemoryArtifactStore", () => {
  it("keeps bytes for their owner only, and a session's artifacts go with dropSession (their bytes zeroed)", async () => {
    const store = new MemoryArtifactStore();
    const meta = await store.put(bytes("secret pdf"), { filename: "a.pdf", mimeType: "application/pdf", owner: otr });
    const read = await store.read(meta.artifactId, otr);
    expect(new TextDecoder().decode(read?.data)).toBe("secret pdf");
    expect(await store.read(meta.artifactId, normal)).toBeUndefined();
    expect(store.totalBytes).toBe(10);
    expect(store.dropSession(otr.sessionId)).toBe(1);
    expect(await store.read(meta.artifactId, otr)).toBeUndefined();
    expect(read?.data.every((b) => b === 0)).toBe(true);
    expect(store.totalBytes).toBe(0);
  });

  it("refuses an artifact over the per-artifact or the total limit, saying how to free memory", async () => {
    const store = new MemoryArtifactStore({ maxBytes: 8, maxTotalBytes: 12 });
    await expect(store.put(new Uint8Array(9), { filename: "big", mimeType: "x/y", owner: otr })).rejects.toThrow(
      /over the 8 bytes limit/,
    );
    await store.put(new Uint8Array(8), { filename: "one", mimeType: "x/y", owner: otr });
    await expect(store.put(new Uint8Array(8), { filename: "two", mimeType: "x/y", owner: otr })).rejects.toThrow(
      /kept in memory only, at most 12 bytes in all.*end an off-the-record session/,
    );
    expect(store.dropSession(otr.sessionId)).toBe(1);
    await expect(store.put(new Uint8Array(8), { filename: "two", mimeType: "x/y", owner: otr })).resolves.toMatchObject(
      { sizeBytes: 8 },
    );
  });

  it("expired artifacts are gone", async () => {
    let now = 0;
    const store = new MemoryArtifactStore({ ttlMs: 10, now: () => now });
    const meta = await store.put(bytes("x"), { filename: "x", mimeType: "x/y", owner: otr });
    now = 10;
    expect(await store.stat(meta.artifactId, otr)).toBeUndefined();
    expect(store.totalBytes).toBe(0);
  });
});

describe("SessionRoutedArtifactStore", () => {
  it("artifacts of the named sessions stay in memory (nothing in the directory); others go to disk", async () => {
    const dir = mkdtempSync(join(tmpdir(), "palisade-routed-"));
    const live = new Set([otr.sessionId]);
    const store = new SessionRoutedArtifactStore(new DiskArtifactStore({ dir }), new MemoryArtifactStore(), (id) =>
      live.has(id),
    );
    const a = await store.put(bytes("off the record"), { filename: "a.txt", mimeType: "text/plain", owner: otr });
    expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
    const b = await store.put(bytes("on the record"), { filename: "b.txt", mimeType: "text/plain", owner: normal });
    expect(readdirSync(dir).sort()).toEqual([`${b.artifactId}.bin`, `${b.artifactId}.json`]);
    expect((await store.list(otr)).map((m) => m.artifactId)).toEqual([a.artifactId]);
    expect((await store.list(normal)).map((m) => m.artifactId)).toEqual([b.artifactId]);
    // The session ends (no longer named): its artifacts can still be found to be deleted.
    live.delete(otr.sessionId);
    expect(await store.delete(a.artifactId, otr)).toBe(true);
    expect(await store.list(otr)).toEqual([]);
    expect(store.memory.totalBytes).toBe(0);
  });
});
