// The chat's notice that the running Engine started with another setup, and /restart.
import { describe, expect, it } from "vitest";
import { render } from "ink-testing-library";
import { ChatView } from "../src/tui/ChatView.js";
import { fresh, run, sent, type, enter } from "./state.js";

const LINES = [
  "The running Engine started with a different setup than this one:",
  "  model: model-one → model-two",
  "To use the current one, restart the Engine (running turns finish first, sessions are kept):",
  "  palisade engine restart",
];

describe("the changed-setup notice and /restart", () => {
  it("shows what differs and the exact command above the input, until the Engine matches again", () => {
    const shown = run(fresh(), [{ type: "engineNotice", lines: LINES }]).state;
    const frame = render(<ChatView state={shown} />).lastFrame() ?? "";
    expect(frame).toContain("⚠ The running Engine started with a different setup than this one:");
    expect(frame).toContain("model: model-one → model-two");
    expect(frame).toContain("palisade engine restart");
    expect(frame).toContain("Or type /restart here.");
    const cleared = run(shown, [{ type: "engineNotice", lines: undefined }]).state;
    expect(render(<ChatView state={cleared} />).lastFrame()).not.toContain("different setup");
  });

  it("/restart asks the shell to restart the Engine; a restart reports what it runs with", () => {
    const { state, effects } = run(fresh({ engineNotice: LINES }), [...type("/restart"), enter]);
    expect(effects).toContainEqual({ type: "restartEngine" });
    expect(state.banner?.text).toMatch(/^restarting the Engine/);
    const done = run(state, [{ type: "engineRestarted", summary: "Engine restarted: pid 7, model model-two" }]).state;
    // Reported once, in the transcript; the "restarting…" banner is gone.
    expect(done.banner).toBeUndefined();
    expect(
      done.committed.filter((e) => e.kind === "notice" && e.text === "Engine restarted: pid 7, model model-two"),
    ).toHaveLength(1);
  });

  it("/restart waits for a running turn", () => {
    const busy = sent("hello").state;
    const { state, effects } = run(busy, [...type("/restart"), enter]);
    expect(effects.some((e) => e.type === "restartEngine")).toBe(false);
    expect(state.banner?.text).toContain("a turn is running");
  });
});
