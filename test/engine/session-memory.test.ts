// A real Engine: what it holds in memory per session (event seqs, loaded tool groups, the context
// cache, what the Agent holds of it, the gateway's token counts, recent client message ids) is dropped once a session is idle,
// and a session used again continues where it was (its seq, its tool groups).
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PipelineEventType as T } from "@palisade/protocol/pipeline";
import { waitFor } from "@palisade/testing";
import { built, collect, final, kind, loadFiles, startE2E } from "./helpers.js";
import type { E2E } from "./helpers.js";

const skip = built();
const IDLE_MS = 4000;
let h: E2E;
beforeAll(async () => {
  if (!skip) h = await startE2E({ engineLimits: { sessionIdleMs: IDLE_MS } });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

describe.skipIf(skip)("engine end to end: per-session memory", () => {
  it("the Agent is started with the Engine's session idle window, so it keeps a conversation as long as the Engine does", async () => {
    const pid = h.engine.agentPid();
    expect(pid).toBeDefined();
    const env = readFileSync(`/proc/${String(pid)}/environ`, "utf8").split("\0");
    expect(env).toContain(`PALISADE_HISTORY_IDLE_MS=${String(IDLE_MS)}`);
  });

  it("after N sessions finish, every per-session map is back to its baseline; a session used again continues its seq and keeps its tool groups", async () => {
    const base = h.engine.sessionMemory();
    const N = 6;
    const runs = [];
    for (let i = 0; i < N; i++) {
      h.model.enqueue(
        loadFiles,
        { toolCalls: [{ name: "files__read_file", arguments: { path: "hello.txt" } }] },
        { content: `done ${i}` },
      );
      // A client message id: remembered (for retries) while the session is active.
      const evs = await collect(h.client.sendMessage({ content: `read hello.txt ${i}`, clientMessageId: `cm-${i}` }));
      expect(kind(final(evs))).toBe("RESPONSE_COMPLETE");
      expect(evs.find((e) => e.eventType === T.ACTION_COMPLETED)?.actionCompleted).toMatchObject({ success: true });
      // The finished session left its state behind (until it has been idle for IDLE_MS).
      const now = h.engine.sessionMemory();
      for (const key of ["eventSeqs", "loadedGroups", "recentTurns", "contexts", "agentHistories", "tracked"] as const)
        expect(now[key], key).toBeGreaterThan(base[key]);
      runs.push(evs);
    }

    await waitFor(() => JSON.stringify(h.engine.sessionMemory()) === JSON.stringify(base), {
      timeoutMs: IDLE_MS * 5,
      intervalMs: 100,
    });

    // Used again: the seq continues after the stored events, and files is still loaded (from the
    // tool its history called): the model gets its tools without calling load_tools again.
    const first = runs[0]!;
    const sessionId = first[0]!.sessionId;
    const lastSeq = final(first).seq;
    const before = h.model.chatRequests().length;
    h.model.enqueue({ toolCalls: [{ name: "files__read_file", arguments: { path: "a.txt" } }] }, { content: "again" });
    const again = await collect(h.client.sendMessage({ content: "read a.txt", sessionId }));
    expect(final(again).responseComplete?.content).toBe("again");
    expect(again[0]!.seq).toBe(lastSeq + 1n);
    expect(again.find((e) => e.eventType === T.ACTION_COMPLETED)?.actionCompleted?.resultSummary).toContain("alpha");
    const tools = (h.model.chatRequests()[before]?.tools ?? []).map(
      (t) => (t as { function?: { name?: string } }).function?.name,
    );
    expect(tools).toContain("files__read_file");
  });
});
