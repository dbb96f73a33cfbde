/**
 * Options that make an otherwise harmless program run other code or send data out: `sed` `e`,
 * `tar --checkpoint-action=exec`, `make --eval`, `git -c core.pager=`, `zip -TT`, `rsync -e`,
 * `ssh -o ProxyCommand`, `python -c`, `curl -d`... A command with one of them is never covered
 * by an allow rule's command pattern (the pattern names the program, not what it is made to run),
 * and the code those options carry is read as a nested script so the detectors see it.
 */
import { gitConfigKey, gitConfigRunsProgram } from "./git-config.js";
import { psqlHazard } from "./psql.js";
import { readOnlyPython } from "./python-inline.js";
import type { SimpleCommand } from "./command.js";

export interface Hazard {
  /** Why an allow pattern cannot vouch for the command. */
  reason: string;
  /** Shell text the option runs, when it carries one (read as a nested command). */
  script?: string;
}

/** Value of `--opt=VALUE`, `--opt VALUE`, `-oVALUE` or `-o VALUE` at index i (and how many words it took). */
function valueAt(args: readonly string[], i: number, names: readonly string[]): string | undefined {
  const a = args[i] ?? "";
  for (const n of names) {
    if (a === n) return args[i + 1] ?? "";
    if (n.startsWith("--") && a.startsWith(`${n}=`)) return a.slice(n.length + 1);
    if (!n.startsWith("--") && a.startsWith(n) && a.length > n.length) return a.slice(n.length);
  }
  return undefined;
}

function find(args: readonly string[], names: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const v = valueAt(args, i, names);
    if (v !== undefined) return v;
  }
  return undefined;
}

/** A sed script runs a command with the `e` command or the `e` flag of `s///`. */
const SED_E_COMMAND =
  /(?:^|[;\n{}])\s*(?:(?:\d+|\$|\/(?:\\.|[^/\\])*\/)\s*(?:,\s*(?:\d+|\$|\/(?:\\.|[^/\\])*\/))?)?\s*!?\s*e(?=\s|;|$)([^;\n]*)/;
const SED_S_FLAGS = /(?:^|[;\n{}]|\/\s*)s(.)(?:\\.|(?!\1)[^\\])*\1(?:\\.|(?!\1)[^\\])*\1([a-zA-Z0-9]*)/g;

function sedScripts(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const v = valueAt(args, i, ["--expression", "-e"]);
    if (v !== undefined) out.push(v);
  }
  if (out.length === 0) {
    const first = args.find((a) => !a.startsWith("-"));
    if (first !== undefined) out.push(first);
  }
  return out;
}

function sed(args: readonly string[]): Hazard | undefined {
  if (args.some((a) => a === "-f" || a.startsWith("--file")))
    return { reason: "sed -f runs a script file the Shield cannot read" };
  for (const script of sedScripts(args)) {
    const e = SED_E_COMMAND.exec(script);
    if (e !== null) return { reason: "sed's e command runs a shell command", script: (e[1] ?? "").trim() };
    SED_S_FLAGS.lastIndex = 0;
    for (let m = SED_S_FLAGS.exec(script); m !== null; m = SED_S_FLAGS.exec(script)) {
      if ((m[2] ?? "").includes("e")) return { reason: "sed's s///e flag runs the pattern space as a command" };
    }
  }
  return undefined;
}

function tar(args: readonly string[]): Hazard | undefined {
  const action = find(args, ["--checkpoint-action"]);
  if (action !== undefined && /^exec=/.test(action))
    return { reason: "tar --checkpoint-action=exec runs a command", script: action.slice(5) };
  const to = find(args, [
    "--to-command",
    "--use-compress-program",
    "--info-script",
    "--new-volume-script",
    "--rsh-command",
    "--rmt-command",
    "-I",
    "-F",
  ]);
  if (to !== undefined) return { reason: "this tar option runs a program", script: to };
  return undefined;
}

