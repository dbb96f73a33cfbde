/**
 * Taint through files: a call that ran and wrote a secret into a file (a write whose content
 * carries a secret value, a copy or redirect from a file known to hold one) makes that file
 * secret for the rest of the session (what then sends such a file out: file-carried.ts).
 */
import type { Subject } from "../normalize/subject.js";
import { isInside, normalizePath } from "../normalize/paths.js";
import { argumentValues } from "./attach.js";
import type { Label, ProvenanceView } from "./types.js";

const CARRYING_ROLES = new Set(["body", "command", "task"]);

/** Files a secret-carrying read path, or a path the view marks, would hand on. */
function secretOfPath(path: string, view: ProvenanceView, s: Subject): Label | undefined {
  for (const [f, l] of view.secretFiles()) if (isInside(path, f) || isInside(f, path)) return l;
  for (const [, l] of view.secrets()) {
    const loc = l.source.location;
    if (loc !== undefined && !/^[a-z][a-z0-9+.-]*:\/\//i.test(loc) && normalizePath(loc, s.ctx) === path) return l;
  }
  return undefined;
}

/** The secret a call carries into what it writes: in its content, or read from a secret file. */
function carried(s: Subject, view: ProvenanceView): Label | undefined {
  for (const v of argumentValues(s) ?? [])
    if (CARRYING_ROLES.has(v.role) && v.origins.has("secret"))
      return v.sources.find((x) => x.label.trust === "secret")?.label;
  // a file tool's content has no flow role: look for the secret values in its text
  const texts = s.views.map((v) => v.text.toLowerCase());
  for (const [secret, l] of view.secrets()) if (texts.some((t) => t.includes(secret))) return l;
  for (const p of s.paths) {
    if (p.op !== "read") continue;
    const l = secretOfPath(p.path, view, s);
    if (l !== undefined) return l;
  }
  return undefined;
}

/**
 * The files a call that ran wrote a secret into, each with a label saying which call wrote it:
 * the caller marks them (`ProvenanceIndex.markSecretFile`). Empty when the call wrote nothing or
 * carried no secret.
 */
export function secretWrites(s: Subject, view: ProvenanceView, callId?: string): { path: string; label: Label }[] {
  const writes = s.paths.filter((p) => p.op === "write");
  if (writes.length === 0) return [];
  const secret = carried(s, view);
  if (secret === undefined) return [];
  return writes.map((w) => ({
    path: w.path,
    label: {
      trust: "secret",
      source: {
        kind: "tool-result",
        tool: s.tool,
        ...(callId !== undefined ? { callId } : {}),
        location: w.path,
        ...(secret.source.at !== undefined ? { at: secret.source.at } : {}),
      },
    },
  }));
}
