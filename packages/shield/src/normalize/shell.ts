/**
 * A small POSIX-shell reader for judging commands (not for running them). It removes quotes
 * (including `$'...'`), expands `$IFS`, brace lists and variables assigned earlier in the same
 * script, splits `;` `&&` `||` `|` `&` chains, records redirections and heredocs, and
 * recursively reads `$(...)`, backticks, `<(...)`, `sh -c`, `eval`, `su -c`, `find -exec`,
 * `xargs`, `ssh host cmd` and the shell strings inside `python -c`/`node -e` code.
 * shell-quote was considered: it does not read `$(...)`, backticks or heredocs and silently
 * drops unknown variables, which is exactly what an evasion would rely on.
 */
import { decodeAnsiC } from "./decode.js";
import { hazardOf } from "./execopts.js";
import { sqlShellLines } from "./psql.js";
import { execAll } from "./text.js";
import type { Redirect, SimpleCommand, Via } from "./command.js";

export type { Redirect, SimpleCommand, Via } from "./command.js";

export interface ParsedShell {
  commands: SimpleCommand[];
  errors: string[];
  /** True when nesting or size limits stopped the reader before the end. */
  truncated: boolean;
}

export interface ShellOptions {
  home?: string;
  maxDepth?: number;
  maxCommands?: number;
}

interface Word {
  value: string;
  /** Nested scripts found inside the word: `$(...)`, backticks, `<(...)`. */
  nested: { script: string; via: Via }[] | undefined;
  /** Word came (partly) from a quoted part, so it is never an operator or keyword. */
  quoted: boolean;
  vars: string[] | undefined;
  /** Unquoted `$IFS` expansions split the word here. */
  splits: number[] | undefined;
}
// (the three lists are created on first use: most words have none of them)

/** ASCII characters that end a run of ordinary word characters (whitespace and shell syntax). */
const SPECIAL = new Uint8Array(128);
for (const c of " \t\n\v\f\r;&|()<>\\'\"$`") SPECIAL[c.charCodeAt(0)] = 1;
const SPACE = /\s/;

/** End of the run of ordinary characters from `i` (`[^\s;&|()<>\\'"$\`]*`), scanned without a regex. */
function plainRunEnd(s: string, i: number): number {
  let j = i;
  for (; j < s.length; j++) {
    const c = s.charCodeAt(j);
    if (c < 128 ? SPECIAL[c] === 1 : SPACE.test(s.charAt(j))) break;
  }
  return j;
}
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** Longest first, so `<<<` is not read as `<<` then `<`. */
const REDIRECT_OPS = ["<<<", "<<-", "&>>", ">>", "<<", ">&", "<&", "<>", ">|", "<", ">"];

type Token = { kind: "word"; word: Word } | { kind: "op"; op: string } | { kind: "redir"; op: string };

const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "ash", "fish", "busybox", "mksh", "tcsh", "csh"]);
const KEYWORDS = new Set([
  "if",
  "then",
  "else",
  "elif",
  "fi",
  "do",
  "done",
  "while",
  "until",
  "esac",
  "!",
  "{",
  "}",
  "in",
  "function",
  "time",
  "coproc",
]);
const SKIP_CLAUSE = new Set(["for", "select", "case"]);

