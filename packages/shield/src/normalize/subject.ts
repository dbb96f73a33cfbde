/**
 * Turns a raw action into the normalized "subject" every policy rule and detector reads:
 * decoded text views, normalized paths with what the tool does to them, parsed shell commands,
 * URLs with their hosts, mail recipients. Bounded: oversized input is flagged, never skipped.
 */
import type { ManifestPolicy, NetworkPolicy, SessionMode } from "../types.js";
import { toolSpec, URL_KEYS, type PathOp, type ToolKind, type ToolSpec } from "../tools.js";
import { decodeEmbedded, type Encoding } from "./decode.js";
import { looksLikePath, nameableOnLinux, NAME_MAX, normalizePath, PATH_MAX, type PathBase } from "./paths.js";
import { ShellReader, type SimpleCommand } from "./shell.js";
import { readOnlyInlinePython } from "./execopts.js";
import { decodeHTML } from "entities";
import { execAll, normalizeText, urlDecode } from "./text.js";

export type Origin = "raw" | "url" | "tags" | Encoding;

export interface TextView {
  /** Argument path, e.g. `command`, `headers.Authorization`, `attachments[0].path`. */
  key: string;
  text: string;
  origin: Origin;
}

export interface PathRef {
  key: string;
  raw: string;
  path: string;
  /** `path` in lower case: detectors compare paths case-insensitively, many times over. */
  lower: string;
  /** Linux could name it (no longer than PATH_MAX, no name over NAME_MAX): else it matches no path rule. */
  nameable: boolean;
  op: PathOp;
  /** Where it came from: a path argument, a shell word, or free text. */
  from: "arg" | "command" | "text";
}

export interface UrlRef {
  key: string;
  raw: string;
  scheme: string;
  /** Lower-case host without brackets; IPv4 in dotted form when the URL parser normalized it. */
  host: string;
  port: string;
  /** The tool will contact it (http url, a network command), as opposed to a mere mention. */
  active: boolean;
  query: string;
}

export interface ResolvedContext {
  mode: SessionMode;
  subAgent: string | undefined;
  manifestPolicy: ManifestPolicy | undefined;
  network: NetworkPolicy | undefined;
  home: string;
  workspace: string;
  /** Extra directories nobody may touch (Palisade's data/config when moved). */
  protectedPaths: readonly string[];
  /** The tool's declared semantics block and its JSON Schema, when the caller has them. */
  toolSemantics?: unknown;
  toolSchema?: unknown;
  toolDescription?: string;
}

export interface Subject {
  tool: string;
  spec: ToolSpec;
  kind: ToolKind;
  args: Record<string, unknown>;
  /** Top-level string arguments, normalized (used by policy `args` regexes). */
  strings: Map<string, string>;
  views: TextView[];
  paths: PathRef[];
  commands: SimpleCommand[];
  shellErrors: string[];
  urls: UrlRef[];
  recipients: string[];
  outgoing: TextView[];
  modelFacing: TextView[];
  /** Keys whose raw text carried invisible/bidi/tag characters or homoglyphs. */
  unicodeTricks: string[];
  /** Limits that stopped analysis early (input too large, too deep, ...). */
  limits: string[];
  ctx: ResolvedContext;
  /** Filled lazily by detectors that share a derived list of views (one evaluation only). */
  derived: {
    /** Views that are not model-facing (injection detectors). */
    rest?: TextView[];
    /** Views in scan order, whether the action sends data out, and which views leave (secrets). */
    outgoing?: { views: TextView[]; leaves: boolean; out: Set<TextView> };
    /** Paths a credentials detector may care about (credentials.ts). */
    credentialPaths?: PathRef[];
  };
}

const MAX_STRINGS = 2_000;
const MAX_DEPTH = 12;
const MAX_TOTAL = 512 * 1024;
const MAX_VIEWS = 400;
const URL_RE = /\b([a-z][a-z0-9+.-]{1,15}):\/\/[^\s'"<>`\\)\]}]+/gi;
const NETWORK_CMDS = new Set(["nc", "ncat", "netcat", "telnet", "socat", "ssh", "scp", "sftp", "rsync", "ftp", "tftp"]);
const FRAGMENT =
  /`([^`\n]{3,400})`|(?:^|[\s:"'(])((?:sudo\s+)?(?:curl|wget|rm|bash|sh|zsh|nc|ncat|socat|chmod|chown|python3?|perl|dd|mkfs\S*|crontab|useradd|eval|base64|pkill|killall|scp|ssh)\s[^\n"'`]{1,300})/g;
