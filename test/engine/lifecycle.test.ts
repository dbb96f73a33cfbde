// A real Engine (Agent, sandboxed capability processes, scripted model): local capabilities start
// on their first call and stop when idle (read from /proc, not from the Engine's word); a
// capability that spins in a call is killed, and once its restart budget is spent its group is
// shown as down to the model and to clients while the Engine stays up.
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PipelineEventType as T } from "@palisade/protocol/pipeline";
import { messageText, waitFor } from "@palisade/testing";
import { built, collect, final, fixtures, kind, loadFiles, startE2E } from "./helpers.js";
import type { E2E } from "./helpers.js";

const skip = built();
const sick = join(fixtures, "sick-cap");
// The misbehaving capability of the supervision tests, served here under the manifest beside.
const sickServer = join(
  import.meta.dirname,
  "..",
  "..",
  "packages",
  "capabilities",
  "test",
  "fixtures",
  "unhealthy.mjs",
);
let h: E2E;
beforeAll(async () => {
  if (skip) return;
  h = await startE2E({
    limits: ["  capability_idle_stop_s: 3"],
    capabilities: [
      "  - id: sick",
      `    manifest: ${join(sick, "manifest.yaml")}`,
      `    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(sickServer)}]`,
      "    protocol: palisade",
      "    maxRestarts: 0",
      "    perToolTimeoutMs: { spin: 1500 }",
    ],
  });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

/** Command lines of every process below this one (the Engine runs in the test process). */
function descendants(): string[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      // exited meanwhile
    }
  }
  const out: string[] = [];
  const queue = [...(children.get(process.pid) ?? [])];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    try {
      out.push(readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " "));
    } catch {
      continue;
    }
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

const filesProcesses = (): string[] => descendants().filter((c) => c.includes("capabilities/files/dist"));

async function capability(id: string) {
  const s = await h.client.getStatus({});
  const c = s.capabilities.find((x) => x.id === id);
  if (!c) throw new Error(`no capability ${id} in the status`);
  return c;
}

describe.skipIf(skip)("engine end to end: capability lifecycle", () => {
  it("files starts on its first call, stops after capability_idle_stop_s (its processes gone), and the next call starts it again", async () => {
    expect(await capability("files")).toMatchObject({ state: "stopped", process: "stopped", pid: 0 });
    expect(filesProcesses()).toEqual([]);

    h.model.enqueue(
      loadFiles,
      { toolCalls: [{ name: "files__read_file", arguments: { path: "hello.txt" } }] },
      { content: "done" },
    );
    const first = await collect(h.client.sendMessage({ content: "read hello.txt" }));
    expect(first.find((e) => e.eventType === T.ACTION_COMPLETED)?.actionCompleted?.resultSummary).toContain(
      "hello world",
    );
    const started = await capability("files");
    expect(started).toMatchObject({ process: "started" });
    const pid = started.pid;
    expect(existsSync(`/proc/${pid}`)).toBe(true);

    await waitFor(
      async () =>
        (await capability("files")).process === "stopped" &&
        !existsSync(`/proc/${pid}`) &&
        filesProcesses().length === 0,
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    expect((await capability("files")).message).toMatch(/stopped after 3 s without calls/);

    h.model.enqueue(
      { toolCalls: [{ name: "files__read_file", arguments: { path: "a.txt" } }] },
      { content: "done again" },
    );
    const second = await collect(h.client.sendMessage({ content: "read a.txt", sessionId: first[0]!.sessionId }));
    expect(kind(final(second))).toBe("RESPONSE_COMPLETE");
    expect(second.find((e) => e.eventType === T.ACTION_COMPLETED)?.actionCompleted).toMatchObject({ success: true });
    expect(second.find((e) => e.eventType === T.ACTION_COMPLETED)?.actionCompleted?.resultSummary).toContain("alpha");
    const again = await capability("files");
    expect(again.pid).not.toBe(pid);
    expect(again.restarts).toBe(0);
  });

  it("a call that spins the CPU is killed; with its restart budget spent the group is down for the model and in the status, and the Engine stays up", async () => {
    const b = h.model.chatRequests().length;
    h.model.enqueue(
      { toolCalls: [{ name: "load_tools", arguments: { groups: ["sick"] } }] },
      { toolCalls: [{ name: "sick__spin", arguments: {} }] },
      { content: "it broke" },
    );
    const evs = await collect(h.client.sendMessage({ content: "spin" }));
    expect(final(evs).responseComplete?.content).toBe("it broke");
    expect(evs.find((e) => e.eventType === T.ACTION_COMPLETED)?.actionCompleted).toMatchObject({ success: false });
    const toolResult = messageText(h.model.chatRequests()[b + 2]!.messages.at(-1));
    expect(toolResult).toMatch(
      /sick__spin did not finish within 1500 ms .*capability sick did not finish sick__spin within its deadline; the Engine killed it and its restart budget \(0\) is spent/,
    );

    await waitFor(async () => (await capability("sick")).state === "failed", { timeoutMs: 20_000, intervalMs: 200 });
    expect(descendants().filter((c) => c.includes("fixtures/unhealthy.mjs"))).toEqual([]);
    expect(await capability("sick")).toMatchObject({ process: "stopped", pid: 0 });

    // The model still sees the group, marked down; clients see it in ListTools.
    const before = h.model.chatRequests().length;
    h.model.enqueue({ content: "fine" });
    const next = await collect(h.client.sendMessage({ content: "what can you do?" }));
    expect(final(next).responseComplete?.content).toBe("fine");
    const system = messageText(h.model.chatRequests()[before]!.messages[0]);
    expect(system).toMatch(/sick \(down: it failed and is not restarted/);
    const listed = await h.client.listTools({});
    expect(listed.groups.find((g) => g.name === "sick")?.down).toMatch(/^down:/);
    expect((await h.client.getStatus({})).agentConnected).toBe(true);
  });
});