function make(args: readonly string[]): Hazard | undefined {
  const ev = find(args, ["--eval", "-E"]);
  if (ev !== undefined)
    return {
      reason: "make --eval defines rules that run commands",
      script: ev
        .split(/;|\n\t/)
        .slice(1)
        .join("\n"),
    };
  const file = find(args, ["--file", "--makefile", "-f"]);
  if (file !== undefined && (file === "-" || file.startsWith("/dev/") || file.startsWith("/proc/")))
    return { reason: "make -f - reads its rules from standard input" };
  if (args.some((a) => /^(SHELL|MAKESHELL|\.SHELLFLAGS)=/.test(a)))
    return { reason: "make with SHELL= runs recipes with another program" };
  return undefined;
}

/** Options of `git clone` / `git init` that put config, hooks or the repository itself somewhere the user's next git command reads. */
const GIT_SETUP_OPTIONS: Record<string, readonly string[]> = {
  clone: ["--template", "--separate-git-dir"],
  init: ["--template", "--separate-git-dir"],
};

function gitConfigHazard(assignment: string, option: string): Hazard | undefined {
  const key = gitConfigKey(assignment);
  if (!gitConfigRunsProgram(key)) return undefined;
  const value = assignment.length > key.length ? assignment.slice(key.length + 1) : "";
  return {
    reason: `git ${option} ${key} is not a key known to be harmless: it can run a program`,
    script: value.replace(/^!/, ""),
  };
}

/** `clone`'s own `-c`/`--config`, and the options of clone/init that set up what runs later. */
function gitSetup(sub: string, rest: readonly string[]): Hazard | undefined {
  for (let i = 0; i < rest.length; i++) {
    if (sub === "clone") {
      const cfg = valueAt(rest, i, ["-c", "--config"]);
      const hazard = cfg === undefined ? undefined : gitConfigHazard(cfg, "clone -c");
      if (hazard !== undefined) return hazard;
      const pack = valueAt(rest, i, ["-u", "--upload-pack"]);
      if (pack !== undefined) return { reason: "git clone --upload-pack runs a program", script: pack };
    }
    const setup = valueAt(rest, i, GIT_SETUP_OPTIONS[sub] ?? []);
    if (setup !== undefined) {
      const name = (rest[i] ?? "").split("=")[0] ?? "";
      return {
        reason: `git ${sub} ${name} copies hooks and config (or puts the repository) where later git commands run them`,
      };
    }
  }
  return undefined;
}

function git(args: readonly string[]): Hazard | undefined {
  let subAt = -1;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? "";
    const cfg = valueAt(args, i, ["-c", "--config-env"]);
    if (cfg !== undefined) {
      if (a === "--config-env" || a.startsWith("--config-env"))
        return { reason: "git --config-env sets config from the environment the Shield cannot see" };
      const hazard = gitConfigHazard(cfg, "-c");
      if (hazard !== undefined) return hazard;
      if (a === "-c") i++;
      continue;
    }
    if (a === "--exec-path" || a.startsWith("--exec-path="))
      return { reason: "git --exec-path runs programs from another directory" };
    if (!a.startsWith("-")) {
      subAt = i;
      break;
    }
  }
  const sub = subAt < 0 ? undefined : args[subAt];
  if (sub !== undefined && Object.hasOwn(GIT_SETUP_OPTIONS, sub)) {
    const setup = gitSetup(sub, args.slice(subAt + 1));
    if (setup !== undefined) return setup;
  }
  const run = find(args, [
    "--open-files-in-pager",
    "-O",
    "--upload-pack",
    "--receive-pack",
    "--exec",
    "--extcmd",
    "-x",
  ]);
  if (
    run !== undefined &&
    sub !== undefined &&
    /^(grep|fetch|pull|clone|ls-remote|push|archive|rebase|difftool|submodule)$/.test(sub)
  )
    return { reason: `git ${sub} with an option that runs a program`, script: run };
  if (sub === "bisect" && args.includes("run")) return { reason: "git bisect run runs a program" };
  if (sub === "submodule" && args.includes("foreach"))
    return {
      reason: "git submodule foreach runs a command",
      script: args
        .slice(args.indexOf("foreach") + 1)
        .filter((a) => !a.startsWith("-"))
        .join(" "),
    };
  if (sub === "filter-branch" || sub === "filter-repo") return { reason: `git ${sub} runs filter commands` };
  if (args.some((a) => /^ext::/.test(a)))
    return {
      reason: "git's ext:: transport runs a command",
      script: args.find((a) => a.startsWith("ext::"))?.slice(5) ?? "",
    };
  return undefined;
}

