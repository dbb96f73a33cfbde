// Issue 9: every proposal, verdict, approval and execution of a tool call reaches the store's
// hash-chained audit trail; the store's verifyAudit passes, and detects a tampered row.
import { createHash } from "node:crypto";
import { dirname, join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApprovalDecision, SessionMode } from "@palisade/protocol/types";
import { PipelineEventType as T } from "@palisade/protocol/pipeline";
import type { PipelineEvent } from "@palisade/protocol/pipeline";
import { AUDIT_KEY_FILE, readAuditKey, Store } from "@palisade/store";
import { waitFor } from "@palisade/testing";
import { built, collect, final, kind, loadFiles, startE2E } from "../engine/helpers.js";
import type { E2E } from "../engine/helpers.js";

const skip = built();
let h: E2E;
beforeAll(async () => {
  if (!skip) h = await startE2E();
}, 60_000);
afterAll(async () => {
  await h?.close();
});

const dbPath = (): string => join(h.dataDir, "palisade.db");
/** The chain is keyed with audit.key beside the configuration: verification needs it. */
async function readAudit(sessionId: string) {
  const key = await readAuditKey(join(dirname(h.configPath), AUDIT_KEY_FILE), dbPath());
  expect(key).toBeDefined();
  const store = Store.open(dbPath(), { readonly: true });
  try {
    return { rows: store.listAudit({ sessionId, limit: 10_000 }), verify: store.verifyAudit(undefined, key) };
  } finally {
    store.close();
  }
}

describe.skipIf(skip)("audit trail", () => {
  it("records proposal, verdict, approval and execution of every call, in a chain verifyAudit accepts", async () => {
    h.model.enqueue(
      loadFiles,
      {
        toolCalls: [
          { name: "files__read_file", arguments: { path: "hello.txt" } },
          { name: "files__write_file", arguments: { path: "new.txt", content: "x" } },
          { name: "files__delete_file", arguments: { path: "a.txt" } },
        ],
      },
      { content: "done" },
    );
    const evs: PipelineEvent[] = [];
    for await (const ev of h.client.sendMessage({ content: "read, write and delete" })) {
      evs.push(ev);
      if (ev.eventType === T.APPROVAL_NEEDED)
        await h.client.resolveApproval({
          approvalId: ev.approvalNeeded!.approvalId,
          decision: ApprovalDecision.ALLOW_ONCE,
          sessionId: ev.sessionId,
        });
    }
    expect(kind(final(evs))).toBe("RESPONSE_COMPLETE");
    const sessionId = evs[0]!.sessionId;
    const calls = new Map(
      evs
        .filter((e) => e.eventType === T.ACTION_PROPOSED)
        .map((e) => [e.actionProposed!.toolName, e.actionProposed!.callId]),
    );
    expect([...calls.keys()].sort()).toEqual(["files__delete_file", "files__read_file", "files__write_file"]);

    const { rows, verify } = await waitFor(async () => {
      const r = await readAudit(sessionId);
      return r.rows.filter((x) => x.kind === "execution").length >= 2 ? r : undefined;
    });
    expect(verify).toMatchObject({ ok: true, problems: [] });
    const steps = (tool: string): string[] => rows.filter((r) => r.callId === calls.get(tool)).map((r) => r.kind);
    expect(steps("files__read_file")).toEqual(["proposal", "verdict", "execution"]);
    expect(steps("files__write_file")).toEqual(["proposal", "verdict", "approval", "execution"]);
    expect(steps("files__delete_file")).toEqual(["proposal", "verdict"]); // blocked: never executed

    const byKind = (tool: string, k: string) =>
      JSON.parse(rows.find((r) => r.callId === calls.get(tool) && r.kind === k)!.payload) as Record<string, unknown>;
    expect(byKind("files__write_file", "proposal")).toMatchObject({
      toolName: "files__write_file",
      argumentsJson: JSON.stringify({ path: "new.txt", content: "x" }),
    });
    expect(byKind("files__write_file", "approval")).toMatchObject({ decision: "allow_once" });
    // The approval names the credential that answered it: the client token's id, and the transport.
    const answeredBy = `client-token:${createHash("sha256").update(h.engine.bearerToken).digest("hex").slice(0, 12)} via ${h.engine.address}`;
    expect(rows.find((r) => r.callId === calls.get("files__write_file") && r.kind === "approval")?.actor).toBe(
      `user (${answeredBy})`,
    );
    expect(byKind("files__write_file", "approval")).toMatchObject({ answeredBy });
    expect(byKind("files__delete_file", "verdict")).toMatchObject({ decision: "block", ruleIds: ["e2e-no-delete"] });
    expect(byKind("files__read_file", "execution")).toMatchObject({ ok: true, toolName: "files__read_file" });
    expect(byKind("files__read_file", "execution").resultSha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("writes nothing for off-the-record sessions", async () => {
    h.model.enqueue(
      loadFiles,
      { toolCalls: [{ name: "files__read_file", arguments: { path: "hello.txt" } }] },
      { content: "ok" },
    );
    const evs = await collect(h.client.sendMessage({ content: "read it, off the record", mode: SessionMode.OTR }));
    expect(kind(final(evs))).toBe("RESPONSE_COMPLETE");
    await new Promise((r) => setTimeout(r, 100));
    expect((await readAudit(evs[0]!.sessionId)).rows).toEqual([]);
  });

  it("verifyAudit detects an edited row and a deleted one", async () => {
    await h.engine.stop(2000);
    const before = (await readAudit("")).verify;
    expect(before.ok).toBe(true);
    expect(before.rows).toBeGreaterThanOrEqual(9);
    const db = new Database(dbPath());
    db.exec("DROP TRIGGER audit_no_update");
    db.prepare(
      "UPDATE audit SET payload = replace(payload, 'new.txt', 'other.txt') WHERE kind = 'proposal' AND payload LIKE '%new.txt%'",
    ).run();
    db.close();
    const edited = (await readAudit("")).verify;
    expect(edited.ok).toBe(false);
    expect(edited.problems.map((p) => p.problem)).toContain("edited");

    const db2 = new Database(dbPath());
    db2.exec("DROP TRIGGER audit_no_delete");
    db2.prepare("DELETE FROM audit WHERE seq = 2").run();
    db2.close();
    expect((await readAudit("")).verify.problems.map((p) => p.problem)).toContain("missing");
  });
});
