export interface PathBase {
  home: string;
  workspace: string;
}

/**
 * Normalizes a path for matching: `file://` stripped, `~`, `~user`, `$HOME` expanded, relative
 * paths resolved against `cwd` (default: the workspace), `.`/`..`/`//` collapsed, backslashes
 * treated as separators. Never touches the file system (symlinks are not resolved).
 */
export function normalizePath(raw: string, base: PathBase, cwd?: string): string {
  let p = raw.trim();
  if (p.startsWith("file://")) p = p.slice(7);
  p = p.replace(/\\/g, "/");
  p = p.replace(/^\$\{?HOME\}?(?=\/|$)/, base.home);
  if (p === "~" || p.startsWith("~/")) p = base.home + p.slice(1);
  else if (p.startsWith("~")) {
    const m = /^~([A-Za-z0-9._-]+)(.*)$/.exec(p);
    if (m !== null) p = (m[1] === "root" ? "/root" : `/home/${m[1]}`) + (m[2] ?? "");
  }
  if (!p.startsWith("/")) p = `${cwd ?? base.workspace}/${p}`;
  return collapse(p);
}

/** `posix.normalize` for absolute paths without its overhead: drops `.`, empty segments, resolves `..`. */
function collapse(p: string): string {
  if (!p.includes("/.") && !p.includes("//") && !(p.length > 1 && p.endsWith("/"))) return p;
  const out: string[] = [];
  for (const seg of p.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") out.pop();
    else out.push(seg);
  }
  return `/${out.join("/")}`;
}

export function isInside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith("/") ? dir : `${dir}/`);
}

/** Heuristic: does a command word or free-text token look like a file path? */
export function looksLikePath(w: string): boolean {
  if (w.length === 0 || w.length > 4096 || w.includes("://") || w.includes("\n")) return false;
  if (w.startsWith("/") || w.startsWith("~") || w.startsWith("./") || w.startsWith("../") || w.startsWith("$HOME"))
    return true;
  if (w.startsWith("-")) return false;
  return (
    w.includes("/") ||
    /^\.[A-Za-z0-9_-]/.test(w) ||
    /\.(pem|key|env|p12|pfx|kdbx|db|sqlite|json|ya?ml|txt|ts|js|md|sh)$/i.test(w)
  );
}

/** Linux refuses longer paths and names (ENAMETOOLONG): such a path names no file. */
export const PATH_MAX = 4096;
export const NAME_MAX = 255;

export function nameableOnLinux(path: string): boolean {
  if (path.length > PATH_MAX) return false;
  let start = 0;
  for (let i = path.indexOf("/"); i !== -1; i = path.indexOf("/", start)) {
    if (i - start > NAME_MAX) return false;
    start = i + 1;
  }
  return path.length - start <= NAME_MAX;
}
