// The shared pieces: positions traced back through the YAML, ajv errors in words, near misses.
import { describe, expect, it } from "vitest";
import {
  didYouMean,
  dropNulls,
  formatProblem,
  pathOf,
  pointerParts,
  readYaml,
  schemaKeys,
  syntaxProblems,
} from "@palisade/schema";

describe("readYaml", () => {
  const text = "a:\n  b: [x, { c: 1 }]\n  d: null\n";
  it("finds where a value, a key, or the nearest parent of a missing field is written", () => {
    const y = readYaml(text);
    expect(y.errors).toEqual([]);
    expect(y.locate(["a", "b", 1, "c"])).toEqual({ line: 2, col: 15 });
    expect(y.locate(["a", "b", 1, "c"], true)).toEqual({ line: 2, col: 12 });
    expect(y.locate(["a", "d"], true)).toEqual({ line: 3, col: 3 });
    expect(y.locate(["a", "nope"])).toEqual({ line: 2, col: 3 });
  });

  it("an alias without its anchor is an error at the alias, not an exception", () => {
    const y = readYaml("a: 1\nb:\n  c: *nope\n");
    expect(y.data).toBeUndefined();
    expect(y.errors).toEqual([
      { line: 3, col: 6, message: "*nope names no anchor: define &nope above it, or write the value" },
    ]);
    expect(readYaml("a: &x 1\nb: *x\n").data).toEqual({ a: 1, b: 1 });
  });

  it("gives syntax errors with line and column, and no data", () => {
    const y = readYaml("a: 1\nb: [\n");
    expect(y.data).toBeUndefined();
    expect(y.errors[0]).toMatchObject({ line: 3, col: 1 });
    expect(readYaml("a: 1\na: 2\n").errors[0]).toMatchObject({
      line: 2,
      col: 1,
      message: expect.stringMatching(/unique/),
    });
  });
});

describe("helpers", () => {
  it("didYouMean: case and separators, then one or two edits for keys long enough", () => {
    expect(didYouMean("llmJudge", ["enabled", "llm_judge"])).toBe("llm_judge");
    expect(didYouMean("rulez", ["rules", "name"])).toBe("rules");
    expect(didYouMean("colour", ["color_mode", "name"])).toBeUndefined();
    expect(didYouMean("ab", ["ac"])).toBeUndefined();
  });

  it("paths: pointer to parts to dotted path", () => {
    expect(pathOf(pointerParts("/tools/1/a~1b"), "m")).toBe("m.tools[1].a/b");
  });

  it("dropNulls removes only the nulls of keys the schema names", () => {
    const schema = { properties: { a: {}, b: { properties: { c: {} } }, l: { items: { properties: { x: {} } } } } };
    expect(dropNulls({ a: null, b: { c: null, free: null }, l: [{ x: null }, null], z: null }, schema)).toEqual({
      b: { free: null },
      l: [{}, null],
      z: null,
    });
    expect(schemaKeys(schema, ["l", "[]"])).toEqual(["x"]);
  });
});

describe("formatProblem: one wording for config.yaml, manifests and policies", () => {
  it("file: path: message (line L, column C); no path for the whole file, no position when unknown", () => {
    expect(formatProblem({ file: "c.yaml", path: "store.pool", message: "must be an integer", line: 4, col: 9 })).toBe(
      "c.yaml: store.pool: must be an integer (line 4, column 9)",
    );
    expect(formatProblem({ file: "c.yaml", path: "workspace", message: "does not exist" })).toBe(
      "c.yaml: workspace: does not exist",
    );
    const [syntax] = syntaxProblems("p.yaml", readYaml("a: 1\nb: [\n").errors);
    expect(syntax).toMatchObject({ file: "p.yaml", path: "", line: 3, col: 1 });
    expect(formatProblem(syntax!)).toMatch(/^p\.yaml: YAML syntax error: .+ \(line 3, column 1\)$/);
  });
});
