// What both bundle scripts (scripts/bundle.mjs, apps/cli/scripts/bundle-client.mjs) do with a
// bundle once esbuild built it in `tmp`: record its inputs for freshBundleEntry
// (@palisade/agent/bundle), then swap it in whole.
import { renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** This checkout's files are recorded one by one, a third-party package by its package.json (npm replaces a package whole). */
function packageManifest(file) {
  const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(file);
  return m ? `${m[1]}/package.json` : file;
}

/**
 * Writes `<tmp>/inputs.json`: every input of esbuild's `metafile` (not a plugin's stand-in, whose
 * path holds a `:`), the calling script `scriptUrl` and esbuild itself, with mtime and size.
 * Returns how many inputs it recorded.
 */
export function recordInputs(tmp, repo, entry, metafile, scriptUrl) {
  const inputs = [
    ...Object.keys(metafile.inputs).filter((f) => !f.includes(":")),
    relative(repo, fileURLToPath(scriptUrl)),
    "node_modules/esbuild/package.json",
  ];
  const files = [...new Set(inputs.map((f) => packageManifest(f.split(sep).join("/"))))].sort();
  const record = {
    entry,
    inputs: files.map((f) => {
      const st = statSync(join(repo, f));
      return [f, st.mtimeMs, st.size];
    }),
  };
  writeFileSync(join(tmp, "inputs.json"), `${JSON.stringify(record)}\n`);
  return files.length;
}

/** Replaces directory `outdir` with `tmp` whole: a process starting meanwhile sees the old one or the new one. */
export function swapDir(tmp, outdir) {
  const old = `${outdir}.old-${process.pid}`;
  try {
    renameSync(outdir, old);
  } catch {
    // nothing there yet
  }
  renameSync(tmp, outdir);
  rmSync(old, { recursive: true, force: true });
}
