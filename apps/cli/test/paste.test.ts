import { describe, expect, it } from "vitest";
import { enter, fresh, key, run, type } from "./state.js";
import type { ChatState } from "../src/tui/state/types.js";

/** 1.5 MB of text in lines, as a user pastes a log or a file. */
const BIG = Array.from(
  { length: 20_000 },
  (_, i) => `line ${String(i).padStart(5, "0")} of the pasted log: ${"x".repeat(48)}`,
).join("\n");
/** How a terminal delivers it: chunks of 4 kB, newlines as CR. */
const chunks = (text: string, size = 4096): string[] =>
  Array.from({ length: Math.ceil(text.length / size) }, (_, i) =>
    text.slice(i * size, (i + 1) * size).replace(/\n/g, "\r"),
  );

function pasted(text = BIG, state: ChatState = fresh()): ChatState {
  return run(
    state,
    chunks(text).map((c) => key(c)),
  ).state;
}

describe("a large paste", () => {
  it("shows as one placeholder in the input box, however many chunks it came in", () => {
    expect(BIG.length).toBeGreaterThan(1_500_000);
    expect(BIG.length).toBeLessThan(1_600_000);
    const s = pasted();
    expect(s.editor.text).toBe("[pasted text #1: 20,000 lines, 1.5 MB]");
    expect(s.editor.pastes?.[s.editor.text]).toBe(BIG);
  });

  it("is sent whole in its place, while the transcript and the input history keep the placeholder", () => {
    const s = run(pasted(BIG, run(fresh(), type("look at this: ")).state), [...type(" thanks"), enter]);
    const send = s.effects.at(-1);
    expect(send).toMatchObject({
      type: "send",
      text: `look at this: ${BIG} thanks`,
      display: "look at this: [pasted text #1: 20,000 lines, 1.5 MB] thanks",
    });
    expect(s.state.committed.at(-1)).toMatchObject({
      kind: "user",
      text: "look at this: [pasted text #1: 20,000 lines, 1.5 MB] thanks",
    });
    expect(s.state.editor.history.at(-1)).toBe("look at this: [pasted text #1: 20,000 lines, 1.5 MB] thanks");
  });

  it("a last chunk ending in a newline continues the paste instead of sending it", () => {
    const s = run(pasted(), [key("tail line\r")]);
    expect(s.effects).toEqual([]);
    expect(s.state.editor.text).toBe("[pasted text #1: 20,001 lines, 1.5 MB]");
    expect(s.state.editor.pastes?.[s.state.editor.text]).toBe(`${BIG}tail line\n`);
  });

  it("text typed after it starts a new piece; a second paste gets its own placeholder", () => {
    const s = pasted("second\n".repeat(30), run(pasted(), type(" and ")).state);
    expect(s.editor.text).toBe("[pasted text #1: 20,000 lines, 1.5 MB] and [pasted text #2: 31 lines, 210 B]");
  });

  it("Backspace right after a placeholder removes the whole paste", () => {
    const s = run(pasted(BIG, run(fresh(), type("a ")).state), [key("", { backspace: true })]);
    expect(s.state.editor.text).toBe("a ");
    expect(run(s.state, [enter]).effects.at(-1)).toMatchObject({ type: "send", text: "a " });
  });

  it("a short paste is typed as it is", () => {
    const s = run(fresh(), [key("one\rtwo\rthree")]);
    expect(s.state.editor.text).toBe("one\ntwo\nthree");
    expect(s.state.editor.pastes).toBeUndefined();
  });
});

describe("a message over the Engine's limit", () => {
  it("refused by the Engine: the turn ends with the limit and what to do, and the text is back in the input box", () => {
    const s = run(pasted(), [enter]);
    const send = s.effects.at(-1) as { clientMessageId: string };
    const after = run(s.state, [
      { type: "tooLarge", clientMessageId: send.clientMessageId, bytes: BIG.length, limitBytes: 1024 * 1024 },
    ]).state;
    expect(after.turn).toBeUndefined();
    const shown = after.committed.at(-1);
    expect(shown).toMatchObject({ kind: "notice", level: "error" });
    expect(shown && "text" in shown ? shown.text : "").toBe(
      "not sent: this message is 1.5 MB, over the Engine's limit of 1.0 MB per message (limits.client_max_message in the config, at most 16 MiB). " +
        "Save the text as a file in the workspace and ask about that file instead; your text is back in the input box.",
    );
    expect(after.editor.text).toBe("[pasted text #1: 20,000 lines, 1.5 MB]");
    // Known now: the next try is refused here, without a request, and the text stays.
    const again = run(after, [enter]);
    expect(again.effects).toEqual([]);
    expect(again.state.banner?.text).toMatch(
      /^not sent: this message is 1\.5 MB, over the Engine's limit of 1\.0 MB per message/,
    );
    expect(again.state.editor.text).toBe("[pasted text #1: 20,000 lines, 1.5 MB]");
  });

  it("over the transport's 16 MiB it is refused before any request", () => {
    const huge = "y".repeat(17 * 1024 * 1024);
    const s = run(fresh(), [key(huge), enter]);
    expect(s.effects).toEqual([]);
    expect(s.state.banner?.text).toMatch(
      /^not sent: this message is 17\.0 MB, over the Engine's limit of 16\.0 MB per message\. Save the text as a file/,
    );
  });
});
