// The built `bin/palisade` of this checkout, run as a user runs it: tests that need a real
// Engine process skip with `built` false (no `make build` yet).
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

export const repo = join(import.meta.dirname, "..", "..", "..");
export const palisade = join(repo, "bin", "palisade");
export const built = existsSync(join(repo, "apps", "cli", "dist", "main.js"));

/** Runs `bin/palisade ARGS` in `cwd` with only PATH and `env`; never rejects. */
export function sh(
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(
      palisade,
      args,
      { cwd, env: { PATH: process.env.PATH ?? "", ...env }, timeout: 120_000 },
      (error, out, err) => {
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out, err });
      },
    );
  });
}
