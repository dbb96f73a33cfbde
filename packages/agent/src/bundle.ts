// `make build` bundles a process's code into one file with esbuild (the CLI's client commands, the
// background Engine, the Agent): a process then loads one file instead of hundreds of modules.
// `npx tsc -b` alone rebuilds dist/ without the bundles: a bundle is used only while every file it
// was made from is unchanged, so nothing ever runs stale code.
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/**
 * <bundle dir>/inputs.json: the files the bundle was made from, as they were then (this checkout's
 * one by one; a third-party package by its package.json, which npm rewrites with the package).
 */
export interface BundleInputs {
  /** The entry module, relative to the bundle directory. */
  entry: string;
  /** [path relative to the repository root, mtime in ms, size in bytes]. */
  inputs: [string, number, number][];
}

export const BUNDLE_INPUTS_FILE = "inputs.json";

/**
 * The bundle's entry file when every input is unchanged (same mtime and size), else undefined.
 * Costs one small read and a stat per input (~80-300, about a millisecond).
 */
export function freshBundleEntry(bundleDir: string, repoRoot: string): string | undefined {
  let recorded: BundleInputs;
  try {
    recorded = JSON.parse(readFileSync(join(bundleDir, BUNDLE_INPUTS_FILE), "utf8")) as BundleInputs;
  } catch {
    return undefined;
  }
  if (typeof recorded.entry !== "string" || !Array.isArray(recorded.inputs) || recorded.inputs.length === 0)
    return undefined;
  for (const [file, mtimeMs, size] of recorded.inputs) {
    const st = statSync(join(repoRoot, file), { throwIfNoEntry: false });
    if (!st || st.mtimeMs !== mtimeMs || st.size !== size) return undefined;
  }
  return join(bundleDir, recorded.entry);
}
