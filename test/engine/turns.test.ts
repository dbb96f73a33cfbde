// a read_file call answered; a blocked call, after which the model is told and
// replies; escalations approved, denied and timed out; parallel tool calls; two sessions at once.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApprovalDecision } from "@palisade/protocol/types";
import { PipelineEventType as T } from "@palisade/protocol/pipeline";
import type { PipelineEvent } from "@palisade/protocol/pipeline";
import { messageText } from "@palisade/testing";
import { built, collect, final, kind, loadFiles, startE2E } from "./helpers.js";
import type { E2E } from "./helpers.js";

const skip = built();
let h: E2E;
// One installation for the file (booting Engine + Agent + capabilities costs seconds); each test
// queues its own model replies. Approvals time out after 1 s.
beforeAll(async () => {
  if (!skip) h = await startE2E({ approvalTimeoutS: 1 });
}, 60_000);
afterAll(async () => {
  await h?.close();
});
const base = (): number => h.model.chatRequests().length;

/** Reads a SendMessage stream, answering each APPROVAL_NEEDED with `answer` (or not at all). */
async function drive(
  stream: AsyncIterable<PipelineEvent>,
  h: E2E,
  answer?: ApprovalDecision,
): Promise<PipelineEvent[]> {
  const out: PipelineEvent[] = [];
  for await (const ev of stream) {
    out.push(ev);
    if (ev.eventType === T.APPROVAL_NEEDED && answer !== undefined) {
      const ack = await h.client.resolveApproval({
        approvalId: ev.approvalNeeded!.approvalId,
        decision: answer,
        sessionId: ev.sessionId,
      });
      expect(ack.accepted).toBe(true);
    }
  }
  return out;
}

