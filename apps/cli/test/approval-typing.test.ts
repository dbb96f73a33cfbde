// Text typed while an approval card waits (a sub-agent's spawn_agent asked, say) is for the input
// box: it was dropped without a word. It is kept there now, and a key the card does not take says
// what the card takes. Single answer keys still answer.
import { describe, expect, it } from "vitest";
import { EventFactory } from "./fake/events.js";
import { ev, key, run, sent, T0 } from "./state.js";

function pending() {
  const e = new EventFactory("s-1", "m-1");
  return run(sent().state, [
    ev(e.accepted()),
    ev(e.proposed("c1", "spawn_agent", { task: "read README.md" })),
    ev(e.approvalNeeded("ap1", "c1", "spawn_agent", { task: "read README.md" }, "delegation asks", T0 + 60_000)),
  ]).state;
}

describe("typing while an approval waits", () => {
  it("text typed at once (a paste, tmux send-keys, a fast typist) is kept in the input box, unanswered", () => {
    const { state, effects } = run(pending(), [key("typed meanwhile")]);
    expect(effects).toEqual([]);
    expect(state.approvals.map((a) => a.approvalId)).toEqual(["ap1"]);
    expect(state.editor.text).toBe("typed meanwhile");
    expect(state.banner?.text).toContain("an approval is waiting (y allow once");
    expect(state.banner?.text).toContain("what you typed is kept below");
  });

  it("a single key the card does not take says what it takes; an answer key still answers", () => {
    const { state, effects } = run(pending(), [key("h")]);
    expect(effects).toEqual([]);
    expect(state.editor.text).toBe("");
    expect(state.banner?.text).toContain("other keys wait for the answer");
    const answered = run(state, [key("n")]);
    expect(answered.effects).toEqual([
      { type: "resolveApproval", approvalId: "ap1", sessionId: "s-1", choice: "deny" },
    ]);
  });
});