/** Wrappers and how many leading non-option arguments each one consumes before the command. */
const WRAPPERS: Record<string, { valueOpts?: string[]; positional?: number }> = {
  sudo: { valueOpts: ["-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "--user", "--group", "--chdir"] },
  doas: { valueOpts: ["-u", "-C"] },
  env: { valueOpts: ["-u", "-C", "-S", "--unset", "--chdir"] },
  nohup: {},
  nice: { valueOpts: ["-n", "--adjustment"] },
  ionice: { valueOpts: ["-c", "-n", "-p"] },
  time: {},
  timeout: { valueOpts: ["-s", "-k", "--signal", "--kill-after"], positional: 1 },
  stdbuf: { valueOpts: ["-i", "-o", "-e"] },
  command: {},
  builtin: {},
  exec: { valueOpts: ["-a"] },
  setsid: {},
  unbuffer: {},
  chroot: { positional: 1 },
  flock: { valueOpts: ["-w", "-E"], positional: 1 },
  runuser: { valueOpts: ["-u", "-g"] },
  caffeinate: {},
  chrt: { positional: 1 },
  taskset: { positional: 1 },
  xargs: {
    valueOpts: [
      "-I",
      "-i",
      "-n",
      "-P",
      "-L",
      "-d",
      "-s",
      "-E",
      "-a",
      "--max-args",
      "--max-procs",
      "--delimiter",
      "--arg-file",
      "--replace",
    ],
  },
  strace: { valueOpts: ["-o", "-e", "-p", "-s"] },
  watch: { valueOpts: ["-n", "-d"] },
};

function quoteWord(w: string): string {
  return /^[A-Za-z0-9_./=:@%+,{}-]+$/.test(w) ? w : `'${w.replace(/'/g, "'\\''")}'`;
}

function basename(w: string): string {
  const noSlash = w.includes("\\") ? w.replace(/\\/g, "") : w;
  const b = noSlash.slice(noSlash.lastIndexOf("/") + 1);
  return b.toLowerCase();
}

/** Resolves wrappers (`sudo -u x env A=1 nohup rm ...` → `rm`). */
function unwrap(argv: string[]): { name: string; args: string[]; wrappers: string[] } {
  const wrappers: string[] = [];
  let i = 0;
  while (i < argv.length) {
    while (i < argv.length && ASSIGNMENT.test(argv[i] ?? "")) i++;
    if (i >= argv.length) break;
    const name = basename(argv[i] ?? "");
    if (name === "busybox" && i + 1 < argv.length) {
      wrappers.push(name);
      i++;
      continue;
    }
    const spec = WRAPPERS[name];
    if (spec === undefined) break;
    wrappers.push(name);
    i++;
    let positional = spec.positional ?? 0;
    while (i < argv.length) {
      const a = argv[i] ?? "";
      if (a === "--") {
        i++;
        break;
      }
      if (a.startsWith("-") && a.length > 1) {
        i += spec.valueOpts?.includes(a) === true ? 2 : 1;
        continue;
      }
      if (ASSIGNMENT.test(a)) {
        i++;
        continue;
      }
      if (positional > 0) {
        positional--;
        i++;
        continue;
      }
      break;
    }
  }
  return {
    name: i < argv.length ? basename(argv[i] ?? "") : (wrappers[wrappers.length - 1] ?? ""),
    args: argv.slice(i + 1),
    wrappers,
  };
}

class Lexer {
  private i = 0;
  errors: string[] = [];
  pendingHeredocs: { delim: string; strip: boolean; redirect: Redirect }[] = [];
  constructor(
    private readonly s: string,
    private readonly vars: Map<string, string>,
  ) {}

  done(): boolean {
    this.skipBlanks();
    return this.i >= this.s.length;
  }

  private skipBlanks(): void {
    for (;;) {
      const c = this.s[this.i];
      if (c === " " || c === "\t" || c === "\r") this.i++;
      else if (c === "\\" && this.s[this.i + 1] === "\n") this.i += 2;
      else break;
    }
  }

  next(): Token | undefined {
    this.skipBlanks();
    const s = this.s;
    if (this.i >= s.length) return undefined;
    const c = s[this.i] ?? "";
    if (c === "#") {
      while (this.i < s.length && s[this.i] !== "\n") this.i++;
      return this.next();
    }
    if (c === "\n") {
      this.i++;
      this.readHeredocBodies();
      return { kind: "op", op: ";" };
    }
    if (c === "<" || c === ">") {
      if (s[this.i + 1] === "(") return this.word();
      for (const op of REDIRECT_OPS) {
        if (s.startsWith(op, this.i)) {
          this.i += op.length;
          return { kind: "redir", op };
        }
      }
    }
    const c2 = s[this.i + 1];
    if (c === "&") {
      if (c2 === ">") {
        const op = s[this.i + 2] === ">" ? "&>>" : "&>";
        this.i += op.length;
        return { kind: "redir", op };
      }
      return this.op(c2 === "&" ? "&&" : "&");
    }
    if (c === "|") return this.op(c2 === "|" ? "||" : c2 === "&" ? "|&" : "|");
    if (c === ";") return this.op(c2 === ";" ? ";;" : ";");
    if (c === "(" || c === ")") return this.op(c);
    if (c >= "0" && c <= "9") {
      // a file-descriptor number glued to a redirection: 2>, 1>>, 0<&
      const fd = /^[0-9]+(?=[<>])/.exec(s.slice(this.i, this.i + 4));
      if (fd !== null) {
        this.i += fd[0].length;
        return this.next();
      }
    }
    return this.word();
  }

  private op(op: string): Token {
    this.i += op.length;
    return { kind: "op", op };
  }

  /** Reads the bodies of heredocs announced on the line that just ended. */
  private readHeredocBodies(): void {
    for (const h of this.pendingHeredocs) {
      const lines: string[] = [];
      while (this.i < this.s.length) {
        let end = this.s.indexOf("\n", this.i);
        if (end < 0) end = this.s.length;
        const line = this.s.slice(this.i, end);
        this.i = end + 1;
        if ((h.strip ? line.replace(/^\t+/, "") : line) === h.delim) break;
        lines.push(line);
      }
      h.redirect.target = lines.join("\n");
    }
    this.pendingHeredocs = [];
  }

  /** Finds the `)` matching an opening `(` at `start` (index after the paren). */
  matchParen(start: number): number {
    let depth = 1;
    let j = start;
    const s = this.s;
    while (j < s.length) {
      const ch = s[j];
      if (ch === "\\") j += 2;
      else if (ch === "'") {
        const e = s.indexOf("'", j + 1);
        j = e < 0 ? s.length : e + 1;
      } else if (ch === '"') {
        j++;
        while (j < s.length && s[j] !== '"') j += s[j] === "\\" ? 2 : 1;
        j++;
      } else if (ch === "(") {
        depth++;
        j++;
      } else if (ch === ")") {
        depth--;
        if (depth === 0) return j;
        j++;
      } else j++;
    }
    this.errors.push("unterminated $( or <(");
    return s.length;
  }

  private expandVar(w: Word, quoted: boolean): string {
    // at "$": returns the expansion text and advances
    const s = this.s;
    const j = this.i + 1;
    let name = "";
    let end = j;
    if (s[j] === "{") {
      const close = s.indexOf("}", j);
      if (close < 0) {
        this.i = s.length;
        this.errors.push("unterminated ${");
        return "";
      }
      const inner = s.slice(j + 1, close);
      end = close + 1;
      const m = /^[#!]?([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])/.exec(inner);
      name = m?.[1] ?? inner;
      // ${VAR:-default} / ${VAR-default}: take the default when VAR is unknown
      const def = /^[A-Za-z_][A-Za-z0-9_]*:?[-=](.*)$/s.exec(inner);
      if (def !== null && !this.vars.has(name) && name !== "IFS") {
        this.i = end;
        return def[1] ?? "";
      }
    } else {
      const m = /^([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])/.exec(s.slice(j, j + 64));
      if (m === null) {
        this.i = j;
        return "$";
      }
      name = m[1] ?? "";
      end = j + name.length;
    }
    this.i = end;
    if (name === "IFS") {
      if (!quoted) (w.splits ??= []).push(w.value.length);
      return quoted ? " " : "";
    }
    const v = this.vars.get(name);
    if (v !== undefined) return v;
    (w.vars ??= []).push(name);
    return s.slice(j - 1, end);
  }

  private word(): Token {
    const s = this.s;
    const w: Word = { value: "", nested: undefined, quoted: false, vars: undefined, splits: undefined };
    while (this.i < s.length) {
      const end = plainRunEnd(s, this.i);
      if (end > this.i) {
        // fast path: a run of ordinary characters goes in as one slice
        w.value += s.slice(this.i, end);
        this.i = end;
        continue;
      }
      const c = s[this.i] ?? "";
      if (" \t\r\n;&|()".includes(c) || ((c === "<" || c === ">") && s[this.i + 1] !== "(")) break;
      if ((c === "<" || c === ">") && s[this.i + 1] === "(") {
        const close = this.matchParen(this.i + 2);
        (w.nested ??= []).push({ script: s.slice(this.i + 2, close), via: "procsubst" });
        w.value += s.slice(this.i, close + 1);
        this.i = close + 1;
        continue;
      }
      if (c === "\\") {
        if (s[this.i + 1] === "\n") this.i += 2;
        else {
          w.value += s[this.i + 1] ?? "";
          w.quoted = true;
          this.i += 2;
        }
        continue;
      }
      if (c === "'") {
        const e = s.indexOf("'", this.i + 1);
        if (e < 0) this.errors.push("unterminated single quote");
        w.value += s.slice(this.i + 1, e < 0 ? s.length : e);
        w.quoted = true;
        this.i = e < 0 ? s.length : e + 1;
        continue;
      }
      if (c === '"') {
        this.i++;
        w.quoted = true;
        let closed = false;
        while (this.i < s.length) {
          const d = s[this.i] ?? "";
          if (d === '"') {
            closed = true;
            this.i++;
            break;
          }
          if (d === "\\" && '"\\$`\n'.includes(s[this.i + 1] ?? "")) {
            if (s[this.i + 1] !== "\n") w.value += s[this.i + 1] ?? "";
            this.i += 2;
          } else if (d === "$" && s[this.i + 1] === "(") this.substitution(w);
          else if (d === "`") this.backtick(w);
          else if (d === "$") w.value += this.expandVar(w, true);
          else {
            w.value += d;
            this.i++;
          }
        }
        if (!closed) this.errors.push("unterminated double quote");
        continue;
      }
      if (c === "$" && s[this.i + 1] === "'") {
        const e = s.indexOf("'", this.i + 2);
        w.value += decodeAnsiC(s.slice(this.i + 2, e < 0 ? s.length : e));
        w.quoted = true;
        if (e < 0) this.errors.push("unterminated $' quote");
        this.i = e < 0 ? s.length : e + 1;
        continue;
      }
      if (c === "$" && s[this.i + 1] === "(") {
        this.substitution(w);
        continue;
      }
      if (c === "`") {
        this.backtick(w);
        continue;
      }
      if (c === "$") {
        w.value += this.expandVar(w, false);
        continue;
      }
      w.value += c;
      this.i++;
    }
    return { kind: "word", word: w };
  }

  private substitution(w: Word): void {
    const arith = this.s[this.i + 2] === "(";
    const close = this.matchParen(this.i + 2);
    const inner = this.s.slice(this.i + 2, close);
    if (!arith) (w.nested ??= []).push({ script: inner, via: "subst" });
    w.value += `$(${inner})`;
    this.i = close + 1;
  }

  private backtick(w: Word): void {
    let e = this.i + 1;
    while (e < this.s.length && this.s[e] !== "`") e += this.s[e] === "\\" ? 2 : 1;
    if (e >= this.s.length) this.errors.push("unterminated backtick");
    const inner = this.s.slice(this.i + 1, Math.min(e, this.s.length)).replace(/\\([`\\$])/g, "$1");
    (w.nested ??= []).push({ script: inner, via: "subst" });
    w.value += `$(${inner})`;
    this.i = Math.min(e + 1, this.s.length);
  }
}

/** Splits a word at unquoted `$IFS` and expands an unquoted brace list `{a,b,c}`. */
function fields(w: Word): string[] {
  let parts: string[] = [];
  if (w.splits === undefined) parts = [w.value];
  else {
    let last = 0;
    for (const at of w.splits) {
      parts.push(w.value.slice(last, at));
      last = at;
    }
    parts.push(w.value.slice(last));
    parts = parts.filter((p) => p.length > 0);
  }
  const out: string[] = [];
  for (const p of parts) {
    const m = /^\{([^{}\s]*,[^{}\s]*)\}$/.exec(p);
    if (m !== null && !w.quoted) out.push(...(m[1] ?? "").split(","));
    else out.push(p);
  }
  return out;
}

const CODE_INTERPRETER =
  /^(python[0-9.]*|pypy[0-9.]*|node|nodejs|deno|bun|perl[0-9.]*|ruby[0-9.]*|php[0-9.]*|lua[0-9.]*|osascript|powershell|pwsh|awk|gawk|tclsh|jshell)$/;
const CODE_FLAGS = new Set([
  "-c",
  "-e",
  "-p",
  "-r",
  "-E",
  "eval",
  "--eval",
  "-command",
  "--command",
  "-encodedcommand",
  "-enc",
  "-ec",
]);
/** Shell strings inside interpreter code: os.system("..."), subprocess.run("...", shell=True), execSync('...'). */
const CODE_SHELL =
  /(?:system|popen|exec(?:Sync)?|spawn(?:Sync)?|call|run|check_output|Popen|getoutput|shell_exec|passthru|`)\s*\(?\s*(?:\[\s*)?(["'`])((?:(?!\1).){2,}?)\1/g;

export class ShellReader {
  private readonly out: SimpleCommand[] = [];
  private readonly errors: string[] = [];
  private truncated = false;
  private readonly maxDepth: number;
  private readonly maxCommands: number;

  constructor(private readonly opts: ShellOptions = {}) {
    this.maxDepth = opts.maxDepth ?? 6;
    this.maxCommands = opts.maxCommands ?? 256;
  }

  result(): ParsedShell {
    return { commands: this.out, errors: this.errors, truncated: this.truncated };
  }

  read(
    script: string,
    parent: SimpleCommand | undefined,
    via: Via,
    depth: number,
    inherited?: Map<string, string>,
  ): void {
    if (depth > this.maxDepth || this.out.length >= this.maxCommands) {
      this.truncated = true;
      return;
    }
    const vars = new Map(inherited ?? []);
    if (this.opts.home !== undefined && !vars.has("HOME")) vars.set("HOME", this.opts.home);
    const lx = new Lexer(script, vars);
    let pipeline: SimpleCommand[] = [];
    let words: Word[] = [];
    let redirects: Redirect[] = [];
    let skipClause = false;
    const finish = (op: string | undefined): void => {
      if ((words.length > 0 || redirects.length > 0) && this.out.length >= this.maxCommands) this.truncated = true;
      else if (words.length > 0 || redirects.length > 0) {
        const argv: string[] = [];
        const cmdVars: string[] = [];
        for (const w of words) {
          if (w.splits === undefined && (w.quoted || !w.value.startsWith("{"))) argv.push(w.value);
          else for (const f of fields(w)) argv.push(f);
          if (w.vars !== undefined) for (const v of w.vars) cmdVars.push(v);
        }
        const onlyAssign = argv.length > 0 && argv.every((a) => ASSIGNMENT.test(a));
        if (onlyAssign) {
          for (const a of argv) {
            const eq = a.indexOf("=");
            vars.set(a.slice(0, eq), a.slice(eq + 1));
          }
        }
        const u = unwrap(argv);
        const cmd: SimpleCommand = {
          argv,
          name: u.name,
          args: u.args,
          wrappers: u.wrappers,
          redirects,
          pipeline,
          index: pipeline.length,
          parent,
          via,
          depth,
          vars: cmdVars,
        };
        pipeline.push(cmd);
        this.out.push(cmd);
        const hazard = hazardOf(cmd);
        if (hazard !== undefined) {
          cmd.hazard = hazard.reason;
          if (hazard.script !== undefined && hazard.script.trim() !== "")
            this.read(hazard.script, cmd, "exec", depth + 1, vars);
        }
        for (const w of words)
          if (w.nested !== undefined) for (const n of w.nested) this.read(n.script, cmd, n.via, depth + 1, vars);
        for (const r of redirects)
          if (r.op === "<<<" || r.op.startsWith("<<")) {
            if (SHELLS.has(cmd.name) || CODE_INTERPRETER.test(cmd.name))
              this.read(r.target, cmd, "heredoc", depth + 1, vars);
            // an unquoted heredoc expands $(...) and backticks when the command runs
            else if (r.op !== "<<<" && r.literal !== true)
              for (const sub of substitutions(r.target)) this.read(sub, cmd, "subst", depth + 1, vars);
          }
        this.writtenFiles(cmd, depth);
        this.nested(cmd, depth, vars);
      }
      words = [];
      redirects = [];
      if (op !== "|" && op !== "|&") {
        this.stdinScripts(pipeline, depth, vars);
        pipeline = [];
      }
    };
    for (;;) {
      const t = lx.next();
      if (t === undefined) break;
      if (t.kind === "op") {
        skipClause = false;
        finish(t.op);
        continue;
      }
      if (t.kind === "redir") {
        const target = lx.next();
        const r: Redirect = { op: t.op, target: target?.kind === "word" ? target.word.value : "" };
        if (target?.kind === "word" && target.word.nested !== undefined)
          for (const n of target.word.nested) this.read(n.script, undefined, n.via, depth + 1, vars);
        if (t.op === "<<" || t.op === "<<-") {
          if (target?.kind === "word" && target.word.quoted) r.literal = true;
          lx.pendingHeredocs.push({ delim: r.target, strip: t.op === "<<-", redirect: r });
        }
        redirects.push(r);
        continue;
      }
      if (skipClause) continue;
      if (words.length === 0 && !t.word.quoted && KEYWORDS.has(t.word.value)) continue;
      if (words.length === 0 && !t.word.quoted && SKIP_CLAUSE.has(t.word.value)) {
        skipClause = true;
        continue;
      }
      words.push(t.word);
    }
    finish(undefined);
    this.errors.push(...lx.errors);
  }

  /**
   * Files a command writes whose content runs later (a Makefile, package.json scripts, a git hook,
   * a shell script): `cat > Makefile <<EOF`, `echo '{...}' > package.json`, `printf ... | tee x.sh`.
   */
  private writtenFiles(cmd: SimpleCommand, depth: number): void {
    const targets = cmd.redirects
      .filter((r) => r.op === ">" || r.op === ">>" || r.op === ">|" || r.op === "&>" || r.op === "&>>")
      .map((r) => r.target);
    if (cmd.name === "tee") targets.push(...cmd.args.filter((a) => !a.startsWith("-")));
    if (targets.length === 0 || !targets.some((t) => runnableFile(t) !== undefined)) return;
    let content: string | undefined;
    const body = cmd.redirects.find((r) => r.op === "<<" || r.op === "<<-" || r.op === "<<<");
    if (body !== undefined) content = body.target;
    else if (cmd.name === "echo") {
      const words = cmd.args.filter((a) => !/^-[neE]+$/.test(a));
      content = cmd.args.some((a) => /^-[nE]*e[nE]*$/.test(a)) ? decodeAnsiC(words.join(" ")) : words.join(" ");
    } else if (cmd.name === "printf") content = decodeAnsiC(cmd.args.filter((a) => !a.startsWith("-")).join(" "));
    else if (cmd.pipeline.length > 1 && cmd.index > 0) {
      const src = cmd.pipeline[cmd.index - 1];
      if (src !== undefined && (src.name === "echo" || src.name === "printf"))
        content = decodeAnsiC(src.args.filter((a) => !/^-[neE]+$/.test(a)).join(" "));
    }
    if (content === undefined) return;
    for (const t of targets) this.readFile(t, content, cmd, depth + 1);
  }

  /** Reads a file's content as what will run from it (by its name or shebang); nothing for data files. */
  readFile(path: string, content: string, parent: SimpleCommand | undefined, depth: number): void {
    const kind = runnableFile(path) ?? (/^#!.*\b(sh|bash|zsh|dash|ksh)\b/.test(content) ? "shell" : undefined);
    if (kind === "shell") this.read(content, parent, "file", depth);
    else if (kind === "make") this.read(makeRecipes(content), parent, "file", depth);
    else if (kind === "package") for (const script of packageScripts(content)) this.read(script, parent, "file", depth);
    else if (kind === "code") this.readCode(content, parent, depth);
    else if (kind === "sql") this.read(sqlShellLines(content), parent, "file", depth);
  }

  /** `echo CMD | sh`, `printf ... | bash`, `cat <<EOF | sh`: what feeds a shell's stdin is a script. */
  private stdinScripts(pipeline: SimpleCommand[], depth: number, vars: Map<string, string>): void {
    if (pipeline.length < 2) return;
    const shellAt = pipeline.findIndex((c, k) => k > 0 && SHELLS.has(c.name) && c.args.every((a) => a.startsWith("-")));
    if (shellAt < 0) return;
    const sh = pipeline[shellAt];
    for (const c of pipeline.slice(0, shellAt)) {
      if (c.name === "echo" || c.name === "printf") {
        const words = c.args.filter((a) => !/^-[neE]+$/.test(a));
        this.read(c.name === "printf" ? decodeAnsiC(words.join(" ")) : words.join(" "), sh, "heredoc", depth + 1, vars);
      }
      for (const r of c.redirects) if (r.op.startsWith("<<")) this.read(r.target, sh, "heredoc", depth + 1, vars);
    }
  }

  /** Commands hidden inside arguments: sh -c, eval, su -c, find -exec, interpreter code. */
  private nested(cmd: SimpleCommand, depth: number, vars: Map<string, string>): void {
    const { name, args } = cmd;
    if (SHELLS.has(name)) {
      const ci = args.findIndex((a) => /^-[a-z]*c[a-z]*$/i.test(a));
      if (ci >= 0 && args[ci + 1] !== undefined) this.read(args[ci + 1] ?? "", cmd, "shell-c", depth + 1, vars);
    } else if (name === "eval" || name === "source" || name === ".") {
      if (name === "eval") this.read(args.join(" "), cmd, "eval", depth + 1, vars);
    } else if (name === "su" || name === "sg" || name === "script") {
      const ci = args.findIndex((a) => a === "-c" || a === "--command");
      if (ci >= 0 && args[ci + 1] !== undefined) this.read(args[ci + 1] ?? "", cmd, "shell-c", depth + 1, vars);
    } else if (name === "find" || name === "fd") {
      for (let k = 0; k < args.length; k++) {
        if (/^-(exec|execdir|ok|okdir|x|X)$/.test(args[k] ?? "") || args[k] === "--exec") {
          const end = args.findIndex((a, j) => j > k && (a === ";" || a === "+" || a === "\\;"));
          // -exec takes argv words as they are (no re-parsing), so keep their boundaries
          this.read(
            args
              .slice(k + 1, end < 0 ? undefined : end)
              .map(quoteWord)
              .join(" "),
            cmd,
            "exec",
            depth + 1,
            vars,
          );
        }
      }
    } else if (name === "ssh") {
      // ssh [opts] host command...: the first non-option word is the host
      let k = 0;
      while (k < args.length && (args[k] ?? "").startsWith("-"))
        k += /^-[bcDEeFIiJLlmOoPpRSWw]$/.test(args[k] ?? "") ? 2 : 1;
      if (args.length > k + 1) this.read(args.slice(k + 1).join(" "), cmd, "remote", depth + 1, vars);
    } else if (CODE_INTERPRETER.test(name)) {
      const ci = args.findIndex((a) => CODE_FLAGS.has(a.toLowerCase()));
      const code = ci >= 0 ? args[ci + 1] : name.endsWith("awk") ? args.find((a) => !a.startsWith("-")) : undefined;
      if (code !== undefined) this.readCode(code, cmd, depth, vars);
    }
  }

  readCode(code: string, cmd: SimpleCommand | undefined, depth: number, vars?: Map<string, string>): void {
    for (const m of execAll(CODE_SHELL, code)) this.read(m[2] ?? "", cmd, "code", depth + 1, vars);
  }
}

type RunnableKind = "shell" | "make" | "package" | "code" | "sql";

/** What runs from a file with this name later: shell (scripts, rc files, git hooks), make, npm scripts, code. */
export function runnableFile(path: string): RunnableKind | undefined {
  if (/(^|\/)(GNUmakefile|[Mm]akefile|[^/]+\.mk)$/.test(path)) return "make";
  if (/(^|\/)package\.json$/.test(path)) return "package";
  if (
    /\.(sh|bash|zsh|ksh|command)$|(^|\/)\.(bashrc|zshrc|profile|bash_profile|bash_login|zprofile|zshenv|kshrc)$|(^|\/)\.git\/hooks\/|(^|\/)\.husky\/|(^|\/)(Dockerfile|Containerfile|Justfile|justfile|Taskfile|\.envrc)$/.test(
      path,
    )
  )
    return "shell";
  if (/\.(c?js|mjs|ts|mts|cts|jsx|tsx|py|rb|pl|php|lua|ps1)$/i.test(path)) return "code";
  if (/\.(sql|psql)$/i.test(path)) return "sql";
  return undefined;
}

/** The recipe lines of a Makefile (tab-indented; `@`, `-`, `+` prefixes dropped), one per line. */
function makeRecipes(content: string): string {
  const out: string[] = [];
  for (const line of content.split("\n")) {
    const m = /^\t+[@+-]*(.*)$/.exec(line);
    if (m !== null) out.push(m[1] ?? "");
    else {
      // `target: ; command` puts a recipe on the rule line
      const inline = /^[^\t#=][^=]*?:[^=]*?;(.*)$/.exec(line);
      if (inline !== null) out.push(inline[1] ?? "");
    }
  }
  return out.join("\n");
}

/** The `scripts` of a package.json (install hooks run on the next npm install). */
function packageScripts(json: string): string[] {
  try {
    const pkg: unknown = JSON.parse(json);
    const scripts = pkg !== null && typeof pkg === "object" ? (pkg as { scripts?: unknown }).scripts : undefined;
    if (scripts === null || typeof scripts !== "object") return [];
    return Object.values(scripts).filter((v): v is string => typeof v === "string");
  } catch {
    return [];
  }
}

/** The `$(...)` and backtick substitutions in a heredoc body (which expands them like double quotes). */
function substitutions(body: string): string[] {
  if (!body.includes("$(") && !body.includes("`")) return [];
  const out: string[] = [];
  const lx = new Lexer(body, new Map());
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === "\\") i++;
    else if (c === "$" && body[i + 1] === "(" && body[i + 2] !== "(") {
      const close = lx.matchParen(i + 2);
      out.push(body.slice(i + 2, close));
      i = close;
    } else if (c === "`") {
      let e = i + 1;
      while (e < body.length && body[e] !== "`") e += body[e] === "\\" ? 2 : 1;
      out.push(body.slice(i + 1, e).replace(/\\([`\\$])/g, "$1"));
      i = e;
    }
  }
  return out;
}

/** Reads a shell script into its simple commands (nested ones included). */
export function parseShell(script: string, opts: ShellOptions = {}): ParsedShell {
  const r = new ShellReader(opts);
  r.read(script, undefined, "top", 0);
  return r.result();
}

export function isShell(name: string): boolean {
  return SHELLS.has(name);
}

export function isCodeInterpreter(name: string): boolean {
  return CODE_INTERPRETER.test(name);
}
