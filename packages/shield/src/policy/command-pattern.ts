/**
 * Command patterns of policy rules, matched against one simple command (`name` and its `args`).
 *
 * A pattern is words separated by spaces. In a word, `*` is any run of characters and `?` one
 * character, both **within one argument**; `{a,b}` is either alternative. A word `**` is any number
 * of further arguments (none included), and a word ending in `...` one or more arguments, each
 * matching the word (`rm -rf {dist,coverage}...`). A `*` glued to the end of the program word
 * (`ps*`, `npx tsc*`) means "then any arguments", so `ps*` matches `ps aux` but never `psql`.
 *
 * Allow rules use the per-argument reading, so `rm -f coverage/*` never covers
 * `rm -f coverage/x src/main.ts`, and a wildcard never matches an argument holding a `..` path
 * segment (`coverage/../src/main.ts`). Ask and block rules keep reading `*` as any run across
 * arguments, so writing a pattern more narrowly never lets through what a stop rule meant to catch.
 * Both readings run in linear time: patterns are the user's, the commands the model's.
 */
import { RE2JS } from "re2js";

/** Programs whose next word names the program they run (`npx tsc`, `npm exec vitest`). */
const RUNNERS = /^(npx|bunx|pnpx|(npm|pnpm|yarn|bun) (exec|dlx|x))$/;

interface WordTest {
  literal: string | undefined;
  re: RE2JS | undefined;
}

type Token = { kind: "one" | "many"; test: WordTest } | { kind: "rest" };

export interface CommandMatcher {
  test(name: string, args: readonly string[]): boolean;
}

/** What is wrong with a pattern, or undefined. */
export function validateCommandPattern(p: string): string | undefined {
  if (p.trim() === "") return "empty pattern";
  if (p.length > 500) return "pattern longer than 500 characters";
  if (/[\n\0]/.test(p)) return "control character in pattern";
  for (const w of p.split(" ")) {
    let depth = 0;
    for (const ch of w) {
      if (ch === "{") depth++;
      else if (ch === "}") depth--;
      if (depth < 0 || depth > 1) return `unbalanced or nested { } in "${w}" (write {a,b} for alternatives)`;
    }
    if (depth !== 0) return `unbalanced { } in "${w}" (write {a,b} for alternatives)`;
    if (w.endsWith("...") && (w === "..." || w.slice(0, -3).endsWith("...")))
      return `"${w}": "..." repeats the word before it (e.g. {dist,build}...)`;
  }
  return undefined;
}

