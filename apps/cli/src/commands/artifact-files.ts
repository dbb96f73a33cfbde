// Writing artifacts into a directory the user chose: sanitized names, never overwriting.
import { mkdir, writeFile } from "node:fs/promises";
import { basename, extname, join } from "node:path";
import { CliError } from "../cli/errors.js";

/** A file name safe to create in a directory: no path parts, no control characters. */
function safeName(name: string, fallback: string): string {
  const printable = [...name.replace(/\\/g, "/")]
    .map((ch) => (ch.charCodeAt(0) < 32 || ch.charCodeAt(0) === 127 ? "_" : ch))
    .join("");
  const base = basename(printable).replace(/^\.+/, "");
  return base === "" ? fallback : base.slice(0, 200);
}

/** Creates DIR if needed; errors say which directory and how to fix it. */
export async function ensureOutDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === "EACCES" || code === "EPERM"
        ? "permission denied"
        : code === "EEXIST" || code === "ENOTDIR"
          ? "a file is in the way"
          : (err as Error).message;
    throw new CliError(`cannot create the output directory ${dir}: ${why}`, {
      hint: "pass --out with a directory you can write to",
    });
  }
}

/** Writes `data` as `dir/filename` (or `name-1.ext`, ... when taken); returns the path. */
export async function saveInto(dir: string, filename: string, fallback: string, data: Uint8Array): Promise<string> {
  await ensureOutDir(dir);
  const name = safeName(filename, fallback);
  const ext = extname(name);
  const stem = name.slice(0, name.length - ext.length);
  for (let i = 0; ; i++) {
    const path = join(dir, i === 0 ? name : `${stem}-${i}${ext}`);
    try {
      await writeFile(path, data, { flag: "wx" });
      return path;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "EEXIST") continue;
      if (code === "EACCES" || code === "EPERM")
        throw new CliError(`cannot write ${path}: permission denied`, {
          hint: "pass --out with a directory you can write to",
        });
      throw err;
    }
  }
}

export async function collect(chunks: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const c of chunks) parts.push(c);
  return Buffer.concat(parts);
}
