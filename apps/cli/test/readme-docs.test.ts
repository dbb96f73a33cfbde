import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./tmux.js";

describe("README.md", () => {
  it("its docs table names every file in docs/, each once", () => {
    const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
    const rows = readme.split("\n").filter((l) => /^\| \[docs\/[^\]]+\.md\]\(docs\/[^)]+\.md\) \|/.test(l));
    const listed = rows.map((r) => /^\| \[(docs\/[^\]]+\.md)\]/.exec(r)?.[1]);
    const docs = readdirSync(join(repoRoot, "docs"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => `docs/${f}`);
    expect([...listed].sort()).toEqual(docs.sort());
  });
});
