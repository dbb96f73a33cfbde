// Replaces directory `outdir` with `tmp` whole (a bundle and its records): a process starting
// meanwhile sees the old one or the new one, never half of each.
import { renameSync, rmSync } from "node:fs";

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
