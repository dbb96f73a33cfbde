import { describe, expect, it } from "vitest";
import { buildFtsQuery } from "@palisade/store";

describe("buildFtsQuery", () => {
  it.each([
    ["hello world", '"hello" "world"'],
    ['"exact phrase" more', '"exact phrase" "more"'],
    ["deploy*", '"deploy"*'],
    ["read_file", '"read_file"'],
    ['say "hi', '"say" "hi"'],
    ['a"b', '"a" "b"'],
    ["NEAR(a b)", '"NEAR(a" "b)"'],
    ["AND OR NOT", '"AND" "OR" "NOT"'],
    ["col:value", '"col:value"'],
    ["*", ""],
    ['***  ""  ( ) -', ""],
    ["", ""],
    ["café 東京", '"café" "東京"'],
    ["x**", '"x"*'],
    ["a*b", '"a b"'],
  ])("%j → %j", (input, expected) => {
    expect(buildFtsQuery(input).match).toBe(expected);
  });

  it("caps the number of terms", () => {
    expect(buildFtsQuery(Array.from({ length: 100 }, (_, i) => `w${i}`).join(" ")).terms).toHaveLength(32);
  });
});
