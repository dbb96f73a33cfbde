#!/usr/bin/env node
// Type-checks the test code (`make typecheck-tests`; vitest itself only strips types): the plain
// test directories together as one program (scripts/test-program.mjs), each other one on its own.
import { spawnSync } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { testConfigs, writeTestProgram } from "./test-program.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const tsc = join(root, "node_modules", "typescript", "bin", "tsc");

let configs;
try {
  configs = testConfigs(root);
} catch (err) {
  console.error(`typecheck-tests: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
const { plain, own } = configs;

const check = (project, what) => {
  const res = spawnSync(process.execPath, [tsc, "-p", project], { cwd: root, stdio: "inherit" });
  if (res.status !== 0) {
    console.error(`type errors in ${what}`);
    return false;
  }
  return true;
};

let ok = true;
if (plain.length > 0)
  ok =
    check(
      writeTestProgram(root, plain),
      `the test code of ${String(plain.length)} directories (the files named above)`,
    ) && ok;
for (const c of own) ok = check(c, dirname(c)) && ok;
process.exit(ok ? 0 : 1);