const CONTENT_KEYS = new Set(["content", "contents", "text", "data"]);
const COMMAND_KEYS = new Set(["command", "cmd", "script", "shell", "commands"]);
const WRITE_CMDS = new Set([
  "cp",
  "mv",
  "ln",
  "install",
  "rsync",
  "scp",
  "tee",
  "dd",
  "touch",
  "mkdir",
  "chmod",
  "chown",
  "chattr",
  "truncate",
  "sed",
  "patch",
]);
const DELETE_CMDS = new Set(["rm", "rmdir", "shred", "unlink", "wipe", "srm"]);

function pathRef(key: string, raw: string, path: string, op: PathOp, from: PathRef["from"]): PathRef {
  return { key, raw, path, lower: path.toLowerCase(), nameable: nameableOnLinux(path), op, from };
}

export function parseUrl(raw: string, key: string, active: boolean): UrlRef | undefined {
  let s = raw.trim();
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) {
    if (/^\/\//.test(s)) s = `http:${s}`;
    else if (/^[a-z0-9.-]+(:\d+)?(\/|$)/i.test(s) && s.includes(".")) s = `http://${s}`;
    else return undefined;
  }
  // asked first because a thrown TypeError (with its stack trace) costs tens of µs, a check ~1
  if (URL.canParse(s)) {
    const u = new URL(s);
    const host = u.hostname
      .replace(/^\[|\]$/g, "")
      .toLowerCase()
      .replace(/\.$/, "");
    return {
      key,
      raw,
      scheme: u.protocol.replace(/:$/, "").toLowerCase(),
      host,
      port: u.port,
      active,
      query: `${u.pathname}${u.search}`,
    };
  }
  const m = /^([a-z][a-z0-9+.-]*):\/\/(?:[^@/]*@)?([^/:?#]*)(?::(\d+))?/i.exec(s);
  if (m === null) return undefined;
  return {
    key,
    raw,
    scheme: (m[1] ?? "").toLowerCase(),
    host: (m[2] ?? "").toLowerCase(),
    port: m[3] ?? "",
    active,
    query: "",
  };
}

function asRecord(v: unknown): Record<string, unknown> {
  if (v !== null && typeof v === "object" && !Array.isArray(v)) return v as Record<string, unknown>;
  if (typeof v === "string") {
    try {
      const parsed: unknown = JSON.parse(v);
      if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed))
        return parsed as Record<string, unknown>;
    } catch {
      /* not JSON: treat as one string argument */
    }
    return { input: v };
  }
  return v === undefined || v === null ? {} : { input: v };
}

