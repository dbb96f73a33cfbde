import { describe, expect, it } from "vitest";
import { fresh, run } from "./state.js";
import { startActions } from "../src/tui/start-actions.js";
import { COMMAND_TREE } from "../src/cli/tree.js";

describe("palisade chat --resume [SESSION] --model NAME", () => {
  it("--resume with a session resolves it and loads its history, as /resume ID", () => {
    const r = run(fresh(), startActions({ resume: "3f2a" }));
    expect(r.effects).toEqual([{ type: "resolvePrefix", prefix: "3f2a" }]);
  });

  it("--resume alone opens the sessions list to pick from", () => {
    const r = run(fresh(), startActions({ resume: true }));
    expect(r.state.overlay).toMatchObject({ kind: "sessions", loading: true });
    expect(r.effects).toEqual([{ type: "listSessions", filter: "", offset: 0 }]);
  });

  it("without --resume the chat starts as it did", () => {
    expect(startActions({})).toEqual([]);
  });

  it("the options are declared for chat", () => {
    const chat = COMMAND_TREE.subcommands?.find((c) => c.name === "chat");
    expect(Object.keys(chat?.options ?? {})).toEqual(expect.arrayContaining(["resume", "model"]));
    expect(chat?.positionals?.map((p) => p.name)).toEqual(["session"]);
  });
});

describe("a token line per turn", () => {
  it("the answer that ends a turn shows the turn's tokens under it; the status line keeps the session's sum", async () => {
    const { EventFactory } = await import("./fake/events.js");
    const { ev, sent } = await import("./state.js");
    const { render } = await import("ink-testing-library");
    const { createElement } = await import("react");
    const { EntryView } = await import("../src/tui/components/EntryView.js");
    const e = new EventFactory("s-1", "m-1");
    const first = run(sent("one").state, [
      ev(e.accepted()),
      ev(e.token("Hello")),
      ev(e.complete("Hello", 1200, 34)),
    ]).state;
    const second = run(
      run(first, [
        { type: "key", key: { input: "two" } },
        { type: "key", key: { input: "\r", return: true } },
      ]).state,
      [ev(e.token("Again")), ev(e.complete("Again", 2500, 40))],
    ).state;
    const answers = second.committed.filter((x) => x.kind === "assistant");
    expect(answers.map((a) => (a.kind === "assistant" ? a.usage : undefined))).toEqual([
      { input: 1200, output: 34 },
      { input: 2500, output: 40 },
    ]);
    const shown = answers.map((a) => render(createElement(EntryView, { entry: a, width: 80 })).lastFrame() ?? "");
    expect(shown[0]).toContain("1.2k in · 34 out this turn");
    expect(shown[1]).toContain("2.5k in · 40 out this turn");
    expect(second.tokens).toEqual({ input: 3700, output: 74 });
  });
});
