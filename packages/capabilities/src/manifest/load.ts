import { readFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { ValidationError } from "../errors.js";
import { parseManifest } from "./validate.js";
import type { Manifest } from "./types.js";

/**
 * Reads `path` (a manifest file, or a directory holding `manifest.yaml`), validates it and
 * attaches the `prompt.md` found beside it. Throws ValidationError for any problem.
 */
export async function loadManifest(path: string): Promise<Manifest> {
  let file = resolve(path);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EISDIR") {
      file = join(file, "manifest.yaml");
      return loadManifest(file);
    }
    const reason =
      (err as NodeJS.ErrnoException).code === "ENOENT"
        ? "file not found: check the `manifest` path in the capability config"
        : String(err);
    throw new ValidationError("invalid_manifest", `manifest ${file}`, [{ file, path: "", message: reason }]);
  }
  const manifest = parseManifest(text, file);
  const prompt = await readFile(join(dirname(file), "prompt.md"), "utf8").catch(() => undefined);
  return prompt === undefined || prompt.trim() === "" ? manifest : { ...manifest, prompt: prompt.trim() };
}
