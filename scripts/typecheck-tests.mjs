#!/usr/bin/env node
// Type-checks the test code (`make typecheck-tests`; vitest itself only strips types). Every test
// directory has a tsconfig.json; those that are the plain one over tsconfig.test.json
// (`{"extends": "<root>/tsconfig.test.json", "include": ["."]}`) are checked together as one
// program, so the package sources they import (the "source" condition) are checked once rather
// than once per directory. A directory whose tsconfig says anything else is checked on its own.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
const base = join(root, "tsconfig.test.json");

const listed = spawnSync("git", ["ls-files", "*/test/tsconfig.json", "test/*/tsconfig.json"], {
  cwd: root,
  encoding: "utf8",
});
if (listed.status !== 0) {
  console.error(`typecheck-tests: git ls-files failed in ${root}: ${listed.stderr}`);
  process.exit(1);
}
const configs = listed.stdout.split("\n").filter((l) => l !== "");

/** The tsconfig is exactly the shared one: extends tsconfig.test.json, includes its directory, nothing else. */
function isPlain(config) {
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

const plain = configs.filter(isPlain);
const own = configs.filter((c) => !plain.includes(c));

const check = (project, what) => {
  const res = spawnSync(process.execPath, [tsc, "-p", project], { cwd: root, stdio: "inherit" });
  if (res.status !== 0) {
    console.error(`type errors in ${what}`);
    return false;
  }
  return true;
};

let ok = true;
if (plain.length > 0) {
  // Inside the repository (under node_modules) so that type roots and node_modules resolve as
  // from the test directories themselves.
  const dir = join(root, "node_modules", ".cache", "palisade-typecheck-tests");
  mkdirSync(dir, { recursive: true });
  const combined = join(dir, "tsconfig.json");
  writeFileSync(
    combined,
    `${JSON.stringify(
      {
        extends: relative(dir, base),
        include: plain.map((c) => relative(dir, join(root, dirname(c)))),
      },
      null,
      2,
    )}\n`,
  );
  ok = check(combined, `the test code of ${String(plain.length)} directories (the files named above)`) && ok;
}
for (const c of own) ok = check(c, dirname(c)) && ok;
process.exit(ok ? 0 : 1);
