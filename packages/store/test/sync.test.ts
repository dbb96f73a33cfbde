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
