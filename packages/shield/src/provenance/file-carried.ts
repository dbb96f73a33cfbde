/**
 * Secrets that leave through files: a call that sends files out carries the secret files of the
 * session (marked by `secretWrites`) though no argument names their content — a `git push` sends
 * the commits of the workspace's repository, a network command sends the files it reads.
 */
import type { Subject } from "../normalize/subject.js";
import { isInside } from "../normalize/paths.js";
import type { ArgValue, Label, ProvenanceView } from "./types.js";

const NETWORK_CMDS = new Set(["scp", "sftp", "rsync", "nc", "ncat", "netcat", "socat", "ssh", "ftp", "curl", "wget"]);

/** Values a call carries out through files, as `body` values from `secret` content. */
export function fileCarriedValues(s: Subject, view: ProvenanceView): ArgValue[] {
  const out: ArgValue[] = [];
  const files = [...view.secretFiles()];
  if (files.length === 0) return out;
  const add = (key: string, path: string, label: Label): void => {
    if (out.length < 4 && !out.some((v) => v.value === path))
      out.push({ key, role: "body", value: path, origins: new Set(["secret"]), sources: [{ part: path, label }] });
  };
  const pushes = s.commands.some((c) => c.name === "git" && c.args.find((a) => !a.startsWith("-")) === "push");
  if (pushes) for (const [f, l] of files) if (isInside(f, s.ctx.workspace)) add("command", f, l);
  if (s.urls.some((u) => u.active) || s.commands.some((c) => NETWORK_CMDS.has(c.name)))
    for (const p of s.paths) {
      if (p.op !== "read") continue;
      const l = files.find(([f]) => isInside(p.path, f) || isInside(f, p.path));
      if (l !== undefined) add(p.key, p.path, l[1]);
    }
  return out;
}
