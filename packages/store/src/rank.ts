// BM25 computed in JS over a bounded set of candidates. FTS5's bm25() first counts every row
// containing each phrase (for IDF) and ORDER BY rank scores every match: for a word found in
// most of a million messages that is hundreds of milliseconds. For such queries the store ranks
// the newest matches here instead, with the same formula (k1 = 1.2, b = 0.75).

export interface RankPhrase {
  tokens: string[];
  /** The last token is a prefix. */
  prefix: boolean;
}

const K1 = 1.2;
const B = 0.75;

/** One token folded as FTS5's `unicode61 remove_diacritics 2` does (lower case, no diacritics). */
export function foldToken(token: string): string {
  // eslint-disable-next-line no-control-regex -- ASCII fast path: nothing to decompose
  return (/^[\u0000-\u007f]*$/.test(token) ? token : token.normalize("NFKD").replace(/\p{M}/gu, "")).toLowerCase();
}

/** Tokens as FTS5's `unicode61 remove_diacritics 2` sees them (close enough for ranking). */
export function tokenize(text: string): string[] {
  // eslint-disable-next-line no-control-regex -- ASCII fast path: nothing to decompose
  const folded = /^[\u0000-\u007f]*$/.test(text) ? text : text.normalize("NFKD").replace(/\p{M}/gu, "");
  return folded
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((t) => t !== "");
}

export function phraseOf(term: string, prefix: boolean): RankPhrase {
  return { tokens: tokenize(term), prefix };
}

/** Occurrences of a phrase in a token list. */
export function phraseFrequency(doc: string[], p: RankPhrase): number {
  const n = p.tokens.length;
  if (n === 0) return 0;
  let count = 0;
  for (let i = 0; i + n <= doc.length; i++) {
    let ok = true;
    for (let j = 0; j < n && ok; j++) {
      const want = p.tokens[j]!;
      const got = doc[i + j]!;
      ok = p.prefix && j === n - 1 ? got.startsWith(want) : got === want;
    }
    if (ok) count++;
  }
  return count;
}

export function idf(totalDocs: number, docFrequency: number): number {
  return Math.log((totalDocs - docFrequency + 0.5) / (docFrequency + 0.5) + 1);
}

/**
 * Scores documents (higher is better). `docFrequency[i]` is the number of documents containing
 * phrase i (an estimate is fine), `totalDocs` the size of the collection.
 */
export function bm25Scores(docs: string[], phrases: RankPhrase[], docFrequency: number[], totalDocs: number): number[] {
  const tokenized = docs.map(tokenize);
  const avg = tokenized.reduce((s, t) => s + t.length, 0) / Math.max(1, tokenized.length) || 1;
  const weights = phrases.map((_, i) => idf(totalDocs, docFrequency[i] ?? totalDocs));
  return tokenized.map((doc) => {
    let score = 0;
    phrases.forEach((p, i) => {
      const tf = phraseFrequency(doc, p);
      if (tf > 0) score += (weights[i] ?? 0) * ((tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * doc.length) / avg)));
    });
    return score;
  });
}
