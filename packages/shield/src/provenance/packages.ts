/**
 * Packages a shell command installs by name from a registry: `npm install left-pad`,
 * `pip install requests==2.32`, `cargo add serde`, `go get example.com/m`. The name decides what
 * code runs next (install scripts, imports), so where it came from matters as for a recipient: a
 * name the user or the workspace's files gave, or one the model or a fetched page made up.
 */
import type { SimpleCommand } from "../normalize/shell.js";

/** Program → subcommands that install their operands. */
const INSTALLERS: Record<string, readonly string[]> = {
  npm: ["install", "i", "add"],
  pnpm: ["add", "install", "i"],
  yarn: ["add"],
  bun: ["add", "install", "i"],
  pip: ["install"],
  pip3: ["install"],
  uv: ["add"],
  poetry: ["add"],
  cargo: ["add", "install"],
  go: ["get", "install"],
  gem: ["install"],
};
/** Options whose next word is a value (a file, an index), not a package. */
const VALUED = new Set([
  "-r",
  "--requirement",
  "-c",
  "--constraint",
  "-i",
  "--index-url",
  "--extra-index-url",
  "-e",
  "--editable",
  "--registry",
  "--prefix",
  "-t",
  "--target",
]);

/** The name without its version or extras: `left-pad@1.3.0` → `left-pad`, `requests[socks]>=2` → `requests`. */
function bareName(op: string): string {
  const scoped = op.startsWith("@");
  const at = op.indexOf("@", scoped ? 1 : 0);
  const n = at > 0 ? op.slice(0, at) : op;
  return n.split(/[=<>~!;[\s]/)[0] ?? n;
}

export function installedPackages(c: SimpleCommand): string[] {
  const subs = INSTALLERS[c.name];
  if (subs === undefined) return [];
  const args = c.args;
  // `python -m pip install x` reads as pip; `uv pip install x` too
  const i = args.findIndex((a) => !a.startsWith("-"));
  const sub = args[i];
  let rest = args.slice(i + 1);
  if (c.name === "uv" && sub === "pip" && rest[0] === "install") rest = rest.slice(1);
  else if (sub === undefined || !subs.includes(sub)) return [];
  const out: string[] = [];
  for (let k = 0; k < rest.length; k++) {
    const w = rest[k] ?? "";
    if (VALUED.has(w)) {
      k++;
      continue;
    }
    if (w.startsWith("-") || w === "." || (w.includes("/") && !/^[\w.-]+\.[a-z]{2,}\//i.test(w) && !w.startsWith("@")))
      continue;
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(w) || /\.(?:whl|tar\.gz|tgz|zip)$/i.test(w)) continue;
    const name = bareName(w).toLowerCase();
    if (name.length > 0) out.push(name);
  }
  return out;
}
