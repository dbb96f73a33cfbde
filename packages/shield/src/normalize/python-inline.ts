/**
 * Inline Python (`python3 -c CODE`) that can only read: print a field of `package.json`, count
 * lines of a CSV. Checked token by token, deny by default:
 * - imports only of modules that compute (json, re, csv, tomllib, collections, math, ...; `sys`
 *   for argv and the standard streams), never os, subprocess, socket, pathlib, importlib, ...;
 * - names: no dunder (`__import__`, `__class__`, `__builtins__`) and no builtin outside a short
 *   list (no eval, exec, compile, getattr, globals, vars, type, input, breakpoint, help, ...);
 *   other names must be bound in the code itself (assignment, `for`, `as`, `lambda`, keyword);
 * - attributes only from a list of harmless method and field names, never a dunder;
 * - `open(...)` only as a direct call with a plain string literal path and a read mode
 *   (`"r"`, `"rb"`, `"rt"`), whose path is returned so the caller checks it like any path;
 * - no f-strings (their braces are code), no `def`, `class`, `global`, `del`, `async`,
 *   `await`, `yield`, no line continuations, no `@`.
 * Anything it cannot read this way is not read-only code (the caller keeps asking).
 */

const SAFE_MODULES = new Set([
  "json",
  "sys",
  "re",
  "csv",
  "tomllib",
  "collections",
  "itertools",
  "functools",
  "statistics",
  "string",
  "textwrap",
  "datetime",
  "decimal",
  "fractions",
  "math",
  "operator",
  "hashlib",
  "base64",
  "pprint",
]);

const SAFE_BUILTINS = new Set(
  (
    "print len sorted reversed list dict set frozenset tuple str int float bool bytes sum min max abs round " +
    "enumerate zip range map filter any all repr isinstance hex oct bin ord chr divmod pow iter next slice " +
    "Exception ValueError KeyError IndexError TypeError StopIteration open"
  ).split(" "),
);

/** Python 3 builtins (3.11) outside SAFE_BUILTINS: never allowed, even when rebound. */
const UNSAFE_BUILTINS = new Set(
  (
    "aiter anext ascii breakpoint bytearray callable classmethod compile complex copyright credits delattr dir " +
    "eval exec exit format getattr globals hasattr hash help id input issubclass license locals memoryview " +
    "object property quit setattr staticmethod super type vars BaseException BaseExceptionGroup SystemExit " +
    "KeyboardInterrupt GeneratorExit Ellipsis NotImplemented"
  ).split(" "),
);

const ALLOWED_KEYWORDS = new Set(
  (
    "import from as for in if else elif not and or is None True False lambda with while break continue " +
    "pass try except finally assert return"
  ).split(" "),
);
const DENIED_KEYWORDS = new Set("def class global nonlocal del yield async await raise exec".split(" "));

const SAFE_ATTRS = new Set(
  // json, tomllib, csv, re, sys
  (
    "load loads dumps dump reader DictReader writer writerow writerows fieldnames match search findall " +
    "finditer sub subn split fullmatch compile group groups groupdict start end span IGNORECASE MULTILINE " +
    "DOTALL I M S argv stdin stdout stderr version version_info maxsize byteorder " +
    // str, bytes, list, dict, set
    "get keys values items rsplit splitlines strip lstrip rstrip join lower upper title casefold capitalize " +
    "replace startswith endswith find rfind index rindex count encode decode append extend insert sort copy " +
    "pop setdefault update partition rpartition isdigit isalpha isalnum isspace islower isupper zfill center " +
    "ljust rjust expandtabs add union intersection difference issubset issuperset " +
    // files opened for reading, the standard streams
    "read readline readlines close write flush " +
    // collections, itertools, functools, statistics, math, datetime, hashlib, base64, pprint
    "Counter defaultdict OrderedDict deque most_common chain groupby islice reduce mean median mode stdev " +
    "sqrt floor ceil log log2 log10 pi inf isclose fsum datetime date time timedelta timezone now today " +
    "utcnow fromisoformat isoformat strftime strptime fromtimestamp timestamp year month day hour minute " +
    "second sha256 sha1 md5 hexdigest digest b64encode b64decode urlsafe_b64encode urlsafe_b64decode pprint " +
    "pformat itemgetter attrgetter ascii_letters digits"
  ).split(" "),
);