describe.skipIf(skip)("engine end to end: turns", () => {
  it("answers a read_file call through Agent, Shield and the files capability", async () => {
    const b = base();
    h.model.enqueue(
      loadFiles,
      { toolCalls: [{ name: "files__read_file", arguments: { path: "hello.txt" } }] },
      { content: "The file says hello world." },
    );
    const evs = await collect(h.client.sendMessage({ content: "What is in hello.txt?" }));
    expect(kind(final(evs))).toBe("RESPONSE_COMPLETE");
    expect(final(evs).responseComplete?.content).toBe("The file says hello world.");
    const verdict = evs.find((e) => e.eventType === T.SHIELD_VERDICT)?.shieldVerdict;
    expect(verdict).toMatchObject({ toolName: "files__read_file" });
    const completed = evs.find((e) => e.eventType === T.ACTION_COMPLETED)?.actionCompleted;
    expect(completed?.success).toBe(true);
    expect(completed?.resultSummary).toContain("hello world");
    // read_file does not declare `streaming`: one Invoke, its result reaches clients once.
    expect(evs.some((e) => e.eventType === T.ACTION_PROGRESS)).toBe(false);
    expect(
      evs
        .filter((e) => e.eventType === T.LLM_TOKEN)
        .map((e) => e.llmToken?.text)
        .join(""),
    ).toBe("The file says hello world.");
    // The model saw the file's content as the tool result.
    const third = h.model.chatRequests()[b + 2]!;
    expect(messageText(third.messages.at(-1))).toContain("hello world");
    const hist = await h.client.getHistory({ sessionId: evs[0]!.sessionId });
    expect(hist.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(hist.messages[1]?.toolCalls[0]).toMatchObject({ toolName: "files__read_file", isError: false });
    expect(hist.messages[1]?.toolCalls[0]?.result).toContain("hello world");
  });

  it("a call the Shield blocks goes back to the model, which replies", async () => {
    const b = base();
    h.model.enqueue(
      loadFiles,
      { toolCalls: [{ name: "files__delete_file", arguments: { path: "hello.txt" } }] },
      { content: "I was not allowed to delete it." },
    );
    const evs = await collect(h.client.sendMessage({ content: "Delete hello.txt" }));
    const verdict = evs.find((e) => e.eventType === T.SHIELD_VERDICT)?.shieldVerdict;
    expect(verdict?.ruleIds).toContain("e2e-no-delete");
    expect(evs.some((e) => e.eventType === T.ACTION_STARTED)).toBe(false);
    expect(final(evs).responseComplete?.content).toBe("I was not allowed to delete it.");
    const toolMsg = h.model.chatRequests()[b + 2]!.messages.at(-1)!;
    expect(toolMsg.role).toBe("tool");
    expect(messageText(toolMsg)).toMatch(/Shield blocked .*deleting files is not allowed here/);
    expect(existsSync(join(h.workspace, "hello.txt"))).toBe(true);
  });

  for (const [name, answer, expectFile, expectText] of [
    ["approved", ApprovalDecision.ALLOW_ONCE, true, /"bytes"|written|ok/i],
    ["denied", ApprovalDecision.DENY, false, /user declined/],
    ["timed out", undefined, false, /did not answer .* in time/],
  ] as const) {
    it(`an escalation ${name}`, async () => {
      const b = base();
      const file = `new-${name.replace(" ", "-")}.txt`;
      h.model.enqueue(
        loadFiles,
        { toolCalls: [{ name: "files__write_file", arguments: { path: file, content: "made" } }] },
        { content: "Done." },
      );
      const evs = await drive(h.client.sendMessage({ content: "Write new.txt" }), h, answer);
      const needed = evs.find((e) => e.eventType === T.APPROVAL_NEEDED)?.approvalNeeded;
      expect(needed).toMatchObject({ toolName: "files__write_file", tier: 0 });
      expect(JSON.parse(needed!.argumentsJson)).toEqual({ path: file, content: "made" });
      expect(Number(needed!.deadlineUnixMs)).toBeGreaterThan(Date.now() - 5000);
      expect(kind(final(evs))).toBe("RESPONSE_COMPLETE");
      expect(existsSync(join(h.workspace, file))).toBe(expectFile);
      if (expectFile) expect(readFileSync(join(h.workspace, file), "utf8")).toBe("made");
      const resolved = evs.find((e) => e.eventType === T.APPROVAL_RESOLVED)?.approvalResolved;
      expect(resolved?.resolvedBy).toBe(answer === undefined ? "timeout" : "user");
      expect(messageText(h.model.chatRequests()[b + 2]!.messages.at(-1))).toMatch(expectText);
    });
  }

  it("a streaming tool (shell) reports its output as ACTION_PROGRESS while it runs", async () => {
    h.model.enqueue(
      { toolCalls: [{ name: "load_tools", arguments: { groups: ["shell"] } }] },
      {
        toolCalls: [
          { name: "shell__execute_command", arguments: { command: "echo streamed-line-1; echo streamed-line-2" } },
        ],
      },
      { content: "Ran it." },
    );
    const evs = await drive(h.client.sendMessage({ content: "Run the echo" }), h, ApprovalDecision.ALLOW_ONCE);
    expect(kind(final(evs))).toBe("RESPONSE_COMPLETE");
    const progress = evs
      .filter((e) => e.eventType === T.ACTION_PROGRESS)
      .map((e) => e.actionProgress?.text ?? "")
      .join("");
    expect(progress).toContain("streamed-line-1");
    expect(progress).toContain("streamed-line-2");
    const completedAt = evs.findIndex((e) => e.eventType === T.ACTION_COMPLETED);
    expect(evs.findIndex((e) => e.eventType === T.ACTION_PROGRESS)).toBeLessThan(completedAt);
    expect(evs.findIndex((e) => e.eventType === T.ACTION_STARTED)).toBeLessThan(
      evs.findIndex((e) => e.eventType === T.ACTION_PROGRESS),
    );
    expect(evs[completedAt]?.actionCompleted?.success).toBe(true);
  });

  it("files act in the session's own workspace, not the Engine's", async () => {
    const other = mkdtempSync(join(tmpdir(), "palisade-ws2-"));
    writeFileSync(join(other, "only-here.txt"), "from the second workspace\n");
    try {
      const b = base();
      h.model.enqueue(
        loadFiles,
        { toolCalls: [{ name: "files__read_file", arguments: { path: "only-here.txt" } }] },
        { content: "Read it." },
      );
      const evs = await collect(h.client.sendMessage({ content: "Read only-here.txt", workspace: other }));
      expect(final(evs).responseComplete?.content).toBe("Read it.");
      expect(messageText(h.model.chatRequests()[b + 2]!.messages.at(-1))).toContain("from the second workspace");
      expect(existsSync(join(h.workspace, "only-here.txt"))).toBe(false);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it("runs parallel tool calls of one turn and returns each result by call id", async () => {
    const b = base();
    h.model.enqueue(
      loadFiles,
      {
        toolCalls: [
          { id: "call_a", name: "files__read_file", arguments: { path: "a.txt" } },
          { id: "call_b", name: "files__read_file", arguments: { path: "b.txt" } },
        ],
      },
      { content: "alpha and beta" },
    );
    const evs = await collect(h.client.sendMessage({ content: "Read a and b" }));
    expect(final(evs).responseComplete?.content).toBe("alpha and beta");
    const msgs = h.model.chatRequests()[b + 2]!.messages;
    const results = Object.fromEntries(
      msgs.filter((m) => m.role === "tool").map((m) => [m.tool_call_id, messageText(m)]),
    );
    expect(results.call_a).toContain("alpha");
    expect(results.call_b).toContain("beta");
    expect(evs.filter((e) => e.eventType === T.ACTION_COMPLETED)).toHaveLength(2);
  });

  it("answers two sessions at once", async () => {
    h.model.addRule({ match: { content: "first" }, reply: { content: "one", latencyMs: 300 } });
    h.model.addRule({ match: { content: "second" }, reply: { content: "two", latencyMs: 300 } });
    const t0 = Date.now();
    const [a, b] = await Promise.all([
      collect(h.client.sendMessage({ content: "first" })),
      collect(h.client.sendMessage({ content: "second" })),
    ]);
    const wall = Date.now() - t0;
    expect(final(a).responseComplete?.content).toBe("one");
    expect(final(b).responseComplete?.content).toBe("two");
    expect(a[0]!.sessionId).not.toBe(b[0]!.sessionId);
    expect(wall).toBeLessThan(1200); // concurrent, not 2 × 300 ms queued behind each other plus overhead
  });
});
