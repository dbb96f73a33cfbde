import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { buildFtsQuery } from "../src/fts-query.js";
import { phraseOf } from "../src/rank.js";
import { snippet } from "../src/snippet.js";

const DOCS = [
  "Please deploy the billing service to the staging cluster",
  "Deploying billing now. Deploy deploy deploy.",
  "The deployment finished; the café server in 東京 is healthy.",
  "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen billing eighteen nineteen twenty",
  "billing starts here and then a long tail of words follows without any other match at all in this text ok",
  "a long preamble of many words that goes on. Then the billing service failed: staging cluster was down and nobody knew why it happened here",
  "status status status",
  "Crème brûlée recipe: caramelise the sugar, then serve the crème cold with more words after it for length",
];
const QUERIES = [
  "billing",
  "staging cluster",
  "deploy",
  '"billing service"',
  "bill*",
  "status",
  "creme",
  "東京",
  "twelve billing",
  "cluster",
];

describe("snippet", () => {
  it("matches FTS5's snippet() on message texts", () => {
    const db = new BetterSqlite3(":memory:");
    db.exec("CREATE VIRTUAL TABLE f USING fts5 (content, tokenize = 'unicode61 remove_diacritics 2')");
    const insert = db.prepare("INSERT INTO f (rowid, content) VALUES (?, ?)");
    DOCS.forEach((d, i) => insert.run(i + 1, d));
    const fts = db.prepare("SELECT rowid, snippet(f, 0, '[', ']', '…', 12) AS s FROM f WHERE f MATCH ?");
    let compared = 0;
    const mismatches: unknown[] = [];
    for (const text of QUERIES) {
      const q = buildFtsQuery(text);
      const phrases = q.terms.map((t, i) => phraseOf(t, q.prefixes[i] ?? false));
      for (const r of fts.all(q.match) as Array<{ rowid: number; s: string }>) {
        const mine = snippet([DOCS[r.rowid - 1]!], phrases);
        if (mine !== r.s) mismatches.push({ text, doc: r.rowid, mine, fts5: r.s });
        compared++;
      }
    }
    expect(mismatches).toEqual([]);
    expect(compared).toBeGreaterThan(12);
    db.close();
  });

  it("takes the best column, the first on ties", () => {
    const p = [phraseOf("kubectl", false)];
    expect(snippet(["shell__run", '{"command":"kubectl apply -f billing.yaml"}', "configured"], p)).toBe(
      '{"command":"[kubectl] apply -f billing.yaml"}',
    );
    expect(snippet([null, "nothing here"], p)).toBe("nothing here");
  });
});
