// The one sanitizer for text from the model, tools and servers (format/terminal-text.ts).
import { describe, expect, it } from "vitest";
import { jsonLine, shown, shownJson, shownLine, shownMessage } from "../src/format/terminal-text.js";

// eslint-disable-next-line no-control-regex -- what must never reach a terminal
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069]/;

describe("terminal text", () => {
  it("shows ESC sequences, C1, CR, bidi and zero-width characters as escapes; keeps lines and ordinary text", () => {
    expect(shown("a\u001b]52;c;eA==\u0007b\u001b[1A\u001b[2Kc\u009b2Jd\re\u202ef\u200bg\nh\ti ✓ é")).toBe(
      "a\\e]52;c;eA==\\x07b\\e[1A\\e[2Kc\\x9b2Jd\\re\\u202ef\\u200bg\nh\ti ✓ é",
    );
    expect(shownLine("one\ntwo")).toBe("one\\ntwo");
  });

  it("JSON: parsed for display, no value carries a raw control; --json lines keep the value", () => {
    const json = JSON.stringify({ command: "echo \u001b[31m\u009b", nested: [{ k: "\u202e" }] });
    const display = JSON.parse(shownJson(json)) as { command: string; nested: { k: string }[] };
    expect(JSON.stringify(display)).not.toMatch(RAW);
    expect(display.command).toBe("echo \\e[31m\\x9b");
    const line = jsonLine(json);
    expect(line).not.toMatch(RAW);
    expect(JSON.parse(line)).toEqual(JSON.parse(json));
  });

  it("every call sanitizes, whatever came before (no regex state carried between calls)", () => {
    // a non-JSON text with a control first, then a JSON value with its control early on
    expect(jsonLine(`not json ${"x".repeat(40)}\u009b`)).not.toMatch(RAW);
    expect(jsonLine(JSON.stringify({ a: "\u009b" }))).not.toMatch(RAW);
    expect(jsonLine(JSON.stringify({ a: "\u202e" }))).not.toMatch(RAW);
  });

  it("a message from the Engine: every string, the JSON fields as JSON; numbers and bytes unchanged", () => {
    const msg = {
      $typeName: "x.Event",
      seq: 3n,
      text: "\u001b[2J",
      data: new Uint8Array([27]),
      action: { case: "a", value: { argumentsJson: '{"c":"\\u001b"}', n: 1 } },
    };
    const out = shownMessage(msg);
    expect(out).toEqual({
      $typeName: "x.Event",
      seq: 3n,
      text: "\\e[2J",
      data: new Uint8Array([27]),
      action: { case: "a", value: { argumentsJson: '{"c":"\\\\e"}', n: 1 } },
    });
  });
});
