/**
 * A copy of workspace files to a server the user named (`rsync -av dist/ deploy@app.example.com:/srv/`,
 * `scp build.tgz ops@host:`): the deploy the user asked for, not an exfiltration. Only scp and
 * rsync with a `host:path` destination whose host the user's own messages hold, every source a
 * path inside the workspace (no glob, no `..` out of it), none of them a file, or a directory
 * holding a file, this session wrote a secret into. Anything else stays an upload.
 */
import type { SimpleCommand } from "../normalize/shell.js";
import type { Subject } from "../normalize/subject.js";
import { isInside, normalizePath } from "../normalize/paths.js";
import { provenanceView } from "../provenance/attach.js";

/** `user@host:path` or `host:path` → host, lower case; undefined for a local path or a URL. */
export function remoteHost(arg: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(arg)) return undefined;
  const m = /^(?:[^@/:\s]+@)?([a-z0-9.-]+|\[[0-9a-f:.]+\]):/i.exec(arg);
  return m?.[1]?.toLowerCase().replace(/^\[|\]$/g, "");
}

/** Options that only shape the copy (no program, config file, or value taking the next word). */
const PLAIN_OPTION =
  /^-[avzrPpqhnuCcl46Wt]+$|^--(archive|verbose|compress|recursive|progress|partial|human-readable|dry-run|checksum|times|perms|update|stats|itemize-changes|delete|delete-after|delete-excluded|mkpath|quiet|links|(exclude|include|chmod|chown)=[^\s]+)$/;

export function uploadToUserHost(s: Subject, c: SimpleCommand): boolean {
  if (c.name !== "scp" && c.name !== "rsync") return false;
  const view = provenanceView(s);
  if (view === undefined) return false;
  if (!c.args.every((a) => !a.startsWith("-") || PLAIN_OPTION.test(a))) return false;
  const operands = c.args.filter((a) => !a.startsWith("-"));
  const dest = operands.pop();
  const host = dest === undefined ? undefined : remoteHost(dest);
  if (host === undefined || operands.length === 0 || !view.fromUser(host)) return false;
  const { workspace } = s.ctx;
  const marked = [...view.secretFiles()].map(([p]) => p);
  return operands.every((src) => {
    if (/[*?[\]{}$`]/.test(src) || remoteHost(src) !== undefined) return false;
    const p = normalizePath(src, s.ctx).replace(/\/+$/, "");
    if (!isInside(p, workspace) || p === workspace) return false;
    return !marked.some((m) => m === p || m.startsWith(`${p}/`));
  });
}
