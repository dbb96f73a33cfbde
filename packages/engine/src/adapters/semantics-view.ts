// A Shield ToolSpec as the Engine shows and uses it: names people know (kind `other` for tools
// of unknown kind, hosts for URL arguments) and whether the tool writes files.
import type { ToolSpec } from "@palisade/shield";
import type { ToolSemanticsView } from "../ports.js";

/** Tool kinds whose effect is a file on disk. */
const DISK_WRITING = new Set(["file-write", "file-delete", "file-move", "file-copy", "document-write"]);

export function semanticsView(spec: ToolSpec): ToolSemanticsView {
  const known = spec.source !== "none";
  const paths = known ? { ...spec.paths } : {};
  return {
    kind: spec.kind === "third-party" ? "other" : spec.kind,
    source: spec.source ?? "builtin",
    recipients: [...(spec.recipients ?? [])],
    hosts: [...(spec.urls ?? [])],
    paths,
    commands: [...(spec.commands ?? [])],
    outgoing: [...(spec.outgoing ?? [])],
    modelFacing: [...(spec.modelFacing ?? [])],
    ...(spec.method !== undefined ? { method: spec.method } : {}),
    writesFiles: DISK_WRITING.has(spec.kind) || Object.values(paths).some((op) => op === "write" || op === "delete"),
  };
}
