// Every lexeme of the search index, in a table of its own (schema version 7), so that a prefix
// (`deploy*`) is expanded once per search into the words it stands for. A GIN index expands a
// prefix by reading the posting lists of every word it starts with, over the whole index, each
// time it is asked: a search that asks it one block of rows at a time (search.ts) would pay that
// once per block. With the words known, each block is asked for exact words instead.
// The table only grows: a word whose rows were deleted stays and matches nothing. Every write of a
// row's tsvector adds its words in the same transaction, before or with the row.
import type { Queryable } from "./db.js";

/** Words a prefix may stand for before a search leaves the prefix to the index (one scan per block then). */
export const MAX_EXPANSION = 256;

/** Words this store knows are in the table, so that a turn's commit sends only new ones (bounded: forgets all when full). */
export class KnownLexemes {
  private readonly words = new Set<string>();
  constructor(private readonly max = 200_000) {}

  /** Those of `words` not known to be in the table, sorted (concurrent inserts take their locks in one order). */
  unknown(words: Iterable<string>): string[] {
    const out = new Set<string>();
    for (const w of words) if (!this.words.has(w)) out.add(w);
    return [...out].sort();
  }

  /** After a commit that inserted them. */
  learn(words: readonly string[]): void {
    if (this.words.size + words.length > this.max) this.words.clear();
    for (const w of words) this.words.add(w);
  }
}

/** The statement that adds words (sorted), skipping those already there. */
export const INSERT_LEXEMES = "INSERT INTO search_lexemes (lexeme) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING";

/** Adds the words of rows about to be written; call it before writing them, in the same transaction when there is one. */
export async function addLexemes(c: Queryable, words: Iterable<string>): Promise<void> {
  const sorted = [...new Set(words)].sort();
  if (sorted.length > 0) await c.query(INSERT_LEXEMES, [sorted]);
}

/**
 * The words each prefix stands for, in one query; undefined for a prefix with more than
 * MAX_EXPANSION of them (the index then expands it itself).
 */
export async function expandPrefixes(
  c: Queryable,
  prefixes: readonly string[],
): Promise<Map<string, readonly string[] | undefined>> {
  const unique = [...new Set(prefixes)];
  const expanded = new Map<string, readonly string[] | undefined>();
  if (unique.length === 0) return expanded;
  // In the "C" collation strings sort by code point, so the words starting with p lie in [p, p + U+10FFFF).
  const r = await c.query<{ prefix: string; words: string[] }>(
    `SELECT p.lo AS prefix, ARRAY(SELECT lexeme FROM search_lexemes WHERE lexeme >= p.lo COLLATE "C" AND lexeme < p.hi COLLATE "C"
       AND starts_with(lexeme, p.lo) ORDER BY lexeme LIMIT ${String(MAX_EXPANSION + 1)}) AS words
     FROM unnest($1::text[], $2::text[]) AS p(lo, hi)`,
    [unique, unique.map((p) => `${p}\u{10FFFF}`)],
  );
  for (const row of r.rows) expanded.set(row.prefix, row.words.length > MAX_EXPANSION ? undefined : row.words);
  return expanded;
}
