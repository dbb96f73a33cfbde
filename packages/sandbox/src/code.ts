// Which host paths a program needs to run: the program file, the package that holds it and the
// packages it depends on, transitively. These are bound read-only; the rest of the install
// (other packages of the same tree, e.g. the Engine's) stays out of the view.
import { existsSync, lstatSync, readFileSync, readlinkSync, realpathSync, statSync } from "node:fs";
import * as path from "node:path";
import { isWithin } from "./hidden.js";
import { SYSTEM_DIRS } from "./view.js";

export interface CodeView {
  /** Real paths to bind read-only (none inside another). */
  paths: string[];
  /** Links on the way (a node_modules/.bin entry, a linked workspace package), recreated inside. */
  links: Array<{ dest: string; target: string }>;
}

/** Directories that hold other people's or the system's things: never bound whole as a program's place. */
const SHARED_DIRS = new Set([
  "/",
  "/tmp",
  "/var/tmp",
  "/run",
  "/var",
  "/opt",
  "/srv",
  "/mnt",
  "/media",
  "/home",
  "/root",
  "/etc",
  "/usr/local/bin",
]);

/**
 * Where a program outside any package lives: its directory (a script's sibling modules, as a
 * Python server imports them), unless that is a shared directory or the home, then the file alone.
 */
function programDir(real: string, coversHome: (p: string) => boolean): string {
  const dir = isDirectory(real) ? real : path.dirname(real);
  return SHARED_DIRS.has(dir) || coversHome(dir) ? real : dir;
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** The nearest directory at or above `dir` holding a package.json, or undefined. */
function packageRoot(dir: string): string | undefined {
  for (let d = dir; ; d = path.dirname(d)) {
    if (existsSync(path.join(d, "package.json"))) return d === "/" ? undefined : d;
    if (path.dirname(d) === d) return undefined;
  }
}

function dependencyNames(pkgDir: string): string[] {
  try {
    const m = JSON.parse(readFileSync(path.join(pkgDir, "package.json"), "utf8")) as Record<
      string,
      Record<string, string> | undefined
    >;
    return Object.keys({ ...m.dependencies, ...m.optionalDependencies, ...m.peerDependencies });
  } catch {
    return [];
  }
}

function nodeModulesChain(from: string): string[] {
  const out: string[] = [];
  for (let dir = from; ; dir = path.dirname(dir)) {
    const nm = path.join(dir, "node_modules");
    if (existsSync(nm)) out.push(nm);
    if (path.dirname(dir) === dir) return out;
  }
}

/** Records each link from `p` to its real path (a chain of links, each recreated inside). */
function followLinks(p: string, links: Map<string, string>): void {
  let cur = p;
  for (let i = 0; i < 40; i++) {
    let target: string;
    try {
      if (!lstatSync(cur).isSymbolicLink()) return;
      target = readlinkSync(cur);
    } catch {
      return;
    }
    links.set(cur, target);
    cur = path.resolve(path.dirname(cur), target);
  }
}

/**
 * The read-only view of `programs` (absolute paths of executables, scripts, or the directory a
 * program runs in): when one lies in a package (nearest package.json), that whole package and the
 * closure of its dependencies as Node resolves them (node_modules up the tree); otherwise its
 * directory (programDir). Programs in the system directories are visible anyway and add nothing;
 * the home is never bound as code.
 */
export function codeView(programs: readonly string[], options: { home?: string } = {}): CodeView {
  // The home (or a directory above it) is never code: a ~/package.json must not bring it all in.
  const home = options.home === undefined ? undefined : path.resolve(options.home);
  const coversHome = (p: string): boolean => home !== undefined && isWithin(home, p);
  const paths = new Set<string>();
  const links = new Map<string, string>();
  const visited = new Set<string>();
  const visitPackage = (pkgDir: string): void => {
    if (visited.has(pkgDir)) return;
    visited.add(pkgDir);
    paths.add(pkgDir);
    for (const name of dependencyNames(pkgDir)) {
      for (const nm of nodeModulesChain(pkgDir)) {
        const lexical = path.join(nm, name);
        if (!existsSync(path.join(lexical, "package.json"))) continue;
        followLinks(lexical, links);
        visitPackage(realpathSync(lexical));
        break;
      }
    }
  };
  const inSystem = (p: string): boolean => SYSTEM_DIRS.some((d) => isWithin(p, d));
  for (const program of programs) {
    if (!path.isAbsolute(program) || !existsSync(program)) continue;
    const real = realpathSync(program);
    if (inSystem(real)) continue;
    followLinks(program, links);
    // A directory (a configured working directory) is a program's place: its package, or itself.
    const root = packageRoot(isDirectory(real) ? real : path.dirname(real));
    if (root && !coversHome(root)) visitPackage(root);
    else if (!coversHome(real)) paths.add(programDir(real, coversHome));
  }
  // Only the outermost of nested paths: a bind covers what is below it.
  const sorted = [...paths].sort((a, b) => a.length - b.length);
  const outer = sorted.filter((p, i) => !sorted.slice(0, i).some((q) => isWithin(p, q)));
  return {
    paths: outer,
    links: [...links]
      .filter(([dest]) => !inSystem(dest) && !outer.some((q) => isWithin(dest, q)))
      .map(([dest, target]) => ({ dest, target })),
  };
}
