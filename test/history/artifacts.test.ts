// Issue 9: deleting a session deletes its artifacts (bytes and metadata in the capability host's
// artifact store), and retention (`history.retention`) does the same at start and periodically.
// A real PDF comes from the documents capability (documents__create_pdf).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code, RpcError } from "@palisade/protocol";
import { ApprovalDecision } from "@palisade/protocol/types";
import { PipelineEventType as T } from "@palisade/protocol/pipeline";
import type { PipelineEvent } from "@palisade/protocol/pipeline";
import { waitFor } from "@palisade/testing";
import { built, final, kind, startE2E } from "../engine/helpers.js";
import type { E2E } from "../engine/helpers.js";

const skip =
  built() ??
  (existsSync(new URL("../../apps/capabilities/documents/dist/main.js", import.meta.url))
    ? undefined
    : "run make build first (documents capability)");
let h: E2E;

beforeAll(async () => {
  if (!skip) h = await startE2E({ enable: ["documents"] });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

/** Runs a turn that creates a PDF; answers approvals; returns the session and artifact ids. */
async function makePdf(title: string, sessionId = ""): Promise<{ sessionId: string; artifactId: string }> {
  h.model.enqueue(
    { toolCalls: [{ name: "load_tools", arguments: { groups: ["documents"] } }] },
    {
      toolCalls: [
        {
          name: "documents__create_pdf",
          arguments: { title, sections: [{ heading: "Intro", content: "Some text." }], filename: "report.pdf" },
        },
      ],
    },
    { content: "Your PDF is ready." },
  );
  const evs: PipelineEvent[] = [];
  for await (const ev of h.client.sendMessage({ content: `make a pdf called ${title}`, sessionId })) {
    evs.push(ev);
    if (ev.eventType === T.APPROVAL_NEEDED)
      await h.client.resolveApproval({
        approvalId: ev.approvalNeeded!.approvalId,
        decision: ApprovalDecision.ALLOW_ONCE,
        sessionId: ev.sessionId,
      });
  }
  expect(kind(final(evs))).toBe("RESPONSE_COMPLETE");
  const art = evs.find((e) => e.eventType === T.ACTION_COMPLETED)?.actionCompleted?.artifacts[0];
  expect(art?.mimeType).toBe("application/pdf");
  return { sessionId: evs[0]!.sessionId, artifactId: art!.artifactId };
}

async function download(sessionId: string, artifactId: string): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const chunk of h.client.getArtifact({ sessionId, artifactId }))
    if (chunk.data.length) parts.push(chunk.data);
  return Buffer.concat(parts);
}

async function rpcCode(p: Promise<unknown>): Promise<Code | undefined> {
  try {
    await p;
    return undefined;
  } catch (err) {
    return err instanceof RpcError ? err.code : undefined;
  }
}

const files = (artifactId: string): string[] =>
  [".bin", ".json"].map((ext) => join(h.dataDir, "artifacts", `${artifactId}${ext}`));

/** Makes a session look last used `days` ago (another connection, as a user's clock would). */
function age(sessionId: string, days: number): void {
  const db = new Database(join(h.dataDir, "palisade.db"));
  db.pragma("busy_timeout = 5000");
  db.prepare("UPDATE sessions SET updated_at = ? WHERE id = ?").run(Date.now() - days * 86_400_000, sessionId);
  db.close();
}

describe.skipIf(skip)("session artifacts", () => {
  it("DeleteSession deletes the session's artifacts: GetArtifact fails, the files are gone", async () => {
    const { sessionId, artifactId } = await makePdf("Quarterly");
    expect((await download(sessionId, artifactId)).subarray(0, 5).toString()).toBe("%PDF-");
    for (const f of files(artifactId)) expect(existsSync(f)).toBe(true);
    const exported = JSON.parse((await h.client.exportSession({ sessionId, format: "json" })).content) as unknown;
    expect(JSON.stringify(exported)).toContain(artifactId);

    expect((await h.client.deleteSession({ sessionId })).deleted).toBe(true);
    expect(await rpcCode(download(sessionId, artifactId))).toBe(Code.NOT_FOUND);
    for (const f of files(artifactId)) expect(existsSync(f)).toBe(false);
    expect(await rpcCode(h.client.getHistory({ sessionId }))).toBe(Code.NOT_FOUND);
    expect(
      (await h.client.searchSessions({ query: "Quarterly" })).hits.filter((x) => x.sessionId === sessionId),
    ).toEqual([]);
  });

  it("deleting one session leaves the artifacts of another", async () => {
    const a = await makePdf("Alpha");
    const b = await makePdf("Beta");
    await h.client.deleteSession({ sessionId: a.sessionId });
    expect((await download(b.sessionId, b.artifactId)).subarray(0, 5).toString()).toBe("%PDF-");
  });

  it("retention deletes old sessions with their artifacts at start, then periodically", async () => {
    const old = await makePdf("Old report");
    const recent = await makePdf("Recent report");
    age(old.sessionId, 40);
    const cfg = readFileSync(h.configPath, "utf8");
    writeFileSync(
      h.configPath,
      cfg.replace("history:\n", "history:\n  retention: { max_age_days: 30, check_interval_s: 1 }\n"),
    );
    await h.restart();
    // At start.
    expect(await rpcCode(h.client.getHistory({ sessionId: old.sessionId }))).toBe(Code.NOT_FOUND);
    expect(await rpcCode(download(old.sessionId, old.artifactId))).toBe(Code.NOT_FOUND);
    for (const f of files(old.artifactId)) expect(existsSync(f)).toBe(false);
    expect(h.logs.some((l) => /retention: deleted 1 sessions/.test(l))).toBe(true);
    expect((await h.client.getHistory({ sessionId: recent.sessionId })).messages.length).toBe(2);
    // Periodically: the recent one ages while the Engine runs.
    age(recent.sessionId, 31);
    await waitFor(
      async () => (await rpcCode(h.client.getHistory({ sessionId: recent.sessionId }))) === Code.NOT_FOUND,
      { timeoutMs: 5000 },
    );
    await waitFor(() => files(recent.artifactId).every((f) => !existsSync(f)), { timeoutMs: 2000 });
  });
});
