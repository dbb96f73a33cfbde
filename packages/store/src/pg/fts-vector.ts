// Full-text search on PostgreSQL with FTS5's tokenizer: the store builds each row's tsvector
// from the same tokens as SQLite's `unicode61 remove_diacritics 2` (rank.ts tokenize), and each
// query's tsquery from the same parsed terms (fts-query.ts). PostgreSQL's own parser would cut
// "a.b" or "x-y" differently from FTS5, so the same query would find other rows on each store.
// Tokens are letters and digits only: quoting them in the tsvector/tsquery text is safe.
import type { ParsedQuery } from "../fts-query.js";
import { tokenize } from "../rank.js";

// tsvector limits: positions up to 16383, a lexeme under 2 KiB, the whole value under 1 MiB.
// Text past the first MAX_POSITION tokens is not indexed (as with a very long tool result).
const MAX_POSITION = 16383;
const MAX_LEXEME = 255;

/** A row's search vector: its tsvector literal and its words (for the lexeme table, lexemes.ts). */
export interface SearchVector {
  tsv: string;
  lexemes: string[];
}

/** The tsvector literal of some columns of text, in order, positions continuing across them (with a gap). */
export function tsvectorOf(texts: ReadonlyArray<string | null | undefined>): string {
  return searchVector(texts).tsv;
}

export function searchVector(texts: ReadonlyArray<string | null | undefined>): SearchVector {
  const positions = new Map<string, number[]>();
  let pos = 0;
  for (const text of texts) {
    if (!text) continue;
    for (const token of tokenize(text)) {
      if (++pos > MAX_POSITION) break;
      if (token.length > MAX_LEXEME) continue;
      let list = positions.get(token);
      if (list === undefined) positions.set(token, (list = []));
      // A lexeme keeps at most 256 positions; more only change ranking, not matching.
      if (list.length < 256) list.push(pos);
    }
    if (pos > MAX_POSITION) break;
    // A gap between columns: a phrase never spans two of them, as in FTS5's separate columns.
    pos++;
  }
  return { tsv: [...positions].map(([t, p]) => `'${t}':${p.join(",")}`).join(" "), lexemes: [...positions.keys()] };
}

/** The token each prefix term ends with (the one a `:*` applies to). */
export function prefixTokens(q: ParsedQuery): string[] {
  return q.terms.flatMap((term, i) => {
    const last = tokenize(term)
      .filter((t) => t.length <= MAX_LEXEME)
      .pop();
    return q.prefixes[i] && last !== undefined ? [last] : [];
  });
}

/**
 * The tsquery text of a parsed query (all terms, phrases with <->, prefixes with :*), or "" when
 * nothing is searchable. `loose`: a phrase's words with & (in any order and place), which a GIN
 * index answers without reading the rows. `expanded`: the words a prefix stands for (lexemes.ts),
 * written as their disjunction instead of the prefix; a prefix absent from it keeps its :*.
 */
export function tsqueryOf(
  q: ParsedQuery,
  loose = false,
  expanded?: ReadonlyMap<string, readonly string[] | undefined>,
): string {
  const parts: string[] = [];
  q.terms.forEach((term, i) => {
    const tokens = tokenize(term).filter((t) => t.length <= MAX_LEXEME);
    if (tokens.length === 0) return;
    const prefix = q.prefixes[i] ?? false;
    const lexemes = tokens.map((t, j) => {
      if (!prefix || j < tokens.length - 1) return `'${t}'`;
      const words = expanded?.get(t);
      if (words === undefined || words.length === 0) return `'${t}':*`;
      return words.length === 1 ? `'${words[0] as string}'` : `(${words.map((w) => `'${w}'`).join(" | ")})`;
    });
    parts.push(lexemes.length === 1 ? (lexemes[0] as string) : `(${lexemes.join(loose ? " & " : " <-> ")})`);
  });
  return parts.join(" & ");
}
