import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Store } from "@palisade/store";
import { tempDir } from "./helpers.js";

const turn = (i: number) => ({ messages: [{ id: `u${i}`, role: "user" as const, content: `q${i}` }] });

describe("sync (synchronous=normal, fsync off the event loop)", () => {
  it("makes commits durable for every waiting caller, and the event loop keeps running meanwhile", async () => {
    const path = join(tempDir(), "s.db");
    const store = Store.open(path, { synchronous: "normal" });
    expect(store.settings().synchronous).toBe("normal");
    store.createSession({ id: "s" });
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    const waits: Array<Promise<void>> = [];
    for (let i = 0; i < 50; i++) {
      store.commitTurn("s", turn(i));
      waits.push(store.sync());
      if (i % 10 === 0) await new Promise((r) => setImmediate(r));
    }
    await Promise.all(waits);
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(0);
    const other = Store.open(path, { readonly: true });
    expect(other.getHistory("s", { limit: 100 }).messages).toHaveLength(50);
    other.close();
    store.close();
    await expect(store.sync()).rejects.toThrow(/closed/);
  });

  it("resolves at once with synchronous=full (each commit already fsynced)", async () => {
    const store = Store.open(join(tempDir(), "f.db"));
    store.createSession({ id: "s" });
    store.commitTurn("s", turn(1));
    await expect(store.sync()).resolves.toBeUndefined();
    store.close();
  });
});

describe("WalSync keeps the WAL open between syncs", () => {
  it("syncs through one kept descriptor, and reopens when SQLite replaced the WAL file", async () => {
    const { writeFileSync, rmSync, statSync } = await import("node:fs");
    const { WalSync } = await import("../src/sync.js");
    const db = join(tempDir(), "w.db");
    const ws = new WalSync(db);
    await ws.sync(); // no WAL yet: nothing to do
    writeFileSync(`${db}-wal`, "frames");
    await ws.sync();
    const kept = (ws as unknown as { wal: { fd: number; stats: { ino: number } } }).wal;
    expect(kept.stats.ino).toBe(statSync(`${db}-wal`).ino);
    await ws.sync();
    expect((ws as unknown as { wal: { fd: number } }).wal.fd).toBe(kept.fd);
    // Replaced (deleted and created again, as SQLite does after the last connection closed).
    rmSync(`${db}-wal`);
    writeFileSync(`${db}.other`, "keeps the old inode number from being reused at once");
    writeFileSync(`${db}-wal`, "new frames");
    await ws.sync();
    const reopened = (ws as unknown as { wal: { stats: { ino: number } } }).wal;
    expect(reopened.stats.ino).toBe(statSync(`${db}-wal`).ino);
    expect(reopened.stats.ino).not.toBe(kept.stats.ino);
    ws.close();
  });
});
