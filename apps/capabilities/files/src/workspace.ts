import { lstat, readlink, realpath, stat, statfs } from "node:fs/promises";
import * as path from "node:path";
import { ToolError } from "@palisade/capability-sdk";

/** Environment variable naming the default workspace when `config_json` has none. */
export const WORKSPACE_ENV = "PALISADE_WORKSPACE";

/**
 * Linux filesystem types (statfs f_type, from linux/magic.h) that live in the kernel on local
 * storage or in memory: a call on them waits at most for a disk, never for a server or a FUSE
 * process. Not listed (so read through the thread pool): NFS, CIFS/SMB, 9p, Ceph, FUSE (sshfs,
 * rclone, ...) and anything else.
 */
const LOCAL_FILESYSTEMS: ReadonlySet<number> = new Set([
  0xef53, // ext2, ext3, ext4
  0x58465342, // xfs
  0x9123683e, // btrfs
  0x01021994, // tmpfs
  0x858458f6, // ramfs
  0x2fc12fc1, // zfs
  0xf2f52010, // f2fs
  0xca451a4e, // bcachefs
  0x794c7630, // overlayfs (containers)
]);

/** A path the model asked for, checked to stay inside the workspace. */
export interface ResolvedPath {
  /** Absolute path inside the workspace (symlinks in parent directories resolved). */
  absolute: string;
  /** The same path relative to the workspace root, `.` for the root itself. */
  relative: string;
}

export interface ResolveOptions {
  /**
   * Check the path itself but do not follow a symlink in its last component: for deleting or
   * moving a link, which acts on the link and never on its target.
   */
  noFollowLast?: boolean;
}

/**
 * The directory a session may act in. Every path goes through `resolve`, which refuses `..`
 * that climbs out, absolute paths elsewhere, and symlinks (anywhere in the path) whose target
 * lies outside the root. The root itself is stored with its symlinks resolved.
 */
export class Workspace {
  /**
   * Workspaces opened before, by the directory as configured: every call names its workspace,
   * and resolving and checking it again (a realpath and a stat) cost more than reading a small
   * file. Safe to keep: every path is resolved to its real path and checked against this root,
   * so a root replaced since (by a symlink elsewhere) makes calls fail closed; a root deleted
   * since is reported as when it is opened (see realExisting).
   */
  private static readonly opened = new Map<string, Workspace>();
  private static readonly MAX_OPENED = 64;

  private constructor(
    readonly root: string,
    private readonly configured: string,
    /**
     * The device of the root when its filesystem is a local, in-kernel one (see LOCAL_FILESYSTEMS):
     * a regular file on it can be read synchronously, which costs far less than the thread-pool
     * round trips of fs/promises, and cannot hang the way a network or FUSE filesystem can.
     */
    readonly localDevice: number | undefined,
  ) {
    this.prefix = root.endsWith(path.sep) ? root : root + path.sep;
  }

  /** The root with a trailing separator (the filesystem root "/" already has one). */
  private readonly prefix: string;

  /** Opens `dir` (absolute, an existing directory). */
  static async open(dir: string): Promise<Workspace> {
    if (!path.isAbsolute(dir)) {
      throw new ToolError(
        `workspace "${dir}" is not an absolute path; the orchestrator must pass config_json {"workspace": "/abs/dir"}`,
        { code: "no_workspace" },
      );
    }
    const known = Workspace.opened.get(dir);
    if (known) return known;
    let real: string;
    let localDevice: number | undefined;
    try {
      real = await realpath(dir);
      const [info, fs] = await Promise.all([stat(real), process.platform === "linux" ? statfs(real) : undefined]);
      if (!info.isDirectory()) throw new Error("not a directory");
      if (fs && LOCAL_FILESYSTEMS.has(fs.type)) localDevice = info.dev;
    } catch (err) {
      throw missingWorkspace(dir, err);
    }
    const ws = new Workspace(real, dir, localDevice);
    if (Workspace.opened.size >= Workspace.MAX_OPENED) Workspace.opened.clear();
    Workspace.opened.set(dir, ws);
    return ws;
  }

