/**
 * The trust of what a tool returned, from the tool's semantics (declared or inferred), never from
 * its name: local file reads inside the workspace are `workspace`; everything fetched, received
 * or produced by a third-party server is `untrusted` unless its configuration says otherwise;
 * a read the credentials detectors recognize (a key file, `.env`, a cloud credential) is
 * `secret` as a whole, and secret values inside any content are `secret` wherever they are.
 */
import { isInside } from "../normalize/paths.js";
import type { ToolSpec } from "../tools.js";
import type { Trust } from "./types.js";

export interface ResultOrigin {
  spec: ToolSpec;
  /** The tool is served by a capability or MCP server that is not Palisade's own. */
  thirdParty: boolean;
  /** `results_trust` from the tool's configuration, if it sets one. */
  declared?: Trust;
  /** Normalized paths the call read (file tools). */
  paths: readonly string[];
  workspace: string;
  /** The credentials detectors recognized a read path as a credential file. */
  credentialPath: boolean;
}

const LOCAL_READS = new Set<ToolSpec["kind"]>([
  "file-read",
  "document-read",
  "file-write",
  "file-copy",
  "file-move",
  "file-delete",
  "document-write",
]);

export function trustOfResult(o: ResultOrigin): Trust {
  if (o.credentialPath) return "secret";
  if (o.declared !== undefined) return o.declared;
  if (o.thirdParty) return "untrusted";
  if (LOCAL_READS.has(o.spec.kind) && o.paths.length > 0 && o.paths.every((p) => isInside(p, o.workspace)))
    return "workspace";
  if (o.spec.kind === "agent-control" || o.spec.kind === "load-tools") return "workspace";
  // shell output, HTTP bodies, mail, files outside the workspace, sub-agent results
  return "untrusted";
}
