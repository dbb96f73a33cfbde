/**
 * Normalized fragments of text: the pieces an argument value can carry from content to a call.
 * The same function cuts delivered content (indexed) and argument values (looked up), so both
 * sides agree on case, decoding, URL parts, hosts, addresses, account-like tokens, numbers and
 * paths.
 */
import { decodeEmbedded } from "../normalize/decode.js";
import { normalizeText, urlDecode } from "../normalize/text.js";

const EMAIL = /[a-z0-9._%+-]{1,64}@[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63}){1,8}/g;
const URL = /\b[a-z][a-z0-9+.-]{1,15}:\/\/[^\s'"<>`\\)\]}]{1,2048}/g;
const HOST = /\b(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.){1,8}[a-z][a-z0-9-]{1,62}\b/g;
/** IBAN-like: country, check digits, then groups (spaces allowed, removed). */
const ACCOUNT = /\b[a-z]{2}\d{2}(?: ?[a-z0-9]{4}){2,7}(?: ?[a-z0-9]{1,4})?\b/g;
/**
 * Tokens: passwords, keys, codes, account numbers; at least one digit, 6+ characters. Every
 * pattern here has bounded repetitions: the text is a tool's or the model's, and an unbounded
 * `x+@` retried at each position of a long run of `x` is quadratic.
 */
const TOKEN = /[a-z0-9_+/=.!#$%&*-]{6,512}/g;
const DIGITS = /\d[\d -]{4,40}\d/g;
const PATH =
  /(?:~|\.{1,2})?\/[\w.@-]{1,255}(?:\/[\w.@-]{1,255}){1,32}|\b[\w.-]{1,128}\/[\w.-]{1,128}\.[a-z0-9]{1,6}\b/g;
const NUMBER = /(?<![\w.])\d+(?:[.,]\d+)?(?![\w])/g;

/** Longest text cut per content; larger content is cut in windows up to this much in total. */
export const MAX_CUT = 256 * 1024;
const MAX_FRAGMENT = 512;

/** Amount-like numbers are kept apart: they are looked up only for `amount` arguments. */
export function amountKey(n: string): string | undefined {
  const v = Number.parseFloat(n.replace(",", "."));
  return Number.isFinite(v) && v >= 10 ? `#${v}` : undefined;
}

function add(out: Set<string>, f: string): void {
  if (f.length > MAX_FRAGMENT + 8) return;
  const t = f.replace(/[.,;:!?]+$/, "");
  if (t.length >= 4 && t.length <= MAX_FRAGMENT) out.add(t);
}

/** URL parts: the URL itself, its host, every path segment and query value. */
export function urlParts(raw: string, out: Set<string>): void {
  const s = raw.replace(/[.,;:!?]+$/, "");
  if (!globalThis.URL.canParse(s)) return;
  const u = new globalThis.URL(s);
  add(out, urlLiteral(s));
  add(out, u.hostname.toLowerCase());
  for (const seg of u.pathname.split("/")) if (seg.length > 0) add(out, urlDecode(seg) ?? seg);
  for (const [k, v] of u.searchParams) {
    add(out, k);
    add(out, v.toLowerCase());
  }
}

/** A URL as copied: lower case, no trailing slash, no fragment. */
export function urlLiteral(s: string): string {
  return s.toLowerCase().replace(/#.*$/, "").replace(/\/+$/, "");
}

/** The fragments of one text, without decoding. */
function cutPlain(text: string, out: Set<string>, amounts?: Set<string>): void {
  const t = text.toLowerCase();
  // each pattern only where its anchor character occurs (one indexOf instead of a scan)
  if (t.includes("://")) for (const m of t.matchAll(URL)) urlParts(m[0], out);
  if (t.includes("@"))
    for (const m of t.matchAll(EMAIL)) {
      add(out, m[0]);
      add(out, m[0].slice(m[0].indexOf("@") + 1));
    }
  if (t.includes(".")) for (const m of t.matchAll(HOST)) add(out, m[0]);
  for (const m of t.matchAll(ACCOUNT)) add(out, m[0].replace(/ /g, ""));
  for (const m of t.matchAll(TOKEN)) if (/\d/.test(m[0])) add(out, m[0]);
  for (const m of t.matchAll(DIGITS)) {
    const d = m[0].replace(/[ -]/g, "");
    if (d.length >= 6) add(out, d);
  }
  if (t.includes("/")) for (const m of t.matchAll(PATH)) add(out, m[0]);
  if (amounts !== undefined)
    for (const m of t.matchAll(NUMBER)) {
      const k = amountKey(m[0]);
      if (k !== undefined) amounts.add(k);
    }
}

/**
 * Every fragment of `text`: as written (Unicode-normalized) and in its percent-, base64- and
 * hex-decoded readings. `amounts` (when given) receives amount keys.
 */
export function fragmentsOf(text: string, amounts?: Set<string>): Set<string> {
  const out = new Set<string>();
  const cut = text.length > MAX_CUT ? text.slice(0, MAX_CUT) : text;
  const n = normalizeText(cut).text;
  cutPlain(n, out, amounts);
  const ud = urlDecode(n);
  if (ud !== undefined && ud !== n) cutPlain(ud, out);
  for (const d of decodeEmbedded(n)) cutPlain(normalizeText(d.text).text, out);
  return out;
}
