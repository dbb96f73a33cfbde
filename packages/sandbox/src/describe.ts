import type { Mount } from "./plan.js";

/** One entry of a sandbox's view, as `capability list --verbose` and docs/security.md show it. */
export interface ViewEntry {
  path: string;
  /**
   * `read-only`/`read-write`: the host's path, bound; `private`: a file system of the sandbox's
   * own (empty at start, gone after); `link`: a symbolic link (`target`); `hidden`: covered by an
   * empty read-only file or directory inside a bind.
   */
  access: "read-only" | "read-write" | "private" | "link" | "hidden";
  target?: string;
}

/** The view a list of mounts makes, in mount order (pure). */
export function describeView(mounts: readonly Mount[]): ViewEntry[] {
  return mounts.map((m): ViewEntry => {
    switch (m.op) {
      case "ro-bind":
        return { path: m.dest, access: "read-only" };
      case "bind":
        return { path: m.dest, access: "read-write" };
      case "tmpfs":
        return { path: m.dest, access: m.readOnly ? "hidden" : "private" };
      case "hide-file":
        return { path: m.dest, access: "hidden" };
      case "symlink":
        return { path: m.dest, access: "link", target: m.target };
      case "dev":
      case "proc":
        return { path: m.dest, access: "private" };
    }
  });
}
