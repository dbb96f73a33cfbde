/**
 * What a shell command does, for "allow for this session": the program, its subcommand, the
 * options that change what it does and the operands it acts on. Two commands are one effect class
 * only when all of these match (paths by scope, see action-class.ts), so a grant for
 * `rm -f a.tmp` never covers `rm -rf src`, nor `./deploy.sh --dry-run` cover `--production`.
 * Destructive variants (recursive deletes, forced pushes, disk writes) are never granted.
 */
import { looksLikePath } from "./normalize/paths.js";
import type { SimpleCommand } from "./normalize/shell.js";

/** Programs whose first word after the options is a subcommand that changes what they do. */
const SUBCOMMANDS = new Set([
  "git",
  "npm",
  "pnpm",
  "yarn",
  "bun",
  "npx",
  "cargo",
  "go",
  "docker",
  "podman",
  "kubectl",
  "pip",
  "pip3",
  "uv",
  "poetry",
  "make",
  "systemctl",
  "apt",
  "apt-get",
  "brew",
  "gh",
  "terraform",
  "helm",
  "dotnet",
  "mvn",
  "gradle",
  "gradlew",
  "openssl",
]);
const DELETE_CMDS = new Set(["rm", "rmdir", "unlink"]);
/** Programs that destroy data whatever their options. */
const ALWAYS_DESTRUCTIVE = new Set([
  "shred",
  "wipe",
  "srm",
  "dd",
  "wipefs",
  "fdisk",
  "sfdisk",
  "parted",
  "truncate",
  "mkswap",
]);
const RECURSIVE = new Set(["-r", "-R", "--recursive"]);
/** Programs whose operands are a script and its arguments: what they do is in the operands. */
const INTERPRETERS = new Set([
  "sh",
  "bash",
  "zsh",
  "dash",
  "ksh",
  "fish",
  "python",
  "python3",
  "node",
  "deno",
  "ruby",
  "perl",
  "php",
  "lua",
  "tsx",
  "ts-node",
]);

export interface CommandEffect {
  /** The program with its subcommand, options and operands as the class shows them. */
  text: string;
  /** The same, normalized (option clusters split, options sorted): equal for one effect class. */
  key: string;
  /** Operands that name files this command deletes (always exact, whether or not they look like paths). */
  deletes: string[];
  /** Why a grant never covers this command (asked every time), when it is destructive. */
  destructive: string | undefined;
}

/** Option words as a set: `-rf` is `-r -f`, `--env=x` and `--env x` are both `--env=x`. */
function optionsOf(
  args: readonly string[],
  sub: string | undefined,
): { options: string[]; shown: string[]; operands: string[] } {
  const options = new Set<string>();
  const shown = new Set<string>();
  const operands: string[] = [];
  let subSeen = sub === undefined;
  let endOfOptions = false;
  for (let i = 0; i < args.length; i++) {
    const w = args[i] ?? "";
    if (!endOfOptions && w === "--") {
      endOfOptions = true;
      continue;
    }
    if (endOfOptions || !w.startsWith("-") || w === "-") {
      if (!subSeen && w === sub) subSeen = true;
      else operands.push(w);
      continue;
    }
    if (w.startsWith("--")) {
      const next = args[i + 1];
      // `--env production`: the value belongs to the option (a path is scoped with the paths)
      const word =
        !w.includes("=") && next !== undefined && !next.startsWith("-") && next !== sub && !looksLikePath(next)
          ? `${w}=${next}`
          : w;
      if (word !== w) i++;
      options.add(word);
      shown.add(word);
      continue;
    }
    shown.add(w);
    if (/^-[A-Za-z]+$/.test(w)) for (const ch of w.slice(1)) options.add(`-${ch}`);
    else options.add(w);
  }
  return { options: [...options].sort(), shown: [...shown], operands };
}

function destructiveOf(
  c: SimpleCommand,
  sub: string | undefined,
  options: readonly string[],
  operands: readonly string[],
): string | undefined {
  const has = (...o: string[]): boolean =>
    o.some((x) => options.includes(x) || options.some((y) => y.startsWith(`${x}=`)));
  if (ALWAYS_DESTRUCTIVE.has(c.name) || c.name.startsWith("mkfs")) return `${c.name} destroys data`;
  if (
    (DELETE_CMDS.has(c.name) || ["chmod", "chown", "chgrp"].includes(c.name)) &&
    options.some((o) => RECURSIVE.has(o))
  )
    return `a recursive ${c.name}`;
  if (c.name === "find" && c.args.some((a) => a === "-delete" || a === "-exec" || a === "-execdir" || a === "-ok"))
    return "find that deletes or runs commands";
  if (c.name === "git") {
    if (
      sub === "push" &&
      (has("-f", "--force", "--force-with-lease", "--force-if-includes", "--mirror", "--delete", "-d", "--prune") ||
        operands.some((o) => o.startsWith("+") || o.startsWith(":")))
    )
      return "a forced or deleting git push";
    if (sub === "reset" && has("--hard", "--merge", "--keep")) return "git reset that discards changes";
    if (sub === "clean" && has("-f", "--force")) return "git clean that deletes files";
    if (sub === "branch" && has("-D", "--delete")) return "a branch deletion";
    if ((sub === "checkout" || sub === "switch" || sub === "restore") && has("-f", "--force", "--discard-changes"))
      return "a git checkout that discards changes";
  }
  return undefined;
}

export function commandEffect(c: SimpleCommand): CommandEffect {
  const sub = SUBCOMMANDS.has(c.name) ? c.args.find((a) => !a.startsWith("-")) : undefined;
  const { options, shown, operands } = optionsOf(c.args, sub);
  const deletes = DELETE_CMDS.has(c.name) ? operands : [];
  // a script (run by path or by an interpreter): its operands are part of what it does (`./deploy.sh prod`)
  const script =
    INTERPRETERS.has(c.name) || (c.argv.find((a) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) ?? "").includes("/");
  const kept = script ? operands : [];
  const words = (opts: readonly string[]): string =>
    [c.name, ...(sub === undefined ? [] : [sub]), ...opts, ...kept.map((o) => JSON.stringify(o))].join(" ");
  return { text: words(shown), key: words(options), deletes, destructive: destructiveOf(c, sub, options, operands) };
}
