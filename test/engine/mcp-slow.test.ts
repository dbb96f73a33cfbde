// An MCP server that is slow to start does not hold up the Engine: it serves at once, the server
// shows as starting (engine status, the model's list of groups), load_tools of its group waits
// for it and its tools arrive when it is ready. A server that never answers is failed with a
// clear error once its start timeout is spent.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { PipelineEvent } from "@palisade/protocol/pipeline";
import { messageText, waitFor } from "@palisade/testing";
import { built, final, kind, root, startE2E } from "./helpers.js";
import type { E2E } from "./helpers.js";

const SLOW = join(root, "packages/capabilities/test/fixtures/mcp/slow.mjs");
const skip = built();
const engines: E2E[] = [];
afterAll(async () => {
  await Promise.all(engines.map((h) => h.close()));
});

async function drive(stream: AsyncIterable<PipelineEvent>): Promise<PipelineEvent[]> {
  const out: PipelineEvent[] = [];
  for await (const ev of stream) out.push(ev);
  return out;
}

describe.skipIf(skip)("engine end to end: an MCP server slow to start", () => {
  it("the Engine serves before the server answers; load_tools waits for it; its tools then work", async () => {
    // The default start timeout (30 s) would hold startE2E well past its hook timeout if the
    // Engine waited for the server, which answers only once the test writes GO_FILE.
    const h = await startE2E({
      capabilities: ({ workspace }) => [
        "  - id: slow",
        `    mcp: { command: ${JSON.stringify([process.execPath, SLOW])}, env: { GO_FILE: ${JSON.stringify(join(workspace, "go"))} }, trusted: true }`,
      ],
      limits: ["  capability_start_timeout_s: 120"],
    });
    engines.push(h);
    const go = join(h.workspace, "go");

    // Serving, and the server is said to be starting, without tools yet.
    const status = await h.client.getStatus({});
    const slow = status.capabilities.find((c) => c.id === "slow");
    expect(slow).toMatchObject({ state: "starting", toolCount: 0 });
    expect(slow?.message).toMatch(/waiting for the server to answer .*its tools arrive when it is ready/);

    h.model.enqueue(
      { toolCalls: [{ name: "load_tools", arguments: { groups: ["slow"] } }] },
      { toolCalls: [{ name: "slow__echo", arguments: { text: "hi" } }] },
      { content: "It said hi." },
    );
    const b = h.model.chatRequests().length;
    const turn = drive(h.client.sendMessage({ content: "Echo hi" }));
    // The server is released only once load_tools waits for it.
    await waitFor(() => h.logs.some((l) => l.includes("load_tools: waiting for slow to start")), {
      timeoutMs: 60_000,
      message: "load_tools to wait for slow",
    });
    writeFileSync(go, "");
    const evs = await turn;
    expect(kind(final(evs))).toBe("RESPONSE_COMPLETE");
    const first = h.model.chatRequests()[b];
    const system = (first?.messages ?? []).map((m) => messageText(m)).join("\n");
    expect(system).toMatch(/slow \(starting: its tools arrive when it is ready\)/);
    expect(messageText(h.model.chatRequests()[b + 1]!.messages.at(-1))).toMatch(/Loaded 1 tools: slow__echo/);
    expect(messageText(h.model.chatRequests()[b + 2]!.messages.at(-1))).toBe("echo: hi");
    expect((await h.client.getStatus({})).capabilities.find((c) => c.id === "slow")).toMatchObject({
      state: "ready",
      toolCount: 1,
    });
  }, 90_000);

  it("a server that never answers is failed with what happened and where its log is", async () => {
    const h = await startE2E({
      capabilities: [
        "  - id: mute",
        `    mcp: { command: ${JSON.stringify(["sh", "-c", "echo mute-started >&2; exec sleep 600"])} }`,
        "    maxRestarts: 0",
      ],
      limits: ["  capability_start_timeout_s: 1"],
    });
    engines.push(h);
    const failed = await waitFor(
      async () => (await h.client.getStatus({})).capabilities.find((c) => c.id === "mute" && c.state === "failed"),
      { timeoutMs: 60_000, message: "mute to be failed" },
    );
    expect(failed.message).toMatch(/^MCP server mute: could not start: .*timed out/i);
    expect(failed.message).toContain(join(h.dataDir, "logs", "capabilities", "mute.log"));
    expect(failed.message).toContain("mute-started");
  }, 90_000);
});
