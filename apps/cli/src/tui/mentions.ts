// `@file` mentions: a workspace file named in a message as @path is attached to it, so the
// model reads it without a tool call. Read here, at the chat's edge, from the workspace only
// (the real path must stay inside it), text files up to MAX_MENTION_BYTES each.
import { open, realpath } from "node:fs/promises";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { formatBytes } from "./components/format.js";

export const MAX_MENTION_BYTES = 256 * 1024;

/** `@path` tokens: after a space or at the start, a relative path of the usual file-name characters. */
const MENTION = /(?:^|\s)@((?:\.{0,2}\/)?[\w./-]*[\w-])/g;

export function mentionsIn(text: string): string[] {
  return [...new Set([...text.matchAll(MENTION)].map((m) => m[1] ?? "").filter(Boolean))];
}

export interface Attached {
  /** The message with the files after it. */
  text: string;
  /** One line per mention: attached (with its size) or why not. */
  notes: string[];
}

async function readMention(
  workspace: string,
  name: string,
  signal: AbortSignal,
): Promise<{ content: string } | { why: string }> {
  if (isAbsolute(name)) return { why: "only files of the workspace can be attached" };
  let real: string;
  let root: string;
  try {
    root = await realpath(workspace);
    real = await realpath(resolve(workspace, name));
  } catch {
    return { why: "no such file in the workspace" };
  }
  const rel = relative(root, real);
  if (rel === "" || rel.startsWith(`..${sep}`) || rel === ".." || isAbsolute(rel))
    return { why: "it is outside the workspace" };
  const file = await open(real, "r");
  try {
    const info = await file.stat();
    if (!info.isFile()) return { why: "it is not a file" };
    if (info.size > MAX_MENTION_BYTES)
      return {
        why: `it is ${formatBytes(info.size)}, over the ${formatBytes(MAX_MENTION_BYTES)} a mention attaches (ask the model to read it with its tools)`,
      };
    const bytes = await file.readFile({ signal });
    if (bytes.includes(0)) return { why: "it is not a text file" };
    return { content: bytes.toString("utf8") };
  } finally {
    await file.close();
  }
}

/** The message with every @mention that names a text file of the workspace attached after it. */
export async function attachMentions(text: string, workspace: string, signal: AbortSignal): Promise<Attached> {
  const notes: string[] = [];
  const parts: string[] = [];
  for (const name of mentionsIn(text)) {
    const r = await readMention(workspace, name, signal);
    if ("why" in r) {
      notes.push(`@${name} not attached: ${r.why}`);
      continue;
    }
    notes.push(`attached @${name} (${formatBytes(Buffer.byteLength(r.content))})`);
    parts.push(`<file path="${name}">\n${r.content}${r.content.endsWith("\n") ? "" : "\n"}</file>`);
  }
  return { text: parts.length ? `${text}\n\n${parts.join("\n\n")}` : text, notes };
}
