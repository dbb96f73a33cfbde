import { render } from "ink-testing-library";
import { describe, expect, it } from "vitest";
import { ctrl, enter, esc, fresh, key, run, type } from "./state.js";
import { InputBox } from "../src/tui/components/InputBox.js";
import { emptyEditor } from "../src/tui/state/editor.js";

const HISTORY = ["summarize README.md", "run the tests", "fix the failing test in parse.ts", "deploy to staging"];
const start = () => fresh({ editor: { ...emptyEditor(HISTORY), text: "draft text", cursor: 10 } });

describe("Ctrl+R: search past prompts", () => {
  it("typing finds the newest prompt containing the words; Ctrl+R again an older one; Enter takes it without sending", () => {
    let r = run(start(), [ctrl("r"), ...type("test")]);
    expect(r.state.editor.search).toMatchObject({ query: "test", match: 2 });
    r = run(r.state, [ctrl("r")]);
    expect(r.state.editor.search?.match).toBe(1);
    r = run(r.state, [ctrl("r")]);
    expect(r.state.editor.search?.match).toBe(1); // no older match: stays
    r = run(r.state, [enter]);
    expect(r.effects).toEqual([]);
    expect(r.state.turn).toBeUndefined();
    expect(r.state.editor).toMatchObject({ text: "run the tests", cursor: 13, search: undefined });
    // Enter again sends it
    expect(run(r.state, [enter]).effects.at(-1)).toMatchObject({ type: "send", text: "run the tests" });
  });

  it("Esc gives the draft back; Backspace widens the search", () => {
    let r = run(start(), [ctrl("r"), ...type("deploz")]);
    expect(r.state.editor.search?.match).toBeUndefined();
    r = run(r.state, [key("", { backspace: true })]);
    expect(r.state.editor.search).toMatchObject({ query: "deplo", match: 3 });
    r = run(r.state, [esc]);
    expect(r.state.editor).toMatchObject({ text: "draft text", search: undefined });
  });

  it("the input box shows the search and its match", () => {
    const s = run(start(), [ctrl("r"), ...type("readme")]).state;
    const frame = render(<InputBox editor={s.editor} active width={100} />).lastFrame() ?? "";
    expect(frame).toContain("(search past prompts) “readme”: summarize README.md");
    expect(frame).toContain("Ctrl+R older · Enter take it · Esc back");
  });
});