function zip(args: readonly string[]): Hazard | undefined {
  const v = find(args, ["--unzip-command", "-TT"]);
  return v !== undefined ? { reason: "zip -TT runs a test command", script: v } : undefined;
}

function rsync(args: readonly string[]): Hazard | undefined {
  const v = find(args, ["--rsh", "--rsync-path", "-e"]);
  return v !== undefined ? { reason: "rsync -e / --rsync-path runs a program", script: v } : undefined;
}

const SSH_EXEC = /^(proxycommand|localcommand|knownhostscommand|permitlocalcommand|remotecommand)\b\s*[= ]?\s*(.*)$/is;

function ssh(args: readonly string[]): Hazard | undefined {
  for (let i = 0; i < args.length; i++) {
    const o = valueAt(args, i, ["-o"]);
    const m = o === undefined ? null : SSH_EXEC.exec(o);
    if (m !== null) return { reason: `ssh -o ${m[1] ?? ""} runs a local command`, script: m[2] ?? "" };
  }
  if (args.some((a) => a === "-F" || a.startsWith("-F")))
    return { reason: "ssh -F reads a configuration that can run commands" };
  return undefined;
}

const CODE_FLAGS: Record<string, readonly string[]> = {
  python: ["-c"],
  node: ["-e", "-p", "--eval", "--print", "-r", "--require", "--import", "--loader"],
  perl: ["-e", "-E", "-M"],
  ruby: ["-e", "-r"],
  php: ["-r", "-a"],
  deno: ["eval"],
  bun: ["-e", "--eval", "-p", "--print"],
  lua: ["-e"],
  osascript: ["-e"],
  pwsh: ["-c", "-command", "-encodedcommand", "-enc", "-ec"],
};

function family(name: string): string {
  return name
    .replace(/[0-9.]+$/, "")
    .replace(/^nodejs$/, "node")
    .replace(/^pypy$/, "python")
    .replace(/^powershell$/, "pwsh");
}

/**
 * `python3 -c CODE [ARG...]` whose code can only read (see python-inline.ts), with nothing set in
 * the environment in front (`PYTHONPATH=`, `PYTHONHOME=` choose what `import` loads).
 */
export function readOnlyInlinePython(c: Pick<SimpleCommand, "name" | "args" | "argv">): string[] | undefined {
  if (family(c.name) !== "python" || c.args[0] !== "-c" || c.args[1] === undefined) return undefined;
  const at = c.argv.findIndex((w) => w.split("/").pop()?.toLowerCase() === c.name);
  if (c.argv.slice(0, Math.max(at, 0)).some((w) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(w))) return undefined;
  return readOnlyPython(c.args[1])?.reads;
}

function interpreter(name: string, args: readonly string[]): Hazard | undefined {
  const flags = CODE_FLAGS[family(name)];
  if (flags === undefined) return undefined;
  for (const a of args) {
    if (!a.startsWith("-") && family(name) !== "deno") break; // options end at the script name
    const f = flags.find(
      (x) => a === x || a.startsWith(`${x}=`) || (x.length === 2 && a.startsWith(x) && !a.startsWith("--")),
    );
    if (f !== undefined) return { reason: `${name} ${f} runs code given on the command line` };
  }
  return undefined;
}

