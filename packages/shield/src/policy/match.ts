/** Matchers used by policy rules: path globs, host and e-mail domain patterns (commands: command-pattern.ts). */
import picomatch from "picomatch";
import { RE2JS } from "re2js";
import { isInside } from "../normalize/paths.js";
import type { SimpleCommand } from "../normalize/shell.js";

/**
 * The policy's patterns are the user's, the strings they are matched against the model's: they run
 * on RE2, in linear time. With a backtracking engine a pattern of a few `*`s (`git * -c * -c * push`)
 * took 3.5 s on a 5 KB command line, and the time grows with its cube.
 */
export interface Matcher {
  test(s: string): boolean;
}

function re2(src: string, flags: number): Matcher {
  const re = RE2JS.compile(src, flags);
  return { test: (s) => re.test(s) };
}

/**
 * An `args:` regex (RE2 syntax; `(?i)` in front ignores case). A leading `!` negates it: the value
 * must NOT match (`!^https://`), what a lookahead said before; `\!` is a literal `!`.
 */
export function compileArgRegex(src: string): Matcher {
  if (src.length > 1000) throw new Error("regex longer than 1000 characters");
  const negate = src.startsWith("!");
  try {
    const m = re2(negate ? src.slice(1) : src, 0);
    return negate ? { test: (s) => !m.test(s) } : m;
  } catch (e) {
    throw new Error(
      `${(e as Error).message} (policy regexes use RE2 syntax: no backreferences such as \\1, no lookahead or lookbehind; a leading ! negates the whole regex)`,
    );
  }
}

const HOST_PATTERN = /^(\*|(\*\.)?[a-z0-9_-]+(\.[a-z0-9_-]+)*|\[[0-9a-f:.]+\]|[0-9.]+)(:(\d{1,5}|\*))?$/i;

export function validateHostPattern(p: string): string | undefined {
  return HOST_PATTERN.test(p.trim()) ? undefined : "expected host, host:port, *.suffix or *";
}

/** `host`, `host:port`, `*.suffix` (subdomains only), `*`. */
export function matchHost(pattern: string, host: string, port: string): boolean {
  let pat = pattern.toLowerCase();
  let patPort: string | undefined;
  const m = /^(.*):(\d+|\*)$/.exec(pat);
  if (m !== null && !pat.endsWith("]")) {
    pat = m[1] ?? "";
    patPort = m[2];
  }
  pat = pat.replace(/^\[|\]$/g, "");
  if (patPort !== undefined && patPort !== "*" && patPort !== port) return false;
  if (pat === "*") return true;
  if (pat.startsWith("*.")) return host.endsWith(pat.slice(1)) && host.length > pat.length - 1;
  return host === pat;
}

export function emailDomain(addr: string): string {
  return addr.slice(addr.lastIndexOf("@") + 1).toLowerCase();
}

/**
 * picomatch's guards against `.` and `..` segments (and empty ones). The paths matched here are
 * normalized, so they hold no such segment and the guards are always true; they are the only
 * lookarounds picomatch writes besides an extglob's `!(...)`, and RE2 has no lookaround.
 */
const DOT_SEGMENT_GUARDS = [
  "(?!(?:^|\\/)\\.{1,2}(?:\\/|$))",
  "(?!\\.{1,2}(?:\\/|$))",
  "(?!\\.{0,1}(?:\\/|$))",
  "(?=.)",
];

/**
 * What `picomatch(glob, options)` returns for a normalized path or a tool name: picomatch's regex
 * (the same exact-string shortcut, "" never matches), run on RE2 in linear time: the glob is the
 * user's, the path the model's, and on a backtracking engine a glob with three globstars around
 * two names (`a` then `b`) took 3.6 s on a 4 KB path of `a/a/a/...`. A glob with an extglob negation `!(...)` keeps the JavaScript engine (RE2 cannot
 * express it); `pathMatcher` bounds what reaches it.
 */
export function globTester(glob: string, options: picomatch.PicomatchOptions): (s: string) => boolean {
  const re = picomatch.makeRe(glob, { ...options, windows: false });
  let src = re.source;
  for (const guard of DOT_SEGMENT_GUARDS) src = src.split(guard).join("");
  let test = (s: string): boolean => re.test(s);
  if (!/\(\?[!=<]/.test(src)) {
    try {
      const linear = RE2JS.compile(src, re.flags.includes("i") ? RE2JS.CASE_INSENSITIVE : 0);
      test = (s) => linear.test(s);
    } catch {
      // A construct RE2 lacks: picomatch's own regex stays.
    }
  }
  return (s) => s !== "" && (s === glob || test(s));
}

const globCache = new Map<string, (p: string) => boolean>();

/**
 * A path glob with `${workspace}`, `${home}` and `~` expanded for this context. Only paths Linux
 * could name reach it (PathRef.nameable, checked once per path), which also bounds the time of
 * the globs that stay on the backtracking engine.
 */
export function pathMatcher(glob: string, home: string, workspace: string): (p: string) => boolean {
  const g = glob
    .replace(/\$\{workspace\}/g, workspace)
    .replace(/\$\{home\}/g, home)
    .replace(/^~(?=\/|$)/, home);
  let m = globCache.get(g);
  if (m === undefined) {
    m = globTester(g, { dot: true, nocase: true });
    if (globCache.size > 5000) globCache.clear();
    globCache.set(g, m);
  }
  return m;
}

const SAFE_WRITE_TARGETS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr"]);

/** A command an allow rule may cover: no write redirection outside the workspace. */
export function redirectsStayInside(c: SimpleCommand, workspace: string, resolve: (t: string) => string): boolean {
  return c.redirects.every(
    (r) =>
      !r.op.includes(">") ||
      /^\d+$/.test(r.target) ||
      SAFE_WRITE_TARGETS.has(r.target) ||
      isInside(resolve(r.target), workspace),
  );
}