type Tok = { t: "name" | "str" | "num" | "op" | "nl"; v: string };

/** Python tokens, or undefined for what this reader does not accept (f-strings, `\`, `@`, `$`...). */
function tokenize(code: string): Tok[] | undefined {
  const out: Tok[] = [];
  let i = 0;
  while (i < code.length) {
    const c = code[i] ?? "";
    if (c === "\n" || c === ";") {
      out.push({ t: "nl", v: c });
      i++;
    } else if (c === " " || c === "\t" || c === "\r") i++;
    else if (c === "#") {
      while (i < code.length && code[i] !== "\n") i++;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(code.slice(i, i + 256));
      const word = m?.[0] ?? c;
      const q = code[i + word.length];
      if ((q === "'" || q === '"') && /^[rRbBuU]{1,2}$/.test(word)) {
        const s = readString(code, i + word.length, /[rR]/.test(word));
        if (s === undefined) return undefined;
        out.push({ t: "str", v: s.value });
        i = s.end;
      } else if (q === "'" || q === '"')
        return undefined; // f"", other prefixes
      else {
        out.push({ t: "name", v: word });
        i += word.length;
      }
    } else if (c === "'" || c === '"') {
      const s = readString(code, i, false);
      if (s === undefined) return undefined;
      out.push({ t: "str", v: s.value });
      i = s.end;
    } else if (/[0-9]/.test(c)) {
      const m = /^[0-9][0-9a-fA-FxXoObB_.]*(?:[eE][+-]?[0-9]+)?[jJ]?/.exec(code.slice(i, i + 64));
      out.push({ t: "num", v: m?.[0] ?? c });
      i += m?.[0].length ?? 1;
    } else if ("()[]{},:.=+-*/%<>!&|^~".includes(c)) {
      const two = code.slice(i, i + 2);
      const op = /^(==|!=|<=|>=|\*\*|\/\/|\+=|-=|\*=|\/=|%=|->|<<|>>)$/.test(two) ? two : c;
      out.push({ t: "op", v: op });
      i += op.length;
    } else return undefined;
  }
  return out;
}

function readString(code: string, at: number, raw: boolean): { value: string; end: number } | undefined {
  const q = code[at] ?? "";
  const triple = code.slice(at, at + 3) === q.repeat(3);
  const close = triple ? q.repeat(3) : q;
  let i = at + close.length;
  let value = "";
  while (i < code.length) {
    if (code.startsWith(close, i)) return { value, end: i + close.length };
    const c = code[i] ?? "";
    if (c === "\n" && !triple) return undefined;
    if (c === "\\") {
      if (raw) value += c + (code[i + 1] ?? "");
      else value += `\\${code[i + 1] ?? ""}`;
      i += 2;
      continue;
    }
    value += c;
    i++;
  }
  return undefined;
}

const READ_MODES = new Set(["r", "rb", "rt", "br", "tr"]);
const OPEN_KWARGS = new Set(["encoding", "errors", "newline", "mode"]);

/** `open(...)` at index i (the name): the path it reads, or undefined when it is not a plain read. */
function openCall(toks: readonly Tok[], i: number): { path: string; end: number } | undefined {
  if (toks[i + 1]?.v !== "(" || toks[i + 2]?.t !== "str") return undefined;
  const path = toks[i + 2]?.v ?? "";
  if (path === "" || path.includes("\\")) return undefined;
  let j = i + 3;
  let positional = 1;
  while (toks[j]?.v === ",") {
    const a = toks[j + 1];
    if (a?.t === "str" && positional === 1) {
      if (!READ_MODES.has(a.v)) return undefined;
      positional++;
      j += 2;
    } else if (a?.t === "name" && OPEN_KWARGS.has(a.v) && toks[j + 2]?.v === "=" && toks[j + 3]?.t === "str") {
      if (a.v === "mode" && !READ_MODES.has(toks[j + 3]?.v ?? "")) return undefined;
      j += 4;
    } else return undefined;
  }
  return toks[j]?.v === ")" ? { path, end: j } : undefined;
}

