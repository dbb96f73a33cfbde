// What a file write would change, shown to the person approving or watching it: a unified diff
// against the file's current content, or the first lines of a new file. Only regular files whose
// real path is inside the session's workspace are read, and never more than MAX_READ bytes.
import { lstat, open, realpath } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { createTwoFilesPatch } from "diff";
import { visible } from "../adapters/shield.js";
import type { ToolSpec } from "../ports.js";

const MAX_READ = 256 * 1024;
/** Lines of a preview sent to clients; the rest is counted. */
const MAX_LINES = 400;

function inside(root: string, p: string): boolean {
  const r = relative(root, p);
  return r === "" || (!r.startsWith(`..${sep}`) && r !== ".." && !isAbsolute(r));
}

function bounded(lines: string[]): string {
  if (lines.length <= MAX_LINES) return lines.join("\n");
  return [...lines.slice(0, MAX_LINES), `… ${lines.length - MAX_LINES} more lines`].join("\n");
}

/** The argument names a tool's declared semantics give for the written path and its content. */
function writeArgs(tool: ToolSpec): { path: string; content: string } | undefined {
  const s = tool.semantics;
  if (s?.["kind"] !== "file-write") return undefined;
  const paths = s["paths"];
  const path =
    paths && typeof paths === "object" && !Array.isArray(paths)
      ? Object.entries(paths as Record<string, unknown>).find(([, op]) => op === "write")?.[0]
      : undefined;
  const content = Array.isArray(s["content"])
    ? s["content"].find((c): c is string => typeof c === "string")
    : typeof s["content"] === "string"
      ? s["content"]
      : undefined;
  return path && content ? { path, content } : undefined;
}

async function readCurrent(file: string, workspaceReal: string): Promise<string | null | undefined> {
  let st;
  try {
    st = await lstat(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") return undefined;
    // A new file: its directory (the part that exists) must be inside the workspace.
    let dir = dirname(file);
    for (;;) {
      try {
        return inside(workspaceReal, await realpath(dir)) ? null : undefined;
      } catch {
        if (dirname(dir) === dir) return undefined;
        dir = dirname(dir);
      }
    }
  }
  if (!st.isFile() && !st.isSymbolicLink()) return undefined;
  const real = await realpath(file);
  if (!inside(workspaceReal, real)) return undefined;
  const fh = await open(real, "r");
  try {
    const s = await fh.stat();
    if (!s.isFile() || s.size > MAX_READ) return undefined;
    const buf = await fh.readFile();
    return buf.includes(0) ? undefined : buf.toString("utf8");
  } finally {
    await fh.close();
  }
}

/** The preview of a call, or "" when the tool writes no file or the file cannot be shown. */
export async function writePreview(tool: ToolSpec, args: unknown, workspace: string): Promise<string> {
  const names = writeArgs(tool);
  if (!names || !args || typeof args !== "object") return "";
  const a = args as Record<string, unknown>;
  const path = a[names.path];
  const content = a[names.content];
  if (typeof path !== "string" || typeof content !== "string" || workspace === "") return "";
  try {
    const workspaceReal = await realpath(workspace);
    const file = resolve(workspaceReal, path);
    const current = await readCurrent(file, workspaceReal);
    if (current === undefined) return "";
    const shown = relative(workspaceReal, file) || path;
    if (current === null) {
      const lines = content.split("\n");
      if (lines.at(-1) === "") lines.pop();
      return visible(
        bounded([
          `new file ${shown} (${lines.length} ${lines.length === 1 ? "line" : "lines"})`,
          ...lines.map((l) => `+${l}`),
        ]),
      );
    }
    const next = a["append"] === true ? current + content : content;
    if (next === current) return visible(`${shown}: no change`);
    const patch = createTwoFilesPatch(join("a", shown), join("b", shown), current, next, undefined, undefined, {
      context: 3,
    });
    // The patch starts with an "=====" line; the ---/+++ header follows.
    return visible(
      bounded(
        patch
          .split("\n")
          .filter((l, i) => !(i === 0 && l.startsWith("=")))
          .filter((l, i, all) => !(i === all.length - 1 && l === "")),
      ),
    );
  } catch {
    return "";
  }
}