function awk(args: readonly string[]): Hazard | undefined {
  const program = args.find((a) => !a.startsWith("-"));
  if (program !== undefined && /\bsystem\s*\(|\|\s*getline|\|&?\s*"|"\s*\|/.test(program))
    return { reason: "the awk program runs commands" };
  if (args.some((a) => a === "-f" || a.startsWith("--file")))
    return { reason: "awk -f runs a program file the Shield cannot read" };
  return undefined;
}

const CURL_SENDS = new Set([
  "-d",
  "--data",
  "--data-binary",
  "--data-raw",
  "--data-ascii",
  "--data-urlencode",
  "-F",
  "--form",
  "--form-string",
  "-T",
  "--upload-file",
  "--json",
  "-K",
  "--config",
]);

function curl(args: readonly string[]): Hazard | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? "";
    const long = a.split("=")[0] ?? a;
    if (CURL_SENDS.has(long)) return { reason: `curl ${long} sends data` };
    if (/^-[a-zA-Z]+$/.test(a) && /[dFTK]/.test(a.slice(1))) return { reason: `curl ${a} sends data` };
    const method = valueAt(args, i, ["--request", "-X"]);
    if (method !== undefined && !/^(GET|HEAD)$/i.test(method)) return { reason: `curl with method ${method}` };
  }
  return undefined;
}

function wget(args: readonly string[]): Hazard | undefined {
  const a = args.find((x) => /^--(post-data|post-file|body-data|body-file|execute|use-askpass)(=|$)|^-e$/.test(x));
  if (a !== undefined) return { reason: `wget ${a.split("=")[0] ?? a} sends data or runs commands` };
  const method = find(args, ["--method"]);
  return method !== undefined && !/^(GET|HEAD)$/i.test(method) ? { reason: `wget with method ${method}` } : undefined;
}

/** A package spec or option that installs from somewhere other than the configured registry. */
const OFF_REGISTRY =
  /:\/\/|^git\+|^(github|gitlab|bitbucket|gist|file):|^[\w.-]+\/[\w.-]+(#.*)?$|\.(tgz|tar\.gz|whl|zip)$/;
const OFF_REGISTRY_OPTS =
  /^(-i|--index-url|--extra-index-url|-f|--find-links|--trusted-host|--registry|--git|--path|--index|--default-index)(=|$)/;

function installer(args: readonly string[]): Hazard | undefined {
  const opt = args.find((a) => OFF_REGISTRY_OPTS.test(a));
  if (opt !== undefined) return { reason: `${opt.split("=")[0] ?? opt} installs from another package source` };
  const sub = args.find((a) => !a.startsWith("-"));
  if (sub === undefined || !/^(install|i|add|get)$/.test(sub)) return undefined;
  const spec = args
    .slice(args.indexOf(sub) + 1)
    .find((a) => !a.startsWith("-") && !a.startsWith("@") && OFF_REGISTRY.test(a));
  return spec !== undefined ? { reason: `installs ${spec} from outside the package registry` } : undefined;
}

const BY_NAME: Record<string, (args: readonly string[], name: string) => Hazard | undefined> = {
  pip: installer,
  pip3: installer,
  npm: installer,
  pnpm: installer,
  yarn: installer,
  bun: installer,
  cargo: installer,
  poetry: installer,
  uv: (a) => installer(a[0] === "pip" ? a.slice(1) : a),
  sed,
  gsed: sed,
  tar,
  gtar: tar,
  bsdtar: tar,
  make,
  gmake: make,
  git,
  zip,
  rsync,
  ssh,
  scp: ssh,
  sftp: ssh,
  awk,
  gawk: awk,
  mawk: awk,
  nawk: awk,
  curl,
  wget,
};

/** The hazard of one simple command, if it has one. */
export function hazardOf(c: Pick<SimpleCommand, "name" | "args" | "argv">): Hazard | undefined {
  if (c.name === "psql") {
    const reason = psqlHazard(c);
    return reason !== undefined ? { reason } : undefined;
  }
  if (readOnlyInlinePython(c) !== undefined) return undefined;
  const f = Object.hasOwn(BY_NAME, c.name) ? BY_NAME[c.name] : undefined;
  return f !== undefined ? f(c.args, c.name) : interpreter(c.name, c.args);
}