export function buildSubject(tool: string, rawArgs: unknown, ctx: ResolvedContext): Subject {
  const spec = toolSpec(tool, ctx.toolSemantics, ctx.toolSchema, ctx.toolDescription);
  const args = asRecord(rawArgs);
  const base: PathBase = { home: ctx.home, workspace: ctx.workspace };
  const s: Subject = {
    tool,
    spec,
    kind: spec.kind,
    args,
    strings: new Map(),
    views: [],
    paths: [],
    commands: [],
    shellErrors: [],
    urls: [],
    recipients: [],
    outgoing: [],
    modelFacing: [],
    unicodeTricks: [],
    limits: [],
    ctx,
    derived: {},
  };
  let count = 0;
  let total = 0;
  const leaves: { key: string; top: string; value: string }[] = [];
  const walk = (v: unknown, key: string, top: string, depth: number): unknown => {
    if (depth > MAX_DEPTH) {
      s.limits.push(`arguments nested deeper than ${MAX_DEPTH}`);
      return null;
    }
    if (typeof v === "string") {
      if (++count > MAX_STRINGS) {
        if (count === MAX_STRINGS + 1) s.limits.push(`more than ${MAX_STRINGS} strings`);
        return v;
      }
      total += v.length;
      if (total > MAX_TOTAL) {
        if (total - v.length <= MAX_TOTAL) s.limits.push(`more than ${MAX_TOTAL} characters of arguments`);
        return v;
      }
      const n = normalizeText(v);
      if (n.suspicious) s.unicodeTricks.push(key);
      leaves.push({ key, top, value: n.text });
      if (n.hidden.length > 0) s.views.push({ key, text: n.hidden, origin: "tags" });
      return n.text;
    }
    if (Array.isArray(v)) return v.map((x, i) => walk(x, `${key}[${i}]`, top, depth + 1));
    if (v !== null && typeof v === "object") {
      const o: Record<string, unknown> = {};
      const keys = Object.keys(v);
      if (keys.length > 1) keys.sort();
      for (const k of keys)
        o[k] = walk((v as Record<string, unknown>)[k], key === "" ? k : `${key}.${k}`, top === "" ? k : top, depth + 1);
      return o;
    }
    return v;
  };
  walk(args, "", "", 0);

  // at most a handful of keys each: searching the spec's arrays beats building Sets every time
  const modelKeys = spec.modelFacing ?? [];
  const outKeys = spec.outgoing ?? [];
  const reader = new ShellReader({ home: ctx.home });
  const cwdRaw = typeof args["cwd"] === "string" ? args["cwd"] : undefined;
  const cwd = cwdRaw !== undefined ? normalizePath(cwdRaw, base) : undefined;

  for (const leaf of leaves) {
    const { key, top, value } = leaf;
    if (key === top) s.strings.set(key, value);
    const views: TextView[] = [{ key, text: value, origin: "raw" }];
    const ud = urlDecode(value);
    if (ud !== undefined) views.push({ key, text: normalizeText(ud).text, origin: "url" });
    for (let i = 0; i < views.length && s.views.length + views.length < MAX_VIEWS; i++) {
      const cur = views[i];
      if (cur === undefined || i > 6) break;
      for (const d of decodeEmbedded(cur.text))
        views.push({ key, text: normalizeText(d.text).text, origin: d.encoding });
    }
    if (s.views.length + views.length >= MAX_VIEWS && !s.limits.includes("too many decoded views"))
      s.limits.push("too many decoded views");
    s.views.push(...views);
    const isCommand = spec.commands?.includes(top) === true || (spec.kind === "third-party" && COMMAND_KEYS.has(top));
    if (isCommand) {
      reader.read(value, undefined, "top", 0);
      for (const v of views.slice(1)) reader.read(v.text, undefined, "decoded", 1);
    } else if (spec.kind === "file-write" && CONTENT_KEYS.has(top)) {
      // a script written now runs later: read it as one (multi-step attacks)
      const target = args[writtenKey(spec)];
      reader.readFile(typeof target === "string" ? target : "", value, undefined, 0);
    } else if (spec.kind !== "shell") {
      // decoded payloads that are shell commands matter wherever they hide
      for (const v of views.slice(1))
        if (/[|;&`$]|\b(sh|bash|curl|wget|rm|nc)\b/.test(v.text)) reader.read(v.text, undefined, "decoded", 1);
    }
    if (modelKeys.includes(top)) {
      s.modelFacing.push(...views);
      // commands quoted in a delegated task are what the other agent will run
      if (spec.kind === "spawn-agent" || spec.kind === "agent-message") {
        for (const v of views)
          for (const m of execAll(FRAGMENT, v.text)) reader.read(m[1] ?? m[2] ?? "", undefined, "text", 1);
      }
    }
    if (outKeys.includes(top)) s.outgoing.push(...views);
    // a tool that is not ours may send any of its arguments anywhere
    else if (spec.kind === "third-party" || spec.source === "inferred") s.outgoing.push(...views);

    // paths: the value as written and every decoded reading of it (a tool may decode it)
    const op = spec.paths[top];
    if (op !== undefined && (key === top || /^\w+\[\d+\]$/.test(key) || key.endsWith(".path"))) {
      for (const p of pathReadings(value))
        s.paths.push(pathRef(key, value, normalizePath(p, base, key === "cwd" ? undefined : cwd), op, "arg"));
    } else if (spec.kind === "third-party" && !value.includes("\n") && value.length < 4096) {
      for (const p of pathReadings(value))
        if (p.startsWith("/") || p.startsWith("~/"))
          s.paths.push(pathRef(key, value, normalizePath(p, base), "unknown", "arg"));
    } else if (spec.kind === "mail" && top === "attachments") {
      s.paths.push(pathRef(key, value, normalizePath(value, base), "read", "arg"));
    }
    // urls
    const active = spec.urls?.includes(top) === true || URL_KEYS.has(top);
    if (active) {
      const u = parseUrl(value, key, true);
      if (u !== undefined) s.urls.push(u);
    }
    for (const v of views) {
      if (!v.text.includes("://")) continue; // what URL_RE needs, found without a regex scan
      for (const m of execAll(URL_RE, v.text)) {
        if (active && v.origin === "raw" && m[0] === value) continue;
        const u = parseUrl(m[0], key, isCommand);
        if (u !== undefined) s.urls.push(u);
      }
    }
    if (spec.recipients?.includes(top) === true) {
      for (const r of value.split(/[,;\s]+/))
        if (r.includes("@")) s.recipients.push(r.replace(/^.*</, "").replace(/>.*$/, "").toLowerCase());
    }
  }

  const parsed = reader.result();
  s.commands = parsed.commands;
  s.shellErrors = parsed.errors;
  if (parsed.truncated) s.limits.push("shell nesting or command count limit reached");
  for (const c of s.commands) commandRefs(s, c, base, cwd);
  if (s.paths.some((p) => !p.nameable))
    s.limits.push(
      `a path longer than Linux allows (${PATH_MAX} characters, ${NAME_MAX} per name): it matches no path rule`,
    );
  return s;
}

function writtenKey(spec: ToolSpec): string {
  for (const [k, op] of Object.entries(spec.paths)) if (op === "write") return k;
  return "path";
}

const NO_PATH_ARGS = new Set([
  "echo",
  "printf",
  "which",
  "type",
  "sleep",
  "ping",
  "ping6",
  "date",
  "true",
  "false",
  "expr",
  "whoami",
  "uname",
  "hostname",
  "seq",
  "yes",
  "hash",
  "alias",
]);

function dirOf(p: string): string {
  const i = p.lastIndexOf("/");
  return i <= 0 ? "/" : p.slice(0, i);
}

/**
 * `ln [-s] TARGET... LINK|DIR`, `cp -l|-s`: a link makes its target reachable (and writable)
 * from where the link is, so each target is a written path. A symbolic link's relative target
 * is resolved against the link's directory, not the current one. Returns the target words.
 */
function linkRefs(s: Subject, c: SimpleCommand, base: PathBase, cwd: string | undefined): Set<string> | undefined {
  if (c.name !== "ln" && c.name !== "cp") return undefined;
  const opts = c.args.filter((a) => a.startsWith("-"));
  const symbolic = opts.some((a) => /^-[a-zA-Z]*s/.test(a) || a === "--symbolic" || a === "--symbolic-link");
  const hard = c.name === "ln" ? !symbolic : opts.some((a) => /^-[a-zA-Z]*l/.test(a) || a === "--link");
  if (!symbolic && !hard) return undefined;
  let dir: string | undefined;
  const positional: string[] = [];
  for (let i = 0; i < c.args.length; i++) {
    const a = c.args[i] ?? "";
    if (a === "-t" || a === "--target-directory") dir = c.args[++i];
    else if (a.startsWith("--target-directory=")) dir = a.slice(19);
    else if (!a.startsWith("-")) positional.push(a);
  }
  const here = cwd ?? base.workspace;
  let targets = positional;
  let linkDir = here;
  if (dir !== undefined) linkDir = normalizePath(dir, base, here);
  else if (positional.length >= 2) {
    const link = positional[positional.length - 1] ?? "";
    targets = positional.slice(0, -1);
    const at = normalizePath(link, base, here);
    linkDir = positional.length > 2 || link.endsWith("/") ? at : dirOf(at);
  }
  for (const t of targets) {
    const relative = !t.startsWith("/") && !t.startsWith("~") && !t.startsWith("$HOME");
    s.paths.push(
      pathRef("command", t, normalizePath(t, base, symbolic && relative ? linkDir : here), "write", "command"),
    );
  }
  return new Set(targets);
}

/** The words `echo ARGS` or `printf FORMAT ARGS` prints (printf's `%s`/`%b`/`%c` filled in order). */
function printedWords(c: SimpleCommand): string[] {
  const args = c.args.filter((a) => !/^-[neE]+$/.test(a));
  if (c.name === "echo" || args.length === 0) return args.flatMap((a) => a.split(/\s+/));
  const [format = "", ...rest] = args;
  let k = 0;
  const text = format.replace(/%[-0-9.]*([sbcdq%])/g, (_m, conv: string) => (conv === "%" ? "%" : (rest[k++] ?? "")));
  return [text, ...rest.slice(k)].flatMap((a) => a.split(/\s+/)).filter((w) => w !== "");
}

/** Paths and network destinations mentioned by one shell command. */
function commandRefs(s: Subject, c: SimpleCommand, base: PathBase, cwd: string | undefined): void {
  const writeLast =
    WRITE_CMDS.has(c.name) &&
    c.name !== "sed" &&
    c.name !== "chmod" &&
    c.name !== "chown" &&
    c.name !== "touch" &&
    c.name !== "mkdir";
  const exe = c.argv.find((a) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) ?? "";
  if (exe.includes("/") && !exe.startsWith("$("))
    s.paths.push(pathRef("command", exe, normalizePath(exe, base, cwd), "exec", "command"));
  // read-only inline Python: the files it opens are read paths like any other
  for (const r of readOnlyInlinePython(c) ?? [])
    s.paths.push(pathRef("command", r, normalizePath(r, base, cwd), "read", "command"));
  // printing or naming things is not opening files: `echo $HOME` reads nothing; but what echo or
  // printf prints inside `$(...)` or backticks becomes another command's words (`cat $(echo /etc/shadow)`)
  const printed = c.via === "subst" && (c.name === "echo" || c.name === "printf");
  const words = printed ? printedWords(c) : NO_PATH_ARGS.has(c.name) ? [] : c.args;
  const positional = words.filter((w) => !w.startsWith("-"));
  const last = positional[positional.length - 1];
  const linked = linkRefs(s, c, base, cwd);
  for (const w of words) {
    if (linked?.has(w) === true) continue;
    if (w.startsWith("-")) {
      // --output=FILE, -o/path, -d@file
      const m = /^(--?[A-Za-z-]+)=?(@?)([~/.$].*)$/.exec(w);
      if (m !== null && looksLikePath(m[3] ?? "")) {
        const op: PathOp =
          /^--?(o|out|output|output-file|output-document|outfile|log-file|logfile|target|dest|destination)$/.test(
            m[1] ?? "",
          )
            ? "write"
            : "read";
        s.paths.push(pathRef("command", w, normalizePath(m[3] ?? "", base, cwd), op, "command"));
      }
      continue;
    }
    const bare = w.startsWith("@") ? w.slice(1) : w;
    if (!looksLikePath(bare)) continue;
    let op: PathOp = "read";
    if (DELETE_CMDS.has(c.name)) op = "delete";
    else if (
      c.name === "tee" ||
      c.name === "touch" ||
      c.name === "mkdir" ||
      c.name === "chmod" ||
      c.name === "chown" ||
      c.name === "chattr" ||
      c.name === "truncate"
    )
      op = "write";
    else if (c.name === "sed" && words.some((x) => /^-[a-z]*i/.test(x) || x.startsWith("--in-place"))) op = "write";
    else if (c.name === "dd" && bare.startsWith("of=")) op = "write";
    else if (writeLast && w === last && positional.length > 1) op = "write";
    const p = bare.replace(/^(if|of)=/, "");
    s.paths.push(pathRef("command", w, normalizePath(p, base, cwd), op, "command"));
  }
  for (const w of words) {
    const m = /^(?:if|of)=(.+)$/.exec(w);
    if (m !== null)
      s.paths.push(
        pathRef("command", w, normalizePath(m[1] ?? "", base, cwd), w.startsWith("of=") ? "write" : "read", "command"),
      );
  }
  for (const r of c.redirects) {
    if (r.op.startsWith("<<") || /^\d+$/.test(r.target) || r.target === "-") continue;
    const op: PathOp = r.op.includes(">") ? "write" : "read";
    s.paths.push(pathRef("command", r.target, normalizePath(r.target, base, cwd), op, "command"));
  }
  if (NETWORK_CMDS.has(c.name)) {
    for (const w of words) {
      if (w.startsWith("-")) continue;
      const m =
        /^(?:[^@\s/]+@)?([A-Za-z0-9.-]+\.[A-Za-z0-9-]+|\d+\.\d+\.\d+\.\d+|localhost|\[[0-9a-f:]+\])(?::(\S*))?$/i.exec(
          w,
        );
      if (m !== null && !looksLikePath(w.split(":")[0] ?? "")) {
        const u = parseUrl(`tcp://${m[1] ?? ""}`, "command", true);
        if (u !== undefined) s.urls.push({ ...u, scheme: c.name, raw: w });
      }
    }
  }
}

/**
 * A path argument as written, then percent- and HTML-entity-decoded (repeatedly, both orders
 * covered by alternating): a tool or a layer in front of it may decode what the Shield reads.
 */
export function pathReadings(value: string): string[] {
  if (!value.includes("%") && !value.includes("&")) return [value];
  const out = [value];
  let cur = value;
  for (let i = 0; i < 4; i++) {
    const html = cur.includes("&") ? decodeHTML(cur) : cur;
    const next = normalizeText(urlDecode(html) ?? html).text;
    if (next === cur || out.includes(next)) break;
    out.push(next);
    cur = next;
  }
  return out;
}

/** Stable JSON of arguments with sorted keys and normalized strings: the cache key material. */
export function canonicalArgs(v: unknown, depth = 0): string {
  if (depth > 32) return "null";
  if (typeof v === "string") return JSON.stringify(normalizeText(v).text);
  if (Array.isArray(v)) return `[${v.map((x) => canonicalArgs(x, depth + 1)).join(",")}]`;
  if (v !== null && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalArgs(o[k], depth + 1)}`)
      .join(",")}}`;
  }
  return JSON.stringify(v) ?? "null";
}
