/**
 * Text normalization applied before any matching: Unicode NFKC, invisible and bidi controls
 * removed, Unicode "tag" characters (ASCII smuggling) mapped back to ASCII, and common
 * homoglyphs folded to their Latin look-alikes.
 */

// Each invisible code point is matched on its own, combining marks included (on purpose).
const INVISIBLE =
  // eslint-disable-next-line no-misleading-character-class
  /[\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180E\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0]/g;
const TAGS = /[\u{E0000}-\u{E007F}]/gu;
const MIXED = /[A-Za-z][\u0370-\u03FF\u0400-\u04FF\u0500-\u052F]|[\u0370-\u03FF\u0400-\u04FF\u0500-\u052F][A-Za-z]/u;
const PLAIN_ASCII = /^[\x20-\x7E\t\n\r]*$/;

const HOMOGLYPHS: Record<string, string> = {
  // Cyrillic
  а: "a",
  в: "b",
  е: "e",
  ё: "e",
  к: "k",
  м: "m",
  н: "h",
  о: "o",
  р: "p",
  с: "c",
  т: "t",
  у: "y",
  х: "x",
  ѕ: "s",
  і: "i",
  ї: "i",
  ј: "j",
  ԁ: "d",
  һ: "h",
  ӏ: "l",
  ԛ: "q",
  ԝ: "w",
  ɡ: "g",
  ʏ: "y",
  ı: "i",
  ȷ: "j",
  А: "A",
  В: "B",
  Е: "E",
  К: "K",
  М: "M",
  Н: "H",
  О: "O",
  Р: "P",
  С: "C",
  Т: "T",
  Х: "X",
  Ѕ: "S",
  І: "I",
  Ј: "J",
  Ү: "Y",
  Ԁ: "D",
  Ԛ: "Q",
  Ԝ: "W",
  // Greek
  α: "a",
  ο: "o",
  ρ: "p",
  ν: "v",
  ι: "i",
  κ: "k",
  τ: "t",
  υ: "u",
  χ: "x",
  ε: "e",
  Α: "A",
  Β: "B",
  Ε: "E",
  Ζ: "Z",
  Η: "H",
  Ι: "I",
  Κ: "K",
  Μ: "M",
  Ν: "N",
  Ο: "O",
  Ρ: "P",
  Τ: "T",
  Υ: "Y",
  Χ: "X",
  // punctuation look-alikes that matter in paths and commands
  "\u2010": "-",
  "\u2011": "-",
  "\u2012": "-",
  "\u2013": "-",
  "\u2014": "-",
  "\u2212": "-",
  "\uFE63": "-",
  "\u2215": "/",
  "\u2044": "/",
  "\u29F8": "/",
  "\u2216": "\\",
  "\u29F9": "\\",
  "\u2018": "'",
  "\u2019": "'",
  "\u201C": '"',
  "\u201D": '"',
  "\u02BC": "'",
  "\u00A0": " ",
  "\u2000": " ",
  "\u2001": " ",
  "\u2002": " ",
  "\u2003": " ",
  "\u2009": " ",
  "\u3000": " ",
  "\u2024": ".",
  "\uFF0E": ".",
  "\u3002": ".",
  "\u0589": ":",
  "\u2236": ":",
  "\uA789": ":",
};
const HOMOGLYPH_RE = new RegExp(`[${Object.keys(HOMOGLYPHS).join("")}]`, "gu");

export interface NormalizedText {
  text: string;
  /** True when invisible characters, tag characters or homoglyphs were present. */
  suspicious: boolean;
  /** Text hidden in Unicode tag characters, decoded to ASCII (empty if none). */
  hidden: string;
}

/** Normalizes one string for matching. Plain printable ASCII returns unchanged (fast path). */
export function normalizeText(input: string): NormalizedText {
  if (PLAIN_ASCII.test(input)) return { text: input, suspicious: false, hidden: "" };
  let hidden = "";
  let s = input.replace(TAGS, (c) => {
    const code = (c.codePointAt(0) ?? 0) - 0xe0000;
    if (code >= 0x20 && code < 0x7f) hidden += String.fromCharCode(code);
    return "";
  });
  s = s.normalize("NFKC");
  const beforeInvisible = s.length;
  s = s.replace(INVISIBLE, "");
  // Look-alikes only count as a trick when mixed with Latin letters in one word ("pаypal");
  // a Russian or Greek sentence is just text.
  const mixed = MIXED.test(s);
  s = s.replace(HOMOGLYPH_RE, (c) => HOMOGLYPHS[c] ?? c);
  const suspicious = hidden.length > 0 || s.length !== beforeInvisible || mixed;
  return { text: s, suspicious, hidden };
}

const PCT = /%[0-9a-fA-F]{2}/;

/** Percent-decoding, repeated (double encoding) up to 3 times; invalid UTF-8 stays as is. */
export function urlDecode(s: string): string | undefined {
  if (!PCT.test(s)) return undefined;
  let cur = s;
  for (let i = 0; i < 3 && PCT.test(cur); i++) {
    cur = cur.replace(/(?:%[0-9a-fA-F]{2})+/g, (m) => {
      try {
        return decodeURIComponent(m);
      } catch {
        return m.replace(/%([0-9a-fA-F]{2})/g, (_x, h: string) => String.fromCharCode(parseInt(h, 16)));
      }
    });
  }
  return cur === s ? undefined : cur;
}

/**
 * All matches of a global regex that never matches the empty string, like `s.matchAll(re)`
 * without cloning the regex on every call (matchAll does). Matches are collected before the
 * caller loops, so re-entrant use of the same regex while looping is safe. At most `limit`.
 */
export function execAll(re: RegExp, s: string, limit = Infinity): RegExpExecArray[] {
  const out: RegExpExecArray[] = [];
  re.lastIndex = 0;
  for (let m = re.exec(s); m !== null && out.length < limit; m = re.exec(s)) out.push(m);
  re.lastIndex = 0;
  return out;
}
