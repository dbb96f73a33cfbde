import { readdir } from "node:fs/promises";
import * as path from "node:path";

export type EntryType = "file" | "directory" | "symlink" | "other";

export interface WalkEntry {
  /** Absolute path. */
  absolute: string;
  /** Path relative to the directory the walk started in, with "/" separators. */
  relative: string;
  type: EntryType;
}

export interface WalkOptions {
  recursive: boolean;
  /** Directory names not descended into (still listed). */
  skipDirs?: ReadonlySet<string>;
  signal?: AbortSignal;
}

/** Directories that search_files and grep_files do not descend into. */
export const NOISY_DIRS: ReadonlySet<string> = new Set([".git", "node_modules"]);

/**
 * Yields the entries under `dir` in sorted, breadth-first order. Symlinks are reported as
 * such and never followed, so a walk cannot leave the directory it started in.
 */
export async function* walk(dir: string, options: WalkOptions): AsyncGenerator<WalkEntry> {
  const queue: string[] = [""];
  while (queue.length > 0) {
    options.signal?.throwIfAborted();
    const rel = queue.shift() ?? "";
    let dirents;
    try {
      dirents = await readdir(path.join(dir, rel), { withFileTypes: true });
    } catch {
      continue; // unreadable or vanished directory: skip it rather than fail the whole walk
    }
    dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const d of dirents) {
      const relative = rel === "" ? d.name : `${rel}/${d.name}`;
      const type: EntryType = d.isSymbolicLink()
        ? "symlink"
        : d.isDirectory()
          ? "directory"
          : d.isFile()
            ? "file"
            : "other";
      yield { absolute: path.join(dir, relative), relative, type };
      if (type === "directory" && options.recursive && !options.skipDirs?.has(d.name)) queue.push(relative);
    }
  }
}
