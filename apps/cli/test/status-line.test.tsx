import { stripVTControlCharacters } from "node:util";
import { render } from "ink-testing-library";
import { describe, expect, it } from "vitest";
import { StatusLine } from "../src/tui/components/StatusLine.js";
import { fresh, T0 } from "./state.js";

const WORDS = ["working", "cancels", "palisade-demo", "DEMO", "scripted", "model", "connected", "out"];

describe("StatusLine in a narrow terminal", () => {
  it.each([100, 80, 60, 40, 30])("at %i columns it is one line and splits no word", (columns) => {
    const state = fresh({
      columns,
      model: "palisade-demo",
      sessionTitle: "A rather long session title about taxes",
      demo: true,
      now: T0 + 3200,
      tokens: { input: 12_300, output: 456 },
      turn: { messageId: "m", clientMessageId: "c", startedAt: T0, cancelling: false, sawText: false },
    });
    const out = stripVTControlCharacters(render(<StatusLine state={state} />).lastFrame() ?? "");
    const lines = out.split("\n");
    expect(lines, out).toHaveLength(1);
    expect(lines[0]?.length ?? 0).toBeLessThanOrEqual(columns);
    // Every word shown is shown whole (a cut one ends with "…").
    const shown = out.split(/[\s·]+/).filter(Boolean);
    for (const w of shown) {
      const whole = WORDS.some((x) => x === w) || !WORDS.some((x) => x.startsWith(w) && x !== w) || w.endsWith("…");
      expect(whole, `"${w}" in ${JSON.stringify(out)}`).toBe(true);
    }
    // What matters most stays: the turn running, and the connection.
    expect(out).toContain("working 3s");
    expect(out).toContain("● connected");
  });
});
