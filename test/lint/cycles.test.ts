// `make lint` fails on an import cycle inside a package (scripts/layout-stats.mjs --no-cycles):
// shown on a fixture package with a deliberate cycle of two files, a type import included, and
// quiet on this repository and on the same package once the shared type has a file of its own.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const repo = join(import.meta.dirname, "../..");
const script = join(repo, "scripts/layout-stats.mjs");
const dirs: string[] = [];
afterEach(() => {
  while (dirs.length > 0) rmSync(dirs.pop() ?? "", { recursive: true, force: true });
});

function check(root: string): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [script, root, "--no-cycles"], { encoding: "utf8" });
  return { status: r.status, stderr: r.stderr };
}

function fixture(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "pal-cycles-"));
  dirs.push(root);
  for (const [path, text] of Object.entries({ "packages/demo/package.json": "{}", ...files })) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe("import cycles fail the lint", () => {
  it("a cycle of two files, one side a type import, is named and fails", () => {
    const root = fixture({
      "packages/demo/src/reader.ts": `import { hazard } from "./options.js";\nexport interface Cmd { name: string }\nexport const read = (c: Cmd) => hazard(c);\n`,
      "packages/demo/src/options.ts": `import type { Cmd } from "./reader.js";\nexport const hazard = (c: Cmd) => c.name;\n`,
    });
    const r = check(root);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("import cycle in packages/demo/src: options.ts <-> reader.ts\n");
  });

  it("the same package with the shared type in a file of its own passes", () => {
    const root = fixture({
      "packages/demo/src/command.ts": `export interface Cmd { name: string }\n`,
      "packages/demo/src/reader.ts": `import { hazard } from "./options.js";\nimport type { Cmd } from "./command.js";\nexport const read = (c: Cmd) => hazard(c);\n`,
      "packages/demo/src/options.ts": `import type { Cmd } from "./command.js";\nexport const hazard = (c: Cmd) => c.name;\n`,
    });
    expect(check(root)).toEqual({ status: 0, stderr: "" });
  });

  it("this repository has none", () => {
    expect(check(repo)).toEqual({ status: 0, stderr: "" });
  });
});
