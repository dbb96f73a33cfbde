// Issue 9: automatic session titles. After a session's first turn the Engine asks the configured
// model (the scripted server) for a title; RESPONSE_COMPLETE never waits for it, a failing model
// leaves the first user message as the title, a rename wins, OTR sessions are never sent.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SessionMode } from "@palisade/protocol/types";
import { messageText, waitFor } from "@palisade/testing";
import type { ChatRequest } from "@palisade/testing";
import { TITLE_SYSTEM_PROMPT } from "@palisade/engine";
import { built, collect, final, kind, startE2E } from "../engine/helpers.js";
import type { E2E } from "../engine/helpers.js";

const skip = built();
const isTitle = (r: ChatRequest): boolean => messageText(r.messages[0]).includes(TITLE_SYSTEM_PROMPT);
const titleText = (r: ChatRequest): string => messageText(r.messages.at(-1));
let h: E2E;

beforeAll(async () => {
  if (skip) return;
  h = await startE2E({
    autoTitle: true,
    model: {
      rules: [
        // Title requests, by the first user message they carry.
        {
          match: { when: (r) => isTitle(r) && titleText(r).includes("[fail]") },
          reply: { status: 500, errorMessage: "title model down" },
        },
        {
          match: { when: (r) => isTitle(r) && titleText(r).includes("[slow]") },
          reply: { content: "Slow Title", latencyMs: 1500 },
        },
        { match: { when: isTitle }, reply: { content: '"Capital of France."' } },
        // The Agent: read a file when asked to, else answer.
        {
          match: { role: "user", content: "[tool]" },
          reply: { toolCalls: [{ name: "load_tools", arguments: { groups: ["files"] } }] },
        },
        {
          match: { toolResult: /^Loaded/ },
          reply: { toolCalls: [{ name: "files__read_file", arguments: { path: "hello.txt" } }] },
        },
        { match: { role: "tool" }, reply: { content: "I read it." } },
        { match: { role: "user" }, reply: { content: "Paris is the capital of France." } },
      ],
    },
  });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

const titleRequests = (): ChatRequest[] => h.model.chatRequests().filter(isTitle);
async function titleOf(sessionId: string): Promise<string> {
  return (await h.client.getHistory({ sessionId, limit: 1 })).session?.title ?? "";
}

describe.skipIf(skip)("automatic session titles", () => {
  it("names a session with the model after its first turn, with a tight budget and only the first message and reply", async () => {
    const before = titleRequests().length;
    const evs = await collect(h.client.sendMessage({ content: "What is the capital of France?\nAnswer briefly." }));
    expect(kind(final(evs))).toBe("RESPONSE_COMPLETE");
    const sessionId = evs[0]!.sessionId;
    await waitFor(async () => (await titleOf(sessionId)) === "Capital of France", { timeoutMs: 5000 });
    const reqs = titleRequests().slice(before);
    expect(reqs).toHaveLength(1);
    const req = reqs[0]!;
    expect(req.max_tokens).toBe(20);
    expect(req.stream).toBeFalsy();
    expect(req.tools).toBeUndefined();
    expect(req.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(titleText(req)).toContain("What is the capital of France?");
    expect(titleText(req)).toContain("Paris is the capital of France.");
    // A second turn does not ask again.
    await collect(h.client.sendMessage({ content: "And of Spain?", sessionId }));
    await new Promise((r) => setTimeout(r, 300));
    expect(titleRequests().length).toBe(before + 1);
    expect(await titleOf(sessionId)).toBe("Capital of France");
  });

  it("never sends tool results or credentials", async () => {
    const before = titleRequests().length;
    const evs = await collect(h.client.sendMessage({ content: "[tool] read hello.txt please" }));
    expect(final(evs).responseComplete?.content).toBe("I read it.");
    expect(evs.some((e) => e.actionCompleted?.resultSummary.includes("hello world"))).toBe(true);
    await waitFor(() => titleRequests().length > before, { timeoutMs: 5000 });
    const body = JSON.stringify(titleRequests()[before]);
    expect(body).not.toContain("hello world");
    expect(body).not.toContain("sk-test-not-secret");
    expect(body).not.toContain("files__read_file");
  });

  it("does not hold RESPONSE_COMPLETE for the title call, and a rename made meanwhile wins", async () => {
    const started = Date.now();
    const evs = await collect(h.client.sendMessage({ content: "[slow] a question" }));
    expect(kind(final(evs))).toBe("RESPONSE_COMPLETE");
    expect(Date.now() - started).toBeLessThan(1400);
    const sessionId = evs[0]!.sessionId;
    expect(await titleOf(sessionId)).toBe("[slow] a question"); // the first message, until the model answers
    await h.client.renameSession({ sessionId, title: "Mine" });
    // The model's answer arrives after the rename and is not applied.
    await waitFor(() => h.logs.some((l) => l.includes(`title of ${sessionId}: the user's title stays`)), {
      timeoutMs: 5000,
    });
    expect(titleRequests().some((r) => titleText(r).includes("[slow]"))).toBe(true);
    expect(await titleOf(sessionId)).toBe("Mine");
  });

  it("falls back to the first line of the first message (60 characters) when the model fails", async () => {
    const long = "[fail] " + "word ".repeat(30);
    const evs = await collect(h.client.sendMessage({ content: `${long}\nsecond line` }));
    const sessionId = evs[0]!.sessionId;
    await waitFor(() => titleRequests().some((r) => titleText(r).includes("[fail]")), { timeoutMs: 5000 });
    await new Promise((r) => setTimeout(r, 300));
    const title = await titleOf(sessionId);
    expect(title).toBe(`${long.trim().slice(0, 59)}…`);
    expect(h.logs.some((l) => l.includes(`title of ${sessionId}: kept the first message`))).toBe(true);
  });

  it("never asks for off-the-record sessions", async () => {
    const before = titleRequests().length;
    const evs = await collect(h.client.sendMessage({ content: "secret question", mode: SessionMode.OTR }));
    expect(kind(final(evs))).toBe("RESPONSE_COMPLETE");
    await new Promise((r) => setTimeout(r, 500));
    expect(titleRequests().length).toBe(before);
    expect(
      h.model
        .chatRequests()
        .filter(isTitle)
        .some((r) => titleText(r).includes("secret question")),
    ).toBe(false);
  });
});
