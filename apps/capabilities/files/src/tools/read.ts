import { lstat, readlink, stat } from "node:fs/promises";
import type { ToolContext, ToolDefinition } from "@palisade/capability-sdk";
import { ToolError } from "@palisade/capability-sdk";
import { DEFAULT_PAGE_LINES, readTextFile } from "../text.js";
import { walk } from "../walk.js";
import type { EntryType } from "../walk.js";
import { Workspace, errText, isNotFound } from "../workspace.js";

/** Most entries one list_directory call returns. */
export const MAX_LIST_ENTRIES = 2000;

export const readFile: ToolDefinition = {
  name: "read_file",
  description:
    "Read a text file in the workspace. Returns up to `limit` lines (default 2000, at most 256 KiB) starting at line `offset` (1-based); " +
    "when more remain, `next_offset` says where to continue. Binary files are reported as binary with their size, not shown.",
  inputSchema: {
    type: "object",
    properties: {
      path: { type: "string", description: "File path relative to the workspace." },
      offset: { type: "integer", minimum: 1, description: "First line to return (1-based, default 1)." },
      limit: { type: "integer", minimum: 1, maximum: 10000, description: "Most lines to return (default 2000)." },
    },
    required: ["path"],
    additionalProperties: false,
  },
  async handler(args: { path: string; offset?: number; limit?: number }, ctx: ToolContext) {
    const ws = await Workspace.fromConfig(ctx.config);
    const target = await ws.resolve(args.path);
    const info = await statOrThrow(target.absolute, args.path);
    if (info.isDirectory())
      throw new ToolError(`"${args.path}" is a directory; use list_directory to see its entries`, {
        code: "is_directory",
      });
    if (!info.isFile()) throw new ToolError(`"${args.path}" is not a regular file`, { code: "not_a_file" });
    const page = await readTextFile(
      target.absolute,
      info,
      args.offset ?? 1,
      args.limit ?? DEFAULT_PAGE_LINES,
      ctx.signal,
      ws.localDevice,
    );
    if (page === "binary") {
      return {
        path: target.relative,
        binary: true,
        size_bytes: info.size,
        message: `binary file (${info.size} bytes); its content is not shown as text`,
      };
    }
    const result: Record<string, unknown> = {
      path: target.relative,
      size_bytes: info.size,
      offset: page.offset,
      lines_returned: page.linesReturned,
      content: page.content,
    };
    if (page.totalLines !== undefined) result.total_lines = page.totalLines;
    if (page.nextOffset !== undefined) {
      result.next_offset = page.nextOffset;
      result.note = `more lines follow: call read_file again with offset ${page.nextOffset}`;
    }
    if (page.longLinesCut > 0) result.long_lines_cut = page.longLinesCut;
    return result;
  },
};

export const listDirectory: ToolDefinition = {
  name: "list_directory",
  description:
    "List the entries of a workspace directory (default: the workspace root) with their type and size. " +
    "`recursive: true` lists the whole tree (at most 2000 entries). Symlinks are listed, not followed.",
  inputSchema: {
    type: "object",
    properties: {
      path: { type: "string", description: 'Directory relative to the workspace (default ".").' },
      recursive: { type: "boolean", description: "List subdirectories too (default false)." },
    },
    additionalProperties: false,
  },
  async handler(args: { path?: string; recursive?: boolean }, ctx: ToolContext) {
    const ws = await Workspace.fromConfig(ctx.config);
    const dir = await ws.resolve(args.path ?? ".");
    const info = await statOrThrow(dir.absolute, args.path ?? ".");
    if (!info.isDirectory())
      throw new ToolError(`"${args.path ?? "."}" is not a directory; use read_file for files`, {
        code: "not_a_directory",
      });
    const entries: { path: string; type: EntryType; size_bytes?: number; target?: string }[] = [];
    let truncated = false;
    for await (const e of walk(dir.absolute, { recursive: args.recursive ?? false, signal: ctx.signal })) {
      if (entries.length >= MAX_LIST_ENTRIES) {
        truncated = true;
        break;
      }
      const entry: (typeof entries)[number] = { path: e.relative, type: e.type };
      if (e.type === "file") entry.size_bytes = (await lstat(e.absolute).catch(() => undefined))?.size ?? 0;
      if (e.type === "symlink") entry.target = await readlink(e.absolute).catch(() => "?");
      entries.push(entry);
    }
    const result: Record<string, unknown> = { path: dir.relative, entries };
    if (truncated) {
      result.truncated = true;
      result.note = `listing stopped at ${MAX_LIST_ENTRIES} entries; list a subdirectory or use search_files with a pattern`;
    }
    return result;
  },
};

export async function statOrThrow(absolute: string, requested: string) {
  try {
    return await stat(absolute);
  } catch (err) {
    if (isNotFound(err)) throw new ToolError(`"${requested}" does not exist in the workspace`, { code: "not_found" });
    throw new ToolError(`cannot read "${requested}": ${errText(err)}`, { code: "io_error" });
  }
}
