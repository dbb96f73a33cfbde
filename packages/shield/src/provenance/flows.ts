/**
 * Argument provenance for one proposed call: each argument value in each role, and which parts of
 * it occur in labelled content of the session but not in the user's own messages. Values are
 * compared after the Shield's normalizations (Unicode, case, percent/base64/hex decoding, URL
 * parts, hosts, addresses, account-like tokens, numbers, paths); secret values are also looked
 * for inside encoded, split or assembled values (a URL path, a subdomain, a command line).
 */
import type { Subject } from "../normalize/subject.js";
import { decodeEmbedded } from "../normalize/decode.js";
import { urlDecode } from "../normalize/text.js";
import { amountKey, fragmentsOf, urlLiteral } from "./fragments.js";
import { installedPackages } from "./packages.js";
import { rolesOf } from "./roles.js";
import type { ArgValue, Label, Origin, ProvenanceView, Role } from "./types.js";

const MAX_VALUES = 64;
const MAX_VALUE_CHARS = 64 * 1024;
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]{1,15}:\/\/[^\s'"<>`\\)\]}]{1,2048}/gi;

class Collector {
  readonly values: ArgValue[] = [];
  constructor(private readonly view: ProvenanceView) {}

  /** `whole`: the value decides as a whole (an address, a host); else by its parts. */
  push(key: string, role: Role, value: string, parts: Iterable<string>, whole: boolean, searchSecrets: string[]): void {
    if (this.values.length >= MAX_VALUES) return;
    const origins = new Set<Origin>();
    const sources: { part: string; label: Label }[] = [];
    const note = (part: string, label: Label): void => {
      origins.add(label.trust);
      if (!sources.some((s) => s.label === label)) sources.push({ part, label });
    };
    const norm = value.toLowerCase();
    if (this.view.fromUser(norm)) origins.add("user");
    else {
      const l = this.view.label(norm);
      if (l !== undefined) note(norm, l);
      else if (!whole) {
        for (const p of parts) {
          if (this.view.fromUser(p)) origins.add("user");
          else {
            const pl = this.view.label(p);
            if (pl !== undefined) note(p, pl);
          }
        }
      }
    }
    // secret values leave in any form: embedded, encoded, split over segments or labels
    for (const [secret, label] of this.view.secrets()) {
      if (this.view.fromUser(secret)) continue;
      if (searchSecrets.some((t) => t.includes(secret))) note(secret, label);
    }
    if (origins.size === 0) origins.add("model");
    this.values.push({ key, role, value, origins, sources });
  }
}

function b64url(s: string): string | undefined {
  if (!/^[A-Za-z0-9_-]{6,}={0,2}$/.test(s)) return undefined;
  const t = Buffer.from(s, "base64url").toString("utf8");
  return /^[\x20-\x7e]+$/.test(t) ? t : undefined;
}

/** Readings of a value a secret may hide in. */
function readings(v: string): string[] {
  const out = [v.toLowerCase()];
  const ud = urlDecode(v);
  if (ud !== undefined) out.push(ud.toLowerCase());
  for (const d of decodeEmbedded(v)) out.push(d.text.toLowerCase());
  return out;
}

/** Readings of a URL: its host labels and path segments, alone, joined, and base64url-decoded. */
function urlReadings(u: URL): string[] {
  const labels = u.hostname.split(".");
  const segs = u.pathname.split("/").filter((s) => s.length > 0);
  const query = [...u.searchParams.values()];
  const out = [labels.join(""), segs.join(""), ...query.map((q) => q.toLowerCase())];
  for (const piece of [...labels, ...segs, ...query, labels.slice(0, -2).join(""), segs.join("")]) {
    const d = b64url(piece);
    if (d !== undefined) out.push(d.toLowerCase());
    const ud = urlDecode(piece);
    if (ud !== undefined) out.push(ud.toLowerCase());
    for (const e of decodeEmbedded(piece)) out.push(e.text.toLowerCase());
  }
  return out.map((s) => s.toLowerCase());
}

/**
 * A URL argument: its host (or the link as written) and its path and query. `embedded`: a URL
 * inside a body, command or task is one `link` value (where the link points), not a destination
 * of this call.
 */
function pushUrl(c: Collector, view: ProvenanceView, key: string, raw: string, embedded = false): boolean {
  const s = raw.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(s) ? s : `http://${s}`;
  if (!URL.canParse(withScheme)) return false;
  const u = new URL(withScheme);
  const host = u.hostname.toLowerCase();
  const secretViews = [...readings(s), ...urlReadings(u)];
  const literal = urlLiteral(withScheme);
  const copied =
    view.fromUser(literal) ||
    view.label(literal) !== undefined ||
    view.fromUser(urlLiteral(s)) ||
    view.label(urlLiteral(s)) !== undefined;
  if (copied) {
    // a link used as it was written: one value, from where it was written, carrying nothing else
    c.push(
      key,
      embedded ? "link" : "host",
      view.fromUser(literal) || view.fromUser(urlLiteral(s))
        ? literal
        : view.label(literal) !== undefined
          ? literal
          : urlLiteral(s),
      [],
      true,
      secretViews,
    );
    return true;
  }
  c.push(key, embedded ? "link" : "host", host, [], true, secretViews);
  if (embedded) return true;
  const rest = `${u.pathname}${u.search}`;
  if (rest !== "/" && rest !== "") {
    const parts = new Set<string>();
    for (const seg of u.pathname.split("/")) if (seg.length >= 4) parts.add((urlDecode(seg) ?? seg).toLowerCase());
    for (const v of u.searchParams.values()) if (v.length >= 4) parts.add(v.toLowerCase());
    for (const f of fragmentsOf(rest)) parts.add(f);
    for (const p of [...parts]) {
      const d = b64url(p);
      if (d !== undefined) for (const f of fragmentsOf(d)) parts.add(f);
    }
    c.push(key, "url-path", rest, parts, false, secretViews);
  }
  return true;
}

function pushText(c: Collector, view: ProvenanceView, key: string, role: Role, value: string): void {
  const v = value.length > MAX_VALUE_CHARS ? value.slice(0, MAX_VALUE_CHARS) : value;
  // plain words are everywhere: only addresses, hosts, URLs, tokens, numbers and paths count
  const parts = fragmentsOf(v);
  c.push(key, role, v, parts, false, readings(v));
  if (role === "command" || role === "task" || role === "body") {
    for (const m of v.matchAll(URL_IN_TEXT)) pushUrl(c, view, key, m[0], true);
  }
}

function leaves(v: unknown, out: (string | number)[], depth = 0): void {
  if (depth > 6 || out.length > MAX_VALUES) return;
  if (typeof v === "string" || typeof v === "number") out.push(v);
  else if (Array.isArray(v)) for (const x of v) leaves(x, out, depth + 1);
  else if (v !== null && typeof v === "object") for (const x of Object.values(v)) leaves(x, out, depth + 1);
}

/** A name the user wrote as a word (short names are not kept as fragments). */
function userWrote(view: ProvenanceView, name: string): boolean {
  if (view.fromUser(name)) return true;
  const esc = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const re = new RegExp(`(?:^|[^\\w@/-])${esc}(?:$|[^\\w/-])`, "i");
  return view.userMessages().some((m) => re.test(m));
}

/** Every argument value of the call in a role, with its origins. */
export function argumentProvenance(s: Subject, view: ProvenanceView): ArgValue[] {
  const c = new Collector(view);
  for (const cmd of s.commands)
    for (const name of installedPackages(cmd)) {
      if (userWrote(view, name))
        c.values.push({ key: "command", role: "package", value: name, origins: new Set(["user"]), sources: [] });
      else c.push("command", "package", name, [], true, []);
    }
  for (const [key, raw] of Object.entries(s.args)) {
    const roles = rolesOf(s.spec, key);
    if (roles.length === 0) continue;
    const vals: (string | number)[] = [];
    leaves(raw, vals);
    for (const val of vals) {
      const text = String(val);
      if (roles.includes("host")) {
        if (!pushUrl(c, view, key, text)) pushText(c, view, key, "body", text);
        continue;
      }
      for (const role of roles) {
        if (role === "recipient") {
          for (const r of text.split(/[,;\s]+/)) {
            const addr = r.replace(/^.*</, "").replace(/>.*$/, "").replace(/^#/, "").toLowerCase();
            if (addr.length > 0) c.push(key, role, addr, [], true, readings(addr));
          }
        } else if (role === "amount") {
          const k = amountKey(text);
          if (k !== undefined) c.push(key, role, k, [], true, []);
        } else if (role === "path") {
          c.push(key, role, text, [text.toLowerCase()], true, []);
        } else pushText(c, view, key, role, text);
      }
    }
  }
  return c.values;
}
