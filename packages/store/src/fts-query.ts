// Turns what a person types into a safe FTS5 query. User text never reaches FTS5 syntax:
// every term becomes a quoted string, so `"`, `*`, `NEAR(`, `AND`, `OR`, `:`, `^` and friends
// are plain text. Supported on purpose: "quoted phrases" and a trailing `*` for prefixes.
// All terms must match (implicit AND).

export interface ParsedQuery {
  /** The FTS5 MATCH expression, or "" when the input has nothing searchable. */
  match: string;
  terms: string[];
  /** One FTS5 expression per term (quoted, maybe with `*`), in the same order as `terms`. */
  parts: string[];
  prefixes: boolean[];
}

const SEARCHABLE = /[\p{L}\p{N}]/u;
const MAX_TERMS = 32;

function quote(text: string): string {
  return `"${text.replace(/"/g, '""')}"`;
}

export function buildFtsQuery(input: string): ParsedQuery {
  const parts: string[] = [];
  const terms: string[] = [];
  const prefixes: boolean[] = [];
  const add = (text: string, prefix: boolean, phrase: boolean): void => {
    const clean = text
      .normalize("NFC")
      .replace(/\p{Cc}/gu, " ")
      .trim();
    if (!SEARCHABLE.test(clean) || parts.length >= MAX_TERMS) return;
    terms.push(clean);
    prefixes.push(prefix && !phrase);
    // A prefix on a quoted string applies to its last token, which is what people mean by `foo*`.
    parts.push(quote(clean) + (prefix && !phrase ? "*" : ""));
  };
  const re = /"([^"]*)"|(\S+)/g;
  let text = input;
  // An unbalanced quote is a stray character, not the start of a phrase.
  if ((text.match(/"/g) ?? []).length % 2 === 1) {
    const i = text.lastIndexOf('"');
    text = text.slice(0, i) + " " + text.slice(i + 1);
  }
  for (const m of text.matchAll(re)) {
    if (m[1] !== undefined) {
      add(m[1], false, true);
    } else if (m[2] !== undefined) {
      const word = m[2].replace(/"/g, " ");
      const prefix = /[\p{L}\p{N}]\*+$/u.test(word);
      add(prefix ? word.replace(/\*+$/, "") : word.replace(/\*/g, " "), prefix, false);
    }
  }
  return { match: parts.join(" "), terms, parts, prefixes };
}
