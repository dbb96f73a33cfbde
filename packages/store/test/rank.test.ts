import { describe, expect, it } from "vitest";
import { bm25Scores, idf, phraseFrequency, phraseOf, tokenize } from "../src/rank.js";

describe("JS bm25 for common-term windows", () => {
  it("tokenizes like unicode61 with diacritics removed", () => {
    expect(tokenize("Café-au-lait, naïve read_file 東京!")).toEqual([
      "cafe",
      "au",
      "lait",
      "naive",
      "read",
      "file",
      "東京",
    ]);
  });

  it.each([
    ["deploy the deploy", "deploy", false, 2],
    ["deployment deployed deploy", "deploy", true, 3],
    ["deployment deployed deploy", "deploy", false, 1],
    ["read the file then read file", "read file", false, 1],
    ["read files and read filesystem", "read file", true, 2],
    ["nothing here", "deploy", false, 0],
  ])("%j contains %j (prefix %s) %i times", (doc, term, prefix, n) => {
    expect(phraseFrequency(tokenize(doc), phraseOf(term, prefix))).toBe(n);
  });

  it("scores more occurrences and shorter documents higher, rarer terms heavier", () => {
    const docs = ["status", "status status status", "status of a long report with many other words in it"];
    const [one, three, long] = bm25Scores(docs, [phraseOf("status", false)], [100], 1000);
    expect(three).toBeGreaterThan(one!);
    expect(one).toBeGreaterThan(long!);
    expect(idf(1000, 10)).toBeGreaterThan(idf(1000, 900));
    const [a, b] = bm25Scores(
      ["alpha common", "beta common"],
      [phraseOf("alpha", false), phraseOf("beta", false)],
      [5, 500],
      1000,
    );
    expect(a).toBeGreaterThan(b!);
  });
});
