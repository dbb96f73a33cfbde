// What the tmux chat e2e files (e2e-tmux*.test.ts) share: where the repository is, and whether
// tmux can run here.
import { execFileSync } from "node:child_process";
import { join } from "node:path";

/** The repository's root (this file is apps/cli/test/tmux.ts). */
export const repoRoot = join(import.meta.dirname, "..", "..", "..");

/** tmux is installed (the e2e files skip without it; `make test` installs it where apt exists). */
export const hasTmux = (() => {
  try {
    execFileSync("tmux", ["-V"]);
    return true;
  } catch {
    return false;
  }
})();
