#!/usr/bin/env node
// Refuses a commit whose staged TypeScript/JavaScript imports a relative module that is not in the
// index: in a tree several people edit at once, a file can be committed while the module it now
// imports is still untracked, and a clean clone then fails to build. Used as a pre-commit hook
// (scripts/install-hooks.sh); reads the staged content, never the working tree.
import { execFileSync } from "node:child_process";
import { posix } from "node:path";

const git = (...args) => execFileSync("git", args, { encoding: "utf8", maxBuffer: 64 << 20 });
const staged = git("diff", "--cached", "--name-only", "--diff-filter=ACMR", "-z")
  .split("\0")
  .filter((f) => /\.(ts|tsx|mts|mjs|js)$/.test(f));
if (staged.length === 0) process.exit(0);
const tracked = new Set(git("ls-files", "--cached", "-z").split("\0"));
// Static imports and re-exports at the start of a line (not the text of a fixture inside a string),
// and dynamic import() of a literal path.
const IMPORT =
  /(?:^\s*(?:import|export)\b[^;"'`]*?\bfrom\s*|^\s*import\s*|\bimport\s*\(\s*)["'](\.{1,2}\/[^"'$]+)["']/gm;
const candidates = (spec) => {
  const bare = spec.replace(/\.(js|mjs|cjs|jsx)$/, "");
  return [
    spec,
    `${bare}.ts`,
    `${bare}.tsx`,
    `${bare}.mts`,
    `${bare}.js`,
    `${bare}.mjs`,
    `${bare}/index.ts`,
    `${bare}/index.js`,
  ];
};
const problems = [];
for (const file of staged) {
  if (file.includes("/dist/") || file.includes("node_modules/")) continue;
  const text = git("show", `:${file}`);
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1];
    const target = posix.normalize(posix.join(posix.dirname(file), spec));
    if (target.split("/").includes("dist")) continue; // build output, made by make build
    if (!candidates(target).some((c) => tracked.has(c)))
      problems.push(
        `${file}: imports "${spec}", which is not in the index (git add it, or leave the import out of this commit)`,
      );
  }
}
if (problems.length > 0) {
  console.error(`pre-commit: the commit would not build from a clean clone:\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
