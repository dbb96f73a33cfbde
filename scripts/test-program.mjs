// The test code as one TypeScript program. Every test directory has a tsconfig.json; those that are
// the plain one over tsconfig.test.json (`{"extends": "<root>/tsconfig.test.json", "include": ["."]}`)
// go together into one generated tsconfig, so the package sources they import (the "source"
// condition) are read and checked once rather than once per directory. `make typecheck-tests`
// type-checks that program (scripts/typecheck-tests.mjs) and the lint reads the test code's types
// from it (eslint.config.js). A directory whose tsconfig says anything else stays on its own.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/** The test directories' tsconfig.json files under `root`, relative to it, split into plain and own. */
export function testConfigs(root) {
  const listed = spawnSync("git", ["ls-files", "*/test/tsconfig.json", "test/*/tsconfig.json"], {
    cwd: root,
    encoding: "utf8",
  });
  if (listed.status !== 0) throw new Error(`git ls-files failed in ${root}: ${listed.stderr}`);
  const configs = listed.stdout.split("\n").filter((l) => l !== "");
  const base = join(root, "tsconfig.test.json");
  const plain = configs.filter((c) => isPlain(root, c, base));
  return { plain, own: configs.filter((c) => !plain.includes(c)) };
}

/** The tsconfig is exactly the shared one: extends tsconfig.test.json, includes its directory, nothing else. */
function isPlain(root, config, base) {
  let json;
  try {
    json = JSON.parse(readFileSync(join(root, config), "utf8"));
  } catch {
    return false; // comments or a syntax error: let tsc read it (and report it) on its own
  }
  const keys = Object.keys(json).sort().join(",");
  return (
    keys === "extends,include" &&
    resolve(root, dirname(config), json.extends) === base &&
    Array.isArray(json.include) &&
    json.include.length === 1 &&
    json.include[0] === "."
  );
}

/**
 * Writes the tsconfig of the plain test directories `plain` and returns its path: inside the
 * repository (under node_modules) so that type roots and node_modules resolve as from the test
 * directories themselves.
 */
export function writeTestProgram(root, plain) {
  const dir = join(root, "node_modules", ".cache", "palisade-test-program");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "tsconfig.json");
  const config = {
    extends: relative(dir, join(root, "tsconfig.test.json")),
    include: plain.map((c) => relative(dir, join(root, dirname(c)))),
  };
  const text = `${JSON.stringify(config, null, 2)}\n`;
  let old = "";
  try {
    old = readFileSync(file, "utf8");
  } catch {
    // not written yet
  }
  // make test runs the lint and the type-check side by side: a reader sees the old file or the new one.
  if (old !== text) {
    writeFileSync(`${file}.${String(process.pid)}`, text);
    renameSync(`${file}.${String(process.pid)}`, file);
  }
  return file;
}
