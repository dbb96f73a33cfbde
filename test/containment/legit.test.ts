// Containment does not get in the way: under the default policy (the user approves what it
// asks about), ordinary work in the workspace runs in the sandbox: file edits, git, npm test.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeSandbox } from "@palisade/sandbox";
import { startContainment } from "./harness.js";
import type { Containment } from "./harness.js";

const probe = await probeSandbox();
let h: Containment;

beforeAll(async () => {
  if (probe.available) h = await startContainment({ policy: "default" });
}, 90_000);
afterAll(async () => {
  await h?.close();
});

describe.skipIf(!probe.available)("legitimate work in a sandboxed workspace", () => {
  it("edits files with the files tools", async () => {
    // Calls of one turn run in parallel: the read comes in the next turn.
    expect(
      (
        await h.turn([
          { name: "files__write_file", arguments: { path: "src/app.js", content: "export const answer = 41;\n" } },
        ])
      ).executed,
    ).toBe(1);
    const r = await h.turn([{ name: "files__read_file", arguments: { path: "src/app.js" } }]);
    expect(r.results[0]).toContain("answer = 41");
    const sed = await h.sh("sed -i 's/41/42/' src/app.js && cat src/app.js");
    expect(sed.results[0]).toContain("answer = 42");
    expect(readFileSync(join(h.workspace, "src", "app.js"), "utf8")).toBe("export const answer = 42;\n");
  });

  it("initialises a git repository and commits", async () => {
    const r = await h.sh(
      "git init -q . && git add -A && git -c user.name=Tester -c user.email=t@example.com commit -q -m 'first commit' && git log --oneline",
    );
    expect(r.executed).toBe(1);
    expect(r.results[0]).toContain("first commit");
    expect(readFileSync(join(h.workspace, ".git", "HEAD"), "utf8")).toContain("ref: refs/heads/");
  });

  it("runs npm test of a small package", async () => {
    const pkg = { name: "tiny", version: "1.0.0", private: true, type: "module", scripts: { test: "node test.mjs" } };
    const written = await h.turn([
      { name: "files__write_file", arguments: { path: "package.json", content: JSON.stringify(pkg, null, 2) } },
      {
        name: "files__write_file",
        arguments: {
          path: "test.mjs",
          content:
            "import { answer } from './src/app.js';\nif (answer !== 42) { console.error('wrong'); process.exit(1); }\nconsole.log('tests passed');\n",
        },
      },
    ]);
    expect(written.executed).toBe(2);
    const r = await h.sh("npm test 2>&1", 120_000);
    expect(r.results[0]).toContain("tests passed");
    expect(r.results[0]).toMatch(/"exit_code":0/);
  }, 180_000);
});
