import { appendFile, cp, lstat, mkdir, rename, rm, stat, writeFile } from "node:fs/promises";
import * as path from "node:path";
import type { ToolContext, ToolDefinition } from "@palisade/capability-sdk";
import { ToolError } from "@palisade/capability-sdk";
import { Workspace, errText, isNotFound } from "../workspace.js";
import type { ResolvedPath } from "../workspace.js";

export const writeFileTool: ToolDefinition = {
  name: "write_file",
  description:
    "Write text to a file in the workspace, creating it and missing parent directories. Replaces the file's content unless `append` is true.",
  inputSchema: {
    type: "object",
    properties: {
      path: { type: "string", minLength: 1, description: "File path relative to the workspace." },
      content: { type: "string", description: "Text to write (UTF-8)." },
      append: { type: "boolean", description: "Add to the end of the file instead of replacing it (default false)." },
    },
    required: ["path", "content"],
    additionalProperties: false,
  },
  async handler(args: { path: string; content: string; append?: boolean }, ctx: ToolContext) {
    const ws = await Workspace.fromConfig(ctx.config);
    const target = await ws.resolve(args.path);
    const existing = await lstat(target.absolute).catch(() => undefined);
    if (existing?.isDirectory())
      throw new ToolError(`"${args.path}" is a directory; give a file path`, { code: "is_directory" });
    await io(`write "${args.path}"`, async () => {
      await mkdir(path.dirname(target.absolute), { recursive: true });
      if (args.append) await appendFile(target.absolute, args.content, "utf8");
      else await writeFile(target.absolute, args.content, "utf8");
    });
    return {
      path: target.relative,
      bytes_written: Buffer.byteLength(args.content),
      created: existing === undefined,
      appended: args.append ?? false,
    };
  },
};

export const deleteFile: ToolDefinition = {
  name: "delete_file",
  description:
    "Delete a file, symlink or (with `recursive: true`) a directory and everything in it, inside the workspace. The workspace root itself cannot be deleted.",
  inputSchema: {
    type: "object",
    properties: {
      path: { type: "string", minLength: 1, description: "Path relative to the workspace." },
      recursive: { type: "boolean", description: "Required to delete a non-empty directory (default false)." },
    },
    required: ["path"],
    additionalProperties: false,
  },
  async handler(args: { path: string; recursive?: boolean }, ctx: ToolContext) {
    const ws = await Workspace.fromConfig(ctx.config);
    const target = await ws.resolve(args.path, { noFollowLast: true });
    if (target.absolute === ws.root)
      throw new ToolError("refused: the workspace root itself cannot be deleted; delete the entries inside it", {
        code: "outside_workspace",
      });
    const info = await lstatOrThrow(target, args.path);
    if (info.isDirectory() && !args.recursive) {
      throw new ToolError(`"${args.path}" is a directory; pass recursive: true to delete it and everything in it`, {
        code: "is_directory",
      });
    }
    // rm never follows symlinks, neither the target nor those inside a deleted tree.
    await io(`delete "${args.path}"`, () => rm(target.absolute, { recursive: info.isDirectory(), force: false }));
    return {
      path: target.relative,
      deleted: true,
      type: info.isDirectory() ? "directory" : info.isSymbolicLink() ? "symlink" : "file",
    };
  },
};

export const moveFile: ToolDefinition = {
  name: "move_file",
  description:
    "Move or rename a file or directory inside the workspace. If `destination` is an existing directory the source moves into it; an existing file is never overwritten.",
  inputSchema: pairSchema("move"),
  async handler(args: { source: string; destination: string }, ctx: ToolContext) {
    const { ws, source, destination } = await resolvePair(ctx, args, true);
    if (source.absolute === ws.root)
      throw new ToolError("refused: the workspace root itself cannot be moved", { code: "outside_workspace" });
    await io(`move "${args.source}" to "${args.destination}"`, async () => {
      await mkdir(path.dirname(destination.absolute), { recursive: true });
      await rename(source.absolute, destination.absolute);
    });
    return { source: source.relative, destination: destination.relative, moved: true };
  },
};

export const copyFile: ToolDefinition = {
  name: "copy_file",
  description:
    "Copy a file or directory (recursively) inside the workspace. If `destination` is an existing directory the copy goes into it; an existing file is never overwritten. Symlinks are copied as links.",
  inputSchema: pairSchema("copy"),
  async handler(args: { source: string; destination: string }, ctx: ToolContext) {
    const { source, destination } = await resolvePair(ctx, args, false);
    await io(`copy "${args.source}" to "${args.destination}"`, () =>
      cp(source.absolute, destination.absolute, {
        recursive: true,
        errorOnExist: true,
        force: false,
        verbatimSymlinks: true,
      }),
    );
    return { source: source.relative, destination: destination.relative, copied: true };
  },
};

function pairSchema(verb: string) {
  return {
    type: "object",
    properties: {
      source: { type: "string", minLength: 1, description: `Path to ${verb}, relative to the workspace.` },
      destination: {
        type: "string",
        minLength: 1,
        description: "New path (or an existing directory to put it in), relative to the workspace.",
      },
    },
    required: ["source", "destination"],
    additionalProperties: false,
  };
}

async function resolvePair(ctx: ToolContext, args: { source: string; destination: string }, move: boolean) {
  const ws = await Workspace.fromConfig(ctx.config);
  // A move acts on a symlink itself; a copy reads through it, so its target must be inside.
  const source = await ws.resolve(args.source, { noFollowLast: move });
  await lstatOrThrow(source, args.source);
  let destination = await ws.resolve(args.destination);
  const destInfo = await stat(destination.absolute).catch(() => undefined);
  if (destInfo?.isDirectory())
    destination = await ws.resolve(path.join(destination.relative, path.basename(source.absolute)));
  if (await lstat(destination.absolute).catch(() => undefined)) {
    throw new ToolError(`"${destination.relative}" already exists; delete it first or choose another destination`, {
      code: "exists",
    });
  }
  const inside = path.relative(source.absolute, destination.absolute);
  if (inside === "" || (!inside.startsWith("..") && !path.isAbsolute(inside))) {
    throw new ToolError(`cannot ${move ? "move" : "copy"} "${args.source}" into itself ("${destination.relative}")`, {
      code: "invalid_path",
    });
  }
  return { ws, source, destination };
}

async function lstatOrThrow(target: ResolvedPath, requested: string) {
  try {
    return await lstat(target.absolute);
  } catch (err) {
    if (isNotFound(err)) throw new ToolError(`"${requested}" does not exist in the workspace`, { code: "not_found" });
    throw new ToolError(`cannot read "${requested}": ${errText(err)}`, { code: "io_error" });
  }
}

async function io<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw new ToolError(`cannot ${what}: ${errText(err)}`, { code: "io_error" });
  }
}