  /** The workspace named by `config.workspace`, else by env PALISADE_WORKSPACE. */
  static async fromConfig(config: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): Promise<Workspace> {
    const configured = config.workspace;
    if (configured !== undefined && typeof configured !== "string") {
      throw new ToolError(`config_json "workspace" must be a string path, got ${typeof configured}`, {
        code: "no_workspace",
      });
    }
    const dir = configured || env[WORKSPACE_ENV];
    if (!dir) {
      throw new ToolError(
        `no workspace configured: the orchestrator must pass config_json {"workspace": "/abs/dir"} or set ${WORKSPACE_ENV}`,
        { code: "no_workspace" },
      );
    }
    return Workspace.open(dir);
  }

  /**
   * True when `absolute` (absolute and normalized, as path.resolve and realpath return it) is the
   * root or below it: equal to the root, or starting with the root and a separator.
   */
  contains(absolute: string): boolean {
    return absolute === this.root || absolute.startsWith(this.prefix);
  }

  /** `absolute` (inside the root, see contains) relative to the root, `.` for the root. */
  relative(absolute: string): string {
    return absolute === this.root ? "." : absolute.slice(this.prefix.length);
  }

  /** Checks `requested` (relative to the root, or absolute inside it); throws ToolError if it leaves the workspace. */
  async resolve(requested: string, options: ResolveOptions = {}): Promise<ResolvedPath> {
    if (typeof requested !== "string" || requested.includes("\0")) {
      throw new ToolError(`invalid path ${JSON.stringify(requested)}`, { code: "invalid_path" });
    }
    const lexical = path.resolve(this.root, requested === "" ? "." : requested);
    if (!this.contains(lexical)) {
      const why = path.isAbsolute(requested)
        ? "is an absolute path outside the workspace"
        : "climbs out of the workspace with ..";
      throw this.escape(requested, why);
    }
    const real =
      options.noFollowLast && lexical !== this.root
        ? path.join(await this.realExisting(path.dirname(lexical), requested), path.basename(lexical))
        : await this.realExisting(lexical, requested);
    if (!this.contains(real)) throw this.escape(requested, `goes through a symlink to ${real}, outside the workspace`);
    return { absolute: real, relative: this.relative(real) };
  }

  /**
   * Resolves symlinks in `absolute` as far as the path exists; the missing tail (a file about
   * to be created) is appended unchanged. A dangling symlink is followed to its target.
   */
  private async realExisting(absolute: string, requested: string, depth = 0): Promise<string> {
    try {
      return await realpath(absolute);
    } catch (err) {
      if (!isNotFound(err))
        throw new ToolError(`cannot resolve "${requested}": ${errText(err)}`, { code: "invalid_path" });
    }
    if (absolute === this.root) {
      // The root itself is gone (deleted since it was opened): never recreate it by writing.
      Workspace.opened.delete(this.configured);
      throw missingWorkspace(this.configured, new Error("it no longer exists"));
    }
    const link = await lstat(absolute).catch(() => undefined);
    if (link?.isSymbolicLink()) {
      // A dangling link: writing through it would create its target, so check where it points.
      if (depth > 32)
        throw new ToolError(`"${requested}": too many levels of symbolic links`, { code: "invalid_path" });
      const target = path.resolve(path.dirname(absolute), await readlink(absolute));
      return this.realExisting(target, requested, depth + 1);
    }
    const parent = path.dirname(absolute);
    if (parent === absolute) return absolute;
    return path.join(await this.realExisting(parent, requested, depth), path.basename(absolute));
  }

  private escape(requested: string, why: string): ToolError {
    return new ToolError(
      `refused: path "${requested}" ${why}; only paths inside the workspace ${this.root} are allowed (use a path relative to it)`,
      { code: "outside_workspace" },
    );
  }
}

function missingWorkspace(dir: string, err: unknown): ToolError {
  return new ToolError(
    `workspace "${dir}" is not an existing directory (${errText(err)}); create it or pass another one`,
    { code: "no_workspace" },
  );
}

export function isNotFound(err: unknown): boolean {
  return (
    (err as NodeJS.ErrnoException | undefined)?.code === "ENOENT" ||
    (err as NodeJS.ErrnoException | undefined)?.code === "ENOTDIR"
  );
}

export function errText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
