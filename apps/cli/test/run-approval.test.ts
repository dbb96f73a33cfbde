import { describe, expect, it } from "vitest";
import { approvalPrompt } from "../src/commands/run.js";
import { wrapText } from "../src/format/call-text.js";

describe("palisade run's approval prompt", () => {
  const base = {
    toolName: "files__write_file",
    argumentsJson: JSON.stringify({ path: "notes.md", content: "a\nb" }),
    reason: "files__write_file asks",
    preview: "",
    grantScope: "",
  };

  it("says what `a` covers, from the Engine's Shield", () => {
    const text = approvalPrompt({ ...base, grantScope: "files__write_file: paths under ./" });
    expect(text.split("\n")).toEqual([
      '? files__write_file path=notes.md content="a\\nb"',
      "  the Shield asks because: files__write_file asks",
      "  [a] covers, for the rest of this session: files__write_file: paths under ./",
    ]);
  });

  it("shows a file write's diff, cut with a count of the rest", () => {
    const preview = [
      "--- a/notes.md",
      "+++ b/notes.md",
      "@@ -1 +1,30 @@",
      "-old",
      ...Array.from({ length: 30 }, (_, i) => `+new ${i}`),
    ].join("\n");
    const lines = approvalPrompt({ ...base, preview }, 10).split("\n");
    expect(lines.slice(1, 6)).toEqual([
      "  --- a/notes.md",
      "  +++ b/notes.md",
      "  @@ -1 +1,30 @@",
      "  -old",
      "  +new 0",
    ]);
    expect(lines).toContain("  … 24 more lines");
    expect(lines).not.toContain("  +new 6");
  });

  it("shows the whole call, wrapped at the width, never cut", () => {
    const command =
      "npm run lint -- --fix --max-warnings 0 --cache --cache-location .eslintcache --report-unused-disable-directives && npm publish --access public";
    const lines = approvalPrompt(
      {
        ...base,
        toolName: "shell__execute_command",
        argumentsJson: JSON.stringify({ command, cwd: "packages/a-long-package-directory" }),
      },
      20,
      60,
    ).split("\n");
    for (const l of lines) expect([...l].length).toBeLessThanOrEqual(60);
    const call = lines
      .slice(
        0,
        lines.findIndex((l) => l.startsWith("  the Shield asks")),
      )
      .map((l, i) => (i === 0 ? l : l.replace(/^ {4}/, "")))
      .join(" ");
    expect(call.replace(/\s+/g, " ")).toBe(
      `? shell__execute_command command=${JSON.stringify(command)} cwd=packages/a-long-package-directory`.replace(
        /\s+/g,
        " ",
      ),
    );
    // a word longer than a line is split, not dropped
    const word = "x".repeat(150);
    const split = wrapText(`? t path=${word}`, 60);
    for (const l of split) expect([...l].length).toBeLessThanOrEqual(60);
    expect(split.map((l, i) => (i === 0 ? l : l.replace(/^ {4}/, ""))).join("")).toBe(`? t path=${word}`);
  });

  it("shows terminal controls in the arguments, reason and scope as visible escapes", () => {
    const text = approvalPrompt({
      ...base,
      toolName: "shell__execute_command",
      argumentsJson: JSON.stringify({ command: "echo \u001b]52;c;eA==\u0007 \u009b2J" }),
      reason: "why\u001b[1A",
      grantScope: "x\u202ey",
    });
    // eslint-disable-next-line no-control-regex -- none may reach the terminal
    expect(text).not.toMatch(/[\u001b\u0007\u0080-\u009f\u202e]/);
    // a quoted value is JSON (ESC is \u001b there); a bare C1 character becomes \x9b
    expect(text).toContain("\\u001b]52;c;eA==\\u0007 \\x9b2J");
    expect(text).toContain("why\\e[1A");
    expect(text).toContain("x\\u202ey");
  });
});
