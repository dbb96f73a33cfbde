// the Agent SIGKILLed mid-turn → recoverable ERROR, respawn, next message
// works, nothing committed lost; OTR leaves no row in SQLite; history identical after an
// Engine restart.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toJson } from "@bufbuild/protobuf";
import { GetHistoryResponseSchema, ListSessionsResponseSchema } from "@palisade/protocol/pipeline";
import { SessionMode } from "@palisade/protocol/types";
import { Store } from "@palisade/store";
import { waitFor } from "@palisade/testing";
import { built, collect, final, kind, loadFiles, startE2E } from "./helpers.js";
import type { E2E } from "./helpers.js";

const skip = built();
let h: E2E;
beforeAll(async () => {
  if (!skip) h = await startE2E();
}, 60_000);
afterAll(async () => {
  await h?.close();
});

describe.skipIf(skip)("engine end to end: resilience", () => {
  it("survives an Agent killed with SIGKILL mid-turn", async () => {
    h.model.enqueue({ content: "first answer" });
    const first = await collect(h.client.sendMessage({ content: "remember this" }));
    const sessionId = first[0]!.sessionId;
    expect(kind(final(first))).toBe("RESPONSE_COMPLETE");

    const pid = h.engine.agentPid()!;
    const before = h.model.requests.length;
    h.model.enqueue({ content: "never delivered", latencyMs: 5000 });
    const stream = collect(h.client.sendMessage({ content: "this one crashes", sessionId }));
    await waitFor(() => h.model.requests.length > before, 10_000);
    process.kill(pid, "SIGKILL");
    const crashed = await stream;
    expect(final(crashed).pipelineError).toMatchObject({ code: "AGENT_CRASHED", recoverable: true });

    await waitFor(async () => {
      const s = await h.client.getStatus({});
      return s.agentConnected && s.agentRestarts >= 1;
    }, 20_000);
    expect(h.engine.agentPid()).not.toBe(pid);

    h.model.enqueue({ content: "back again" });
    const after = await collect(h.client.sendMessage({ content: "still there?", sessionId }));
    expect(final(after).responseComplete?.content).toBe("back again");
    const hist = await h.client.getHistory({ sessionId });
    const contents = hist.messages.map((m) => m.content);
    expect(contents).toEqual(["remember this", "first answer", "this one crashes", "still there?", "back again"]);
  });

  it("an off-the-record session leaves no row in SQLite", async () => {
    const phrase = "otr-phrase-7c1f9e";
    h.model.enqueue(
      loadFiles,
      { toolCalls: [{ name: "files__read_file", arguments: { path: "hello.txt" } }] },
      { content: `reply ${phrase}` },
    );
    const evs = await collect(h.client.sendMessage({ content: `tell nobody ${phrase}`, mode: SessionMode.OTR }));
    expect(final(evs).responseComplete?.content).toBe(`reply ${phrase}`);
    const otrId = evs[0]!.sessionId;
    const dbPath = join(h.dataDir, "palisade.db");
    const store = Store.open(dbPath, { readonly: true });
    try {
      expect(store.getSession(otrId)).toBeNull();
      expect(store.search("otr").total).toBe(0);
      expect(store.listEvents(otrId)).toEqual([]);
    } finally {
      store.close();
    }
    for (const f of [dbPath, `${dbPath}-wal`]) if (existsSync(f)) expect(readFileSync(f).includes(phrase)).toBe(false);
    const listed = await h.client.listSessions({ limit: 1000 });
    expect(listed.sessions.map((s) => s.id)).not.toContain(otrId);
  });

  it("history is identical after an Engine restart", async () => {
    h.model.enqueue(
      loadFiles,
      { toolCalls: [{ name: "files__read_file", arguments: { path: "a.txt" } }] },
      { content: "it says alpha" },
    );
    const evs = await collect(h.client.sendMessage({ content: "read a.txt" }));
    const sessionId = evs[0]!.sessionId;
    const snap = async (): Promise<unknown> => ({
      history: toJson(GetHistoryResponseSchema, await h.client.getHistory({ sessionId })),
      sessions: toJson(ListSessionsResponseSchema, await h.client.listSessions({ limit: 100 })),
    });
    const before = await snap();
    await h.restart();
    const after = await snap();
    expect(after).toEqual(before);
    // The conversation continues with the stored context.
    h.model.enqueue({ content: "continued" });
    const more = await collect(h.client.sendMessage({ content: "and then?", sessionId }));
    expect(final(more).responseComplete?.content).toBe("continued");
    const ctx = h.model
      .chatRequests()
      .at(-1)!
      .messages.map((m) => m.role);
    expect(ctx).toEqual(["system", "user", "assistant", "tool", "assistant", "user"]);
    expect(Number(more[0]!.seq)).toBeGreaterThan(Number(evs.at(-1)!.seq));
  });
});
