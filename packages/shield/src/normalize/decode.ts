/**
 * Bounded decoding of encodings embedded in strings: base64, hex, `\xNN` / `\uNNNN` / octal
 * escapes and HTML character references. Decoded text is only kept when it looks like text,
 * so hashes and binary blobs do not produce noise.
 */

import { execAll } from "./text.js";

export type Encoding = "base64" | "hex" | "escape" | "entity";

export interface Decoded {
  encoding: Encoding;
  text: string;
}

const MAX_TOKENS = 12;
const MAX_TOKEN_LEN = 16_384;

const B64 = /[A-Za-z0-9+/_-]{16,}={0,2}/g;
const HEX = /(?:[0-9a-fA-F]{2}){8,}/g;
const ESC = /(?:\\x[0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}|\\[0-7]{3}){2,}/g;
const ENTITY = /(?:&#(?:x[0-9a-fA-F]{1,6}|[0-9]{1,7});?){2,}/g;

/** Characters of the base64 alphabets (standard and URL-safe); hex digits are among them. */
const B64_CHAR = new Uint8Array(128);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-") B64_CHAR[c.charCodeAt(0)] = 1;

/**
 * Whether `s` has 16 base64 characters in a row, which both B64 and HEX need to match. One
 * linear pass: the regexes themselves retry at every position of shorter runs.
 */
function hasLongRun(s: string): boolean {
  let run = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 128 && B64_CHAR[c] === 1) {
      if (++run >= 16) return true;
    } else run = 0;
  }
  return false;
}

function printableRatio(s: string): number {
  if (s.length === 0) return 0;
  let ok = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 0x20 && c < 0x7f) || c === 9 || c === 10 || c === 13 || c >= 0xa0) ok++;
  }
  return ok / s.length;
}

function looksLikeText(s: string): boolean {
  return s.length >= 6 && !s.includes("\uFFFD") && printableRatio(s) >= 0.9 && /[a-zA-Z]{2}/.test(s);
}

/** 6-bit values of the base64 characters (both alphabets), -1 elsewhere. */
const B64_VALUE = new Int8Array(128).fill(-1);
[..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"].forEach(
  (c, i) => (B64_VALUE[c.charCodeAt(0)] = i),
);
B64_VALUE["-".charCodeAt(0)] = 62;
B64_VALUE["_".charCodeAt(0)] = 63;

/**
 * True when the bytes a B64 token decodes to are certainly not UTF-8 text (a byte that cannot
 * start or continue a sequence where it stands): their decoding would hold U+FFFD, which
 * looksLikeText rejects. Paths and identifiers decode to such noise, and this check is far
 * cheaper than a Buffer round trip. It only ever says "not text"; anything else is decoded.
 */
function certainlyNotUtf8(tok: string): boolean {
  let bits = 0;
  let nbits = 0;
  let pending = 0; // continuation bytes the current sequence still needs
  for (let i = 0; i < tok.length; i++) {
    const v = B64_VALUE[tok.charCodeAt(i)] ?? -1;
    if (v < 0) break; // "=" padding ends the data
    bits = ((bits << 6) | v) & 0xfff;
    nbits += 6;
    if (nbits < 8) continue;
    nbits -= 8;
    const b = (bits >> nbits) & 0xff;
    if (pending > 0) {
      if ((b & 0xc0) !== 0x80) return true;
      pending--;
    } else if (b >= 0x80) {
      if (b < 0xc2 || b > 0xf4) return true; // a stray continuation byte, or never valid
      pending = b >= 0xf0 ? 3 : b >= 0xe0 ? 2 : 1;
    }
  }
  return pending > 0;
}

function decodeBase64(tok: string): string | undefined {
  // A plain identifier or path segment made only of letters is not worth decoding.
  if (!/[0-9+/=_-]/.test(tok) && tok.length < 24) return undefined;
  if (certainlyNotUtf8(tok)) return undefined;
  // Node's base64 decoder reads the URL-safe alphabet (`-`, `_`) as well
  const buf = Buffer.from(tok, "base64");
  const s = buf.toString("utf8");
  return looksLikeText(s) ? s : undefined;
}

function decodeEscapes(s: string): string {
  return s.replace(/\\x([0-9a-fA-F]{2})|\\u([0-9a-fA-F]{4})|\\([0-7]{3})/g, (_m, x?: string, u?: string, o?: string) =>
    String.fromCharCode(parseInt(x ?? u ?? o ?? "0", x !== undefined ? 16 : u !== undefined ? 16 : 8)),
  );
}

function decodeEntities(s: string): string {
  return s.replace(/&#(x[0-9a-fA-F]{1,6}|[0-9]{1,7});?/g, (_m, v: string) => {
    const n = v.startsWith("x") ? parseInt(v.slice(1), 16) : parseInt(v, 10);
    return n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : "";
  });
}

/** Finds and decodes embedded encoded runs in `s`. Returns at most MAX_TOKENS results. */
export function decodeEmbedded(s: string): Decoded[] {
  const out: Decoded[] = [];
  if (s.length < 16) return out;
  let n = 0;
  const runs = hasLongRun(s);
  for (const m of runs ? execAll(B64, s, MAX_TOKENS + 1) : []) {
    if (++n > MAX_TOKENS) break;
    if (m[0].length > MAX_TOKEN_LEN) continue;
    const d = decodeBase64(m[0]);
    if (d !== undefined) out.push({ encoding: "base64", text: d });
  }
  for (const m of runs ? execAll(HEX, s, MAX_TOKENS + 1) : []) {
    if (++n > MAX_TOKENS) break;
    if (m[0].length > MAX_TOKEN_LEN) continue;
    const d = Buffer.from(m[0], "hex").toString("utf8");
    if (looksLikeText(d)) out.push({ encoding: "hex", text: d });
  }
  // escapes and character references are decoded in place: the surrounding words matter
  ESC.lastIndex = 0;
  if (s.includes("\\") && ESC.test(s)) out.push({ encoding: "escape", text: s.replace(ESC, decodeEscapes) });
  ENTITY.lastIndex = 0;
  if (s.includes("&#") && ENTITY.test(s)) out.push({ encoding: "entity", text: s.replace(ENTITY, decodeEntities) });
  return out;
}

/** Decodes `\xNN`, `\uNNNN`, octal and the usual C escapes, as bash `$'...'` does. */
export function decodeAnsiC(s: string): string {
  return s.replace(/\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|[0-7]{1,3}|.)/g, (_m, e: string) => {
    const c = e[0];
    if (c === "x" || c === "u") return e.length > 1 ? String.fromCharCode(parseInt(e.slice(1), 16)) : _m;
    if (c !== undefined && c >= "0" && c <= "7") return String.fromCharCode(parseInt(e, 8));
    const simple: Record<string, string> = {
      n: "\n",
      t: "\t",
      r: "\r",
      a: "\x07",
      b: "\b",
      e: "\x1b",
      f: "\f",
      v: "\v",
    };
    return simple[e] ?? e;
  });
}