/** The regex source of one word's glob; `any` is what `*` stands for. */
function globSource(word: string, any: string): string {
  let src = "";
  for (const c of word) {
    if (c === "*") src += any;
    else if (c === "?") src += ".";
    else if (c === "{") src += "(?:";
    else if (c === "}") src += ")";
    else if (c === ",") src += "|";
    else src += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return src;
}

/** `,` is only an alternative separator inside braces; outside it is a literal. */
function escapeOuterCommas(word: string): string {
  let depth = 0;
  let out = "";
  for (const c of word) {
    if (c === "{") depth++;
    else if (c === "}") depth--;
    out += c === "," && depth === 0 ? "\u0000" : c;
  }
  return out;
}

function wordSource(word: string, any: string): string {
  return globSource(escapeOuterCommas(word), any).split("\u0000").join(",");
}

function wordTest(word: string): WordTest {
  if (!/[*?{]/.test(word)) return { literal: word, re: undefined };
  return { literal: undefined, re: RE2JS.compile(`^(?:${wordSource(word, ".*")})$`, RE2JS.DOTALL) };
}

const DOT_DOT = /(^|\/)\.\.(\/|$)/;

function wordMatches(t: WordTest, arg: string): boolean {
  if (t.literal !== undefined) return t.literal === arg;
  return t.re !== undefined && !DOT_DOT.test(arg) && t.re.test(arg);
}

/** How many leading words name the program (`npx tsc`: 2, `npm exec tsc`: 3). */
function programWords(words: readonly string[]): number {
  if (RUNNERS.test(words[0] ?? "")) return 2;
  if (RUNNERS.test(words.slice(0, 2).join(" "))) return 3;
  return 1;
}

function tokens(pattern: string): Token[] {
  const words = pattern.split(" ").filter((w) => w !== "");
  const program = programWords(words);
  const out: Token[] = [];
  words.forEach((w, i) => {
    if (i < program && /^[^*?{]+\*$/.test(w)) {
      out.push({ kind: "one", test: wordTest(w.slice(0, -1)) }, { kind: "rest" });
    } else if (w === "**") out.push({ kind: "rest" });
    else if (w.endsWith("...") && w.length > 3) out.push({ kind: "many", test: wordTest(w.slice(0, -3)) });
    else out.push({ kind: "one", test: wordTest(w) });
  });
  return out;
}

/** The pattern's tokens against the words: the positions reachable after each token, in one pass per token. */
function tokensMatch(toks: readonly Token[], words: readonly string[]): boolean {
  const n = words.length;
  let at = new Uint8Array(n + 1);
  at[0] = 1;
  for (const t of toks) {
    const next = new Uint8Array(n + 1);
    let any = false;
    if (t.kind === "rest") {
      const from = at.indexOf(1);
      if (from >= 0) {
        next.fill(1, from);
        any = true;
      }
    } else {
      for (let j = 0; j < n; j++) {
        const from = at[j] === 1 || (t.kind === "many" && next[j] === 1);
        if (from && wordMatches(t.test, words[j] ?? "")) {
          next[j + 1] = 1;
          any = true;
        }
      }
    }
    if (!any) return false;
    at = next;
  }
  return at[n] === 1;
}

/** Allow rules: every word of the pattern against whole arguments. */
function perArgument(patterns: readonly string[]): CommandMatcher {
  const byProgram = new Map<string, Token[][]>();
  const open: Token[][] = [];
  for (const p of patterns) {
    const toks = tokens(p);
    const first = toks[0];
    if (first?.kind === "one" && first.test.literal !== undefined) {
      const list = byProgram.get(first.test.literal) ?? [];
      list.push(toks);
      byProgram.set(first.test.literal, list);
    } else open.push(toks);
  }
  return {
    test(name, args) {
      const words = [name, ...args];
      const candidates = byProgram.get(name);
      if (candidates?.some((t) => tokensMatch(t, words)) === true) return true;
      return open.some((t) => tokensMatch(t, words));
    },
  };
}

/** Ask and block rules: one anchored regex over `name arg1 arg2 ...`, `*` any run. */
function wholeLine(patterns: readonly string[]): CommandMatcher {
  const source = (pattern: string): string => {
    const words = pattern.split(" ");
    const program = programWords(words);
    let src = "";
    words.forEach((w, i) => {
      const sep = i === 0 ? "" : " ";
      if (i < program && /^[^*?{]+\*$/.test(w)) src += `${sep}${wordSource(w.slice(0, -1), ".*")}(?: .*)?`;
      else if (w === "**") src += "(?: .*)?";
      else if (w.endsWith("...") && w.length > 3) {
        const one = wordSource(w.slice(0, -3), ".*");
        src += `${sep}(?:${one})(?: (?:${one}))*`;
      } else src += `${sep}${wordSource(w, ".*")}`;
    });
    return src;
  };
  const re = RE2JS.compile(`^(?:${patterns.map(source).join("|")})$`, RE2JS.DOTALL);
  return { test: (name, args) => re.test(args.length === 0 ? name : `${name} ${args.join(" ")}`) };
}

const cache = new WeakMap<readonly string[], { allow?: CommandMatcher; stop?: CommandMatcher }>();

/** The matcher for a rule's whole `commands` list, per-argument for allow rules. */
export function commandsMatcher(patterns: readonly string[], allow: boolean): CommandMatcher {
  let entry = cache.get(patterns);
  if (entry === undefined) {
    entry = {};
    cache.set(patterns, entry);
  }
  if (allow) return (entry.allow ??= perArgument(patterns));
  return (entry.stop ??= wholeLine(patterns));
}
