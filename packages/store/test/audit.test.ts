import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { GENESIS_HASH, Store, canonicalJson, sqliteHistory } from "@palisade/store";
import type { HistoryStore } from "@palisade/store";
import { forEachBackend } from "./backends.js";
import { tempStore } from "./helpers.js";

async function trail(store: HistoryStore, n: number): Promise<void> {
  for (let i = 1; i <= n; i++) {
    await store.appendAudit({
      kind: i % 2 ? "proposal" : "verdict",
      sessionId: "s1",
      actor: "engine",
      callId: `c${i}`,
      payload: { i, tool: "shell__run", args: { b: 2, a: 1 } },
      ts: 1000 + i,
    });
  }
}

forEachBackend((backend) => {
  describe("audit trail", () => {
    it("chains rows with sha256 and verifies clean", async () => {
      const store = await backend.open();
      await trail(store, 5);
      const rows = await store.listAudit();
      expect(rows.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
      expect(rows[0]?.prevHash).toBe(GENESIS_HASH);
      for (let i = 1; i < rows.length; i++) expect(rows[i]?.prevHash).toBe(rows[i - 1]?.hash);
      expect(rows[0]?.payload).toBe('{"args":{"a":1,"b":2},"i":1,"tool":"shell__run"}');
      expect(await store.verifyAudit()).toEqual({
        ok: true,
        rows: 5,
        head: { seq: 5, hash: rows[4]?.hash },
        problems: [],
        keyed: false,
      });
      expect((await store.listAudit({ sessionId: "s1", afterSeq: 3 })).map((r) => r.seq)).toEqual([4, 5]);
    });

    it("a batch appends the same chain as one entry at a time, continuing the head", async () => {
      const one = await backend.open();
      const batch = await backend.open();
      await trail(one, 6);
      await trail(batch, 2);
      const entries = [3, 4, 5, 6].map((i) => ({
        kind: i % 2 ? "proposal" : "verdict",
        sessionId: "s1",
        actor: "engine",
        callId: `c${i}`,
        payload: { i, tool: "shell__run", args: { b: 2, a: 1 } },
        ts: 1000 + i,
      }));
      expect((await batch.appendAudits(entries)).map((r) => r.seq)).toEqual([3, 4, 5, 6]);
      expect(await batch.listAudit()).toEqual(await one.listAudit());
      expect(await batch.verifyAudit()).toEqual(await one.verifyAudit());
      expect((await batch.verifyAudit()).ok).toBe(true);
      expect(await batch.appendAudits([])).toEqual([]);
    });

    it("refuses UPDATE and DELETE at the SQL level", async () => {
      const store = await backend.open();
      await trail(store, 2);
      await expect(backend.sql("UPDATE audit SET payload = '{}' WHERE seq = 1")).rejects.toThrow(/append-only/);
      await expect(backend.sql("DELETE FROM audit WHERE seq = 2")).rejects.toThrow(/append-only/);
      expect((await store.verifyAudit()).ok).toBe(true);
    });

    it("detects an edited row even with the triggers dropped", async () => {
      const store = await backend.open();
      await trail(store, 5);
      await backend.sql(backend.dropTrigger("audit", "audit_no_update"));
      await backend.sql("UPDATE audit SET payload = ? WHERE seq = 3", [canonicalJson({ i: 3, tool: "files__read" })]);
      const v = await store.verifyAudit();
      expect(v.ok).toBe(false);
      expect(v.problems).toEqual([expect.objectContaining({ seq: 3, problem: "edited" })]);
    });

    it("detects an edited row whose hash was recomputed (the next link breaks)", async () => {
      const store = await backend.open();
      await trail(store, 5);
      const row = (await store.listAudit())[2]!;
      const forged = { ...row, actor: "someone-else" };
      await backend.sql(backend.dropTrigger("audit", "audit_no_update"));
      // Recompute the forged row's hash exactly as the store does.
      const content = canonicalJson([
        forged.seq,
        forged.ts,
        forged.sessionId,
        forged.kind,
        forged.actor,
        forged.callId,
        forged.payload,
      ]);
      const hash = createHash("sha256").update(forged.prevHash).update("\n").update(content).digest("hex");
      await backend.sql("UPDATE audit SET actor = ?, hash = ? WHERE seq = 3", [forged.actor, hash]);
      expect((await store.verifyAudit()).problems).toEqual([
        expect.objectContaining({ seq: 4, problem: "broken_chain" }),
      ]);
    });

    it("detects a deleted row in the middle and at the end", async () => {
      const store = await backend.open();
      await trail(store, 6);
      const head = (await store.verifyAudit()).head;
      await backend.sql(backend.dropTrigger("audit", "audit_no_delete"));
      await backend.sql("DELETE FROM audit WHERE seq = 3");
      const mid = await store.verifyAudit();
      expect(mid.ok).toBe(false);
      expect(mid.problems).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ seq: 3, problem: "missing" }),
          expect.objectContaining({ seq: 4, problem: "broken_chain" }),
        ]),
      );
      await backend.sql("DELETE FROM audit WHERE seq = 6");
      expect((await store.verifyAudit()).problems).toEqual(
        expect.arrayContaining([expect.objectContaining({ seq: 6, problem: "head_mismatch" })]),
      );
      // Even when the attacker also rewinds audit_head, a head saved elsewhere catches the cut.
      await backend.sql("UPDATE audit_head SET seq = 5, hash = (SELECT hash FROM audit WHERE seq = 5)");
      const anchored = await store.verifyAudit(head);
      expect(anchored.problems).toEqual(
        expect.arrayContaining([expect.objectContaining({ seq: 6, problem: "head_mismatch" })]),
      );
    });
  });
});

describe("audit trail on SQLite", () => {
  it("keeps chaining across reopen", async () => {
    const { store, path } = tempStore();
    await trail(sqliteHistory(store), 3);
    store.close();
    const again = Store.open(path);
    await trail(sqliteHistory(again), 2);
    expect(again.verifyAudit()).toMatchObject({ ok: true, rows: 5 });
    again.close();
  });
});
