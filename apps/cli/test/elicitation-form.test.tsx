import { describe, expect, it } from "vitest";
import { render } from "ink-testing-library";
import { ChatView } from "../src/tui/ChatView.js";
import { shownMessage } from "../src/format/terminal-text.js";
import type { Action, Effect } from "../src/tui/state/types.js";
import { EventFactory } from "./fake/events.js";
import { enter, esc, ev, key, run, sent, type, T0 } from "./state.js";

// An MCP server's form (elicitation) in the chat: built from the requested schema, filled with
// the keys, checked against the schema, answered as the approval's resolution.

const SCHEMA = {
  type: "object",
  properties: {
    name: { type: "string", title: "Your name", description: "as on the booking" },
    guests: { type: "integer", title: "Guests", minimum: 1, maximum: 12, default: 2 },
    terrace: { type: "boolean", title: "Terrace" },
    time: {
      type: "string",
      title: "Time",
      oneOf: [
        { const: "19", title: "7 pm" },
        { const: "21", title: "9 pm" },
      ],
    },
  },
  required: ["name", "time"],
};

const e = new EventFactory();
const down = key("", { downArrow: true });
const space = key(" ");
const right = key("", { rightArrow: true });

/** The chat with the form open; events go through shownMessage as the controller sends them. */
function withForm(message = "Book a table?", schema: object = SCHEMA) {
  const { state } = sent("book it");
  const event = shownMessage(e.elicitation("ap1", "c1", "book__table", "book", message, schema, T0 + 300_000));
  return run(state, [ev(e.proposed("c1", "book__table", {})), ev(event)]);
}

const frameOf = (actions: Action[] = [], message?: string): string => {
  const { state } = run(withForm(message).state, actions);
  const r = render(<ChatView state={state} />);
  const out = r.lastFrame() ?? "";
  r.unmount();
  return out;
};

const answers = (effects: Effect[]) => effects.filter((x) => x.type === "resolveApproval");

describe("an MCP server's form in the chat", () => {
  it("shows the server's words as untrusted, every field with required marked and defaults filled", () => {
    const out = frameOf([], "Book \u001b[31ma table\u001b[0m?\u202e");
    expect(out).toContain("MCP server book asks you");
    expect(out).toContain("during book__table, in its own words, not checked by Palisade:");
    // the control characters of its message are shown, never sent to the terminal
    expect(out).toContain("Book \\e[31ma table\\e[0m?\\u202e");
    expect(out).not.toContain("\u001b[31ma table");
    expect(out).toMatch(/Your name \*/);
    expect(out).toContain("as on the booking");
    expect(out).toMatch(/Guests +2/);
    expect(out).toMatch(/Time \*/);
    expect(out).toContain("( ) not set");
    for (const b of ["Accept", "Decline", "Cancel"]) expect(out).toContain(b);
  });

  it("Accept with a required field empty is refused here, with what is missing; nothing is sent", () => {
    const { state, effects } = run(withForm().state, [down, down, down, down, enter]);
    expect(answers(effects)).toEqual([]);
    const r = render(<ChatView state={state} />);
    expect(r.lastFrame()).toContain("Your name is required");
    expect(r.lastFrame()).toContain("Time is required");
    r.unmount();
    // the focus is on the first field with a problem
    expect(state.approvals[0]?.form?.focus).toBe(0);
  });

  it("a number out of range is shown as the user types it", () => {
    const out = frameOf([down, key("", { backspace: true }), ...type("40")]);
    expect(out).toContain("Guests must be at most 12");
  });

  it("filled and accepted: allow once with the values, in their types", () => {
    const { effects, state } = run(withForm().state, [
      ...type("Ada"),
      down,
      key("", { backspace: true }),
      ...type("4"),
      down,
      space,
      down,
      right,
      right,
      down,
      enter,
    ]);
    expect(answers(effects)).toEqual([
      {
        type: "resolveApproval",
        approvalId: "ap1",
        sessionId: "s-1",
        choice: "allow_once",
        form: { action: "accept", content: { name: "Ada", guests: 4, terrace: true, time: "21" } },
      },
    ]);
    expect(state.approvals).toEqual([]);
  });

  it("Decline denies and says decline; Esc cancels the form, not the turn", () => {
    const declined = run(withForm().state, [down, down, down, down, down, enter]);
    expect(answers(declined.effects)).toEqual([
      expect.objectContaining({ choice: "deny", form: { action: "decline" } }),
    ]);
    const cancelled = run(withForm().state, [esc]);
    expect(answers(cancelled.effects)).toEqual([
      expect.objectContaining({ choice: "deny", form: { action: "cancel" } }),
    ]);
    expect(cancelled.effects.some((x) => x.type === "cancel")).toBe(false);
    expect(cancelled.state.turn?.cancelling).toBeFalsy();
  });

  it("letters go into the field, not to the approval keys (y, n, a, r)", () => {
    const { state, effects } = run(withForm().state, type("yarn"));
    expect(answers(effects)).toEqual([]);
    expect(state.approvals[0]?.form?.texts.name).toBe("yarn");
  });

  it("a schema a form cannot take: only Decline and Cancel", () => {
    const { state } = sent("book it");
    const bad = { type: "object", properties: { address: { type: "object" } } };
    const s = run(state, [ev(e.elicitation("ap2", "c2", "book__table", "book", "Where?", bad, T0 + 300_000))]).state;
    const r = run(s, [enter]);
    expect(answers(r.effects)).toEqual([expect.objectContaining({ choice: "deny", form: { action: "decline" } })]);
    const view = render(<ChatView state={s} />);
    expect(view.lastFrame()).toContain("This form cannot be filled here");
    view.unmount();
  });
});
