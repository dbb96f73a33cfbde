// The sessions' provenance is bounded by what it holds, not by a count of sessions: many small
// sessions taking turns in rotation all keep their labels (a count bound dropped each one before
// its next turn, which then read 200 messages back from the store and labelled them again).
import { createShield, loadPolicy } from "@palisade/shield";
import { describe, expect, it } from "vitest";
import { PROVENANCE_MAX_BYTES, SESSION_OVERHEAD_BYTES, SessionProvenance } from "../src/adapters/provenance.js";

const shield = createShield({ policy: await loadPolicy("default"), workspace: "/w", home: "/home/u" });

function turn(p: SessionProvenance, sessionId: string, i: number, result = `{"path":"x.txt","content":"x ${i}"}`) {
  p.observe({ sessionId, kind: "user-message", text: `read x.txt (${i})` });
  p.observe({
    sessionId,
    kind: "tool-result",
    text: result,
    callId: `${sessionId}_c${i}`,
    toolName: "files__read_file",
    capabilityId: "files",
    builtin: true,
    argumentsJson: '{"path":"x.txt"}',
    workspace: "/w",
  });
}

describe("the sessions' provenance", () => {
  it("keeps every session of 1,000 taking turns in rotation, with their labels", () => {
    const p = new SessionProvenance(shield);
    const ids = Array.from({ length: 1000 }, (_, i) => `ses_${String(i)}`);
    for (let round = 0; round < 3; round++) for (const id of ids) turn(p, id, round);
    expect(ids.filter((id) => p.of(id) === undefined)).toEqual([]);
    expect(p.of("ses_0")?.saw.has("workspace")).toBe(true);
    expect(p.usage().bytes).toBeLessThanOrEqual(PROVENANCE_MAX_BYTES);
  });

  it("drops the least recently used sessions once what they hold passes the bound", () => {
    // each session below holds ~40 KiB of fragments: two fit, a third does not
    const max = 4 * SESSION_OVERHEAD_BYTES + 64 * 1024;
    const p = new SessionProvenance(shield, max);
    const big = JSON.stringify({ content: Array.from({ length: 600 }, (_, i) => `word${String(i)}`).join(" ") });
    turn(p, "a", 0, big);
    turn(p, "b", 0, big);
    expect(p.usage().sessions).toBe(2);
    p.of("a"); // used again: "b" is now the oldest
    turn(p, "c", 0, big);
    expect(p.usage().bytes).toBeLessThanOrEqual(max);
    expect(p.of("b")).toBeUndefined();
    expect(p.of("a")).toBeDefined();
    expect(p.of("c")).toBeDefined();
  });
});
