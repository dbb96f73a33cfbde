// A real Engine and Agent: the Agent process is stopped after limits.agent_idle_stop_s without
// turns (gone from /proc, status "idle"), and the next message starts it again and is answered.
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "@palisade/testing";
import { built, collect, final, kind, loadFiles, startE2E } from "./helpers.js";
import type { E2E } from "./helpers.js";

const skip = built();
let h: E2E;
beforeAll(async () => {
  if (!skip) h = await startE2E({ limits: ["  agent_idle_stop_s: 2"] });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

describe.skipIf(skip)("engine end to end: the Agent when idle", () => {
  it("is stopped after agent_idle_stop_s without turns and started again by the next message, which is answered", async () => {
    h.model.enqueue(
      loadFiles,
      { toolCalls: [{ name: "files__read_file", arguments: { path: "hello.txt" } }] },
      { content: "first" },
    );
    const first = await collect(h.client.sendMessage({ content: "read hello.txt" }));
    expect(final(first).responseComplete?.content).toBe("first");
    const pid = h.engine.agentPid();
    expect(pid).toBeDefined();

    await waitFor(async () => !existsSync(`/proc/${pid}`) && (await h.client.getStatus({})).agentState === "idle", {
      timeoutMs: 20_000,
      intervalMs: 200,
    });
    expect((await h.client.getStatus({})).agentConnected).toBe(false);

    // The same session goes on: its files group is still loaded.
    h.model.enqueue({ toolCalls: [{ name: "files__read_file", arguments: { path: "a.txt" } }] }, { content: "second" });
    const second = await collect(h.client.sendMessage({ content: "and a.txt?", sessionId: first[0]!.sessionId }));
    expect(kind(final(second))).toBe("RESPONSE_COMPLETE");
    expect(final(second).responseComplete?.content).toBe("second");
    const status = await h.client.getStatus({});
    expect(status).toMatchObject({ agentConnected: true, agentState: "running", agentRestarts: 0 });
    expect(h.engine.agentPid()).not.toBe(pid);
  });
});
