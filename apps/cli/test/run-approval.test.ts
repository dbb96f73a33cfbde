import { describe, expect, it } from "vitest";
import { approvalPrompt } from "../src/commands/run.js";

describe("palisade run's approval prompt", () => {
  const base = { toolName: "files__write_file", argumentsJson: JSON.stringify({ path: "notes.md", content: "a\nb" }), reason: "files__write_file asks", preview: "", grantScope: "" };

  it("says what `a` covers, from the Engine's Shield", () => {
    const text = approvalPrompt({ ...base, grantScope: "files__write_file: paths under ./" });
    expect(text.split("\n")).toEqual([
      '? files__write_file path=notes.md content="a\\nb"',
      "  the Shield asks because: files__write_file asks",
      "  [a] covers, for the rest of this session: files__write_file: paths under ./",
    ]);
  });

  it("shows a file write's diff, cut with a count of the rest", () => {
    const preview = ["--- a/notes.md", "+++ b/notes.md", "@@ -1 +1,30 @@", "-old", ...Array.from({ length: 30 }, (_, i) => `+new ${i}`)].join("\n");
    const lines = approvalPrompt({ ...base, preview }, 10).split("\n");
    expect(lines.slice(1, 6)).toEqual(["  --- a/notes.md", "  +++ b/notes.md", "  @@ -1 +1,30 @@", "  -old", "  +new 0"]);
    expect(lines).toContain("  … 24 more lines");
    expect(lines).not.toContain("  +new 6");
  });
});
