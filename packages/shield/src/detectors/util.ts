import { isInside } from "../normalize/paths.js";
import { isCodeInterpreter, isShell, type SimpleCommand } from "../normalize/shell.js";
import type { PathRef, Subject, TextView } from "../normalize/subject.js";

export { isShell, isCodeInterpreter };

export function firstView(views: TextView[], re: RegExp): { view: TextView; match: string } | undefined {
  for (const v of views) {
    const m = re.exec(v.text);
    if (m !== null) return { view: v, match: m[0] };
  }
  return undefined;
}

export function describe(v: TextView): string {
  return v.origin === "raw" ? `in ${v.key}` : `in ${v.origin}-decoded text of ${v.key}`;
}

export function clip(s: string, n = 60): string {
  if (s.length > 8 * n) {
    // collapsing a prefix gives the same first n characters once it is long enough
    const head = s.slice(0, 8 * n).replace(/\s+/g, " ");
    if (head.length > n + 1) return `${head.slice(0, n)}…`;
  }
  const one = s.replace(/\s+/g, " ");
  return one.length > n ? `${one.slice(0, n)}…` : one;
}

export function findCommand(s: Subject, pred: (c: SimpleCommand) => boolean): SimpleCommand | undefined {
  return s.commands.find(pred);
}

export function cmdText(c: SimpleCommand): string {
  return clip([c.name, ...c.args].join(" "));
}

/** Views that are shell or code: command arguments of shell-like tools. */
export function commandViews(s: Subject): TextView[] {
  if (s.kind === "shell") return s.views.filter((v) => v.key === "command" || v.key.startsWith("command"));
  if (s.commands.length > 0) return s.views;
  return [];
}

/**
 * One regex that matches wherever one of `res` matches, so a single scan can rule out a whole
 * group of patterns. Exact as a pre-check: flags are merged (i, m and s only ever widen a match,
 * unless a widened pattern has lookarounds, which is refused) and backreferences are refused.
 */
export function anyOf(res: readonly RegExp[]): RegExp {
  const flags = [...new Set(res.flatMap((r) => [...r.flags]))].sort().join("");
  for (const r of res) {
    if (/[^ims]/.test(r.flags) || /\\[1-9]|\\k</.test(r.source))
      throw new Error(`anyOf: unsupported pattern ${r.source.slice(0, 40)}`);
    if (r.flags !== flags && /\(\?[=!<]/.test(r.source))
      throw new Error(`anyOf: lookaround in a pattern whose flags would widen: ${r.source.slice(0, 40)}`);
  }
  return new RegExp(res.map((r) => `(?:${r.source})`).join("|"), flags);
}

export function hasFlag(args: string[], short: string, long?: string): boolean {
  return args.some(
    (a) =>
      (a.startsWith("-") && !a.startsWith("--") && a.slice(1).includes(short)) ||
      (long !== undefined && (a === long || a.startsWith(`${long}=`))),
  );
}

export function pathHit(s: Subject, pred: (p: string, ref: PathRef) => boolean): PathRef | undefined {
  return s.paths.find((ref) => pred(ref.lower, ref));
}

export function inWorkspace(s: Subject, p: string): boolean {
  return isInside(p, s.ctx.workspace);
}

export function isWrite(ref: PathRef): boolean {
  return ref.op === "write" || ref.op === "delete" || ref.op === "unknown";
}

export const DOWNLOADERS = new Set([
  "curl",
  "wget",
  "fetch",
  "aria2c",
  "http",
  "https",
  "httpie",
  "xh",
  "lwp-request",
  "lynx",
  "invoke-webrequest",
  "iwr",
  "irm",
  "invoke-restmethod",
  "ftp",
  "tftp",
]);
export const NET_SENDERS = new Set([
  ...DOWNLOADERS,
  "nc",
  "ncat",
  "netcat",
  "telnet",
  "socat",
  "scp",
  "sftp",
  "rsync",
  "ssh",
  "mail",
  "mailx",
  "sendmail",
  "mutt",
  "dig",
  "nslookup",
  "host",
  "drill",
  "ping",
  "openssl",
  "gh",
  "aws",
  "gsutil",
  "rclone",
  "s3cmd",
]);

export function hasEgress(s: Subject): boolean {
  return (
    s.kind === "http" ||
    s.kind === "mail" ||
    s.urls.some((u) => u.active) ||
    s.commands.some((c) => NET_SENDERS.has(c.name))
  );
}