/** The names the code binds: assignment and `for`/`as`/`lambda` targets, keyword arguments. */
function boundNames(toks: readonly Tok[]): Set<string> {
  const bound = new Set<string>();
  toks.forEach((k, i) => {
    if (k.t !== "name") return;
    const next = toks[i + 1]?.v;
    const prev = toks[i - 1]?.v;
    if (next === "=" || next === "+=" || next === "-=" || next === "*=" || next === "/=" || next === "%=")
      bound.add(k.v);
    else if (prev === "as" || prev === "for" || prev === "lambda") bound.add(k.v);
    else if (prev === "," && /^(for|lambda)$/.test(lastKeyword(toks, i))) bound.add(k.v);
  });
  return bound;
}

/** The nearest `for`/`lambda`/`in`/`:` before i on the same statement (for `for a, b in`, `lambda a, b:`). */
function lastKeyword(toks: readonly Tok[], i: number): string {
  for (let j = i - 1; j >= 0; j--) {
    const v = toks[j]?.v ?? "";
    if (v === "for" || v === "lambda" || v === "in" || v === ":" || toks[j]?.t === "nl") return v;
  }
  return "";
}

/** The paths read-only inline code opens, or undefined when it is not read-only code. */
export function readOnlyPython(code: string): { reads: string[] } | undefined {
  if (code.length > 4000) return undefined;
  const toks = tokenize(code);
  if (toks === undefined || toks.length === 0) return undefined;
  const bound = boundNames(toks);
  const modules = new Set<string>();
  const reads: string[] = [];
  let stmtStart = true;
  for (let i = 0; i < toks.length; i++) {
    const k = toks[i];
    if (k === undefined) break;
    if (k.t === "nl") {
      stmtStart = true;
      continue;
    }
    const atStart = stmtStart;
    stmtStart = false;
    if (k.t !== "name") continue;
    const v = k.v;
    if (/^__|__$/.test(v) || DENIED_KEYWORDS.has(v) || UNSAFE_BUILTINS.has(v)) return undefined;
    if (v === "import" || v === "from") {
      if (!atStart) return undefined;
      const end = toks.findIndex((t, j) => j > i && t.t === "nl");
      const stmt = toks.slice(i, end < 0 ? undefined : end);
      const names = importNames(stmt);
      if (names === undefined) return undefined;
      for (const n of names) modules.add(n);
      i += stmt.length - 1;
      continue;
    }
    if (toks[i - 1]?.v === ".") {
      if (!SAFE_ATTRS.has(v)) return undefined;
      continue;
    }
    if (v === "open") {
      const call = openCall(toks, i);
      if (call === undefined) return undefined;
      reads.push(call.path);
      i = call.end;
      continue;
    }
    if (ALLOWED_KEYWORDS.has(v) || SAFE_BUILTINS.has(v) || modules.has(v) || bound.has(v)) continue;
    return undefined;
  }
  return { reads };
}

/** `import a, b as c` / `from m import x, y as z`: the names bound, or undefined if a module or name is not allowed. */
function importNames(stmt: readonly Tok[]): string[] | undefined {
  const words = stmt.map((t) => t.v);
  if (words[0] === "import") {
    const out: string[] = [];
    for (const part of words.slice(1).join(" ").split(",")) {
      const m = /^\s*([A-Za-z_]\w*)(?:\s+as\s+([A-Za-z_]\w*))?\s*$/.exec(part);
      if (m === null || !SAFE_MODULES.has(m[1] ?? "")) return undefined;
      out.push(m[2] ?? m[1] ?? "");
    }
    return out;
  }
  const m = /^from ([A-Za-z_]\w*) import (.+)$/.exec(words.join(" "));
  if (m === null || !SAFE_MODULES.has(m[1] ?? "")) return undefined;
  const out: string[] = [];
  for (const part of (m[2] ?? "").split(",")) {
    const n = /^\s*([A-Za-z_]\w*)(?:\s+as\s+([A-Za-z_]\w*))?\s*$/.exec(part);
    if (n === null || !SAFE_ATTRS.has(n[1] ?? "")) return undefined;
    out.push(n[2] ?? n[1] ?? "");
  }
  return out;
}
