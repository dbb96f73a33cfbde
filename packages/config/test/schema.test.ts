// config.yaml checked by its JSON Schema: every problem at once, each with its path and its line
// and column; the validator compiled ahead of time is the one the schema gives now.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { referenceTable, standaloneModule } from "@palisade/schema/standalone";
import { ConfigError, configSchema, DEFAULT_MODEL, defaultConfig, parseConfig } from "../src/index.js";

function issues(text: string): string[] {
  try {
    parseConfig(text, { file: "config.yaml", env: {} });
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).issues.map((i) => `${i.line}:${i.col} ${i.path}: ${i.message}`);
  }
  throw new Error("the config was accepted");
}

describe("config.yaml schema", () => {
  it("lists all three problems of a file, each with its path and line:column, in file order", () => {
    const text = [
      "store:",
      "  url: postgres://palisade@db/history",
      "  pool: ten",
      "shield:",
      "  llmJudge: { enabled: true }",
      "limits:",
      "  max_tool_rounds: 0",
      "",
    ].join("\n");
    expect(issues(text)).toEqual([
      '3:9 store.pool: must be an integer >= 1, got "ten"',
      "5:3 shield.llmJudge: unknown key; allowed here: policy, policy_file, llm_judge; did you mean llm_judge?",
      "7:20 limits.max_tool_rounds: must be an integer >= 1, got number 0",
    ]);
    expect(() => parseConfig(text, { file: "config.yaml", env: {} })).toThrow(
      'invalid configuration (3 problems):\n  config.yaml: store.pool: must be an integer >= 1, got "ten" (line 3, column 9)\n',
    );
  });

  it("places a YAML syntax error at its line and column", () => {
    expect(issues("model:\n  name: x\n  headers: { a: 1\nlimits: {}\n")).toEqual([
      expect.stringMatching(/^4:\d+ : YAML syntax error: /),
    ]);
    expect(issues("model:\n  name: a\n  name: b\n")).toEqual([
      expect.stringMatching(/^3:3 : YAML syntax error: Map keys must be unique/),
    ]);
  });

  it("suggests the key meant: same letters in another case or spelling, or a near miss", () => {
    expect(issues("sandbox:\n  readOnly: [/opt]\n")).toEqual([expect.stringMatching(/did you mean read_only\?$/)]);
    expect(issues("history:\n  retension: {}\n")).toEqual([expect.stringMatching(/did you mean retention\?$/)]);
    expect(issues("colour: red\n")[0]).not.toMatch(/did you mean/);
  });

  it("reports the problems of entries in a list at their index", () => {
    expect(issues("capabilities:\n  - id: files\n  - id: Files\n  - enabled: true\n")).toEqual([
      '3:9 capabilities[1].id: must be a lowercase identifier like files or my-tool, got "Files"',
      "4:5 capabilities[2].id: is required",
    ]);
  });

  it("the default model name is written once: the schema's default is defaultConfig's", () => {
    const sources = ["config.ts", "schema.ts", "parse.ts"].map((f) =>
      readFileSync(join(import.meta.dirname, "../src", f), "utf8"),
    );
    const written = sources.join("\n").split(JSON.stringify(DEFAULT_MODEL)).length - 1;
    expect(written).toBe(1);
    const modelSchema = configSchema.properties.model.properties.name;
    expect(modelSchema.default).toBe(DEFAULT_MODEL);
    expect(defaultConfig().model.name).toBe(DEFAULT_MODEL);
    expect(parseConfig("model: {}\n", { file: "config.yaml", env: {} }).model.name).toBe(DEFAULT_MODEL);
  });

  it("the compiled validator is the one the schema gives (regenerate: npx tsx scripts/schemas.mjs)", () => {
    const committed = readFileSync(join(import.meta.dirname, "../src/schema.generated.ts"), "utf8");
    expect(committed === standaloneModule({ validateConfig: configSchema }, "schema.ts")).toBe(true);
  });

  it("docs/configuration.md lists every key as the schema describes it (rewrite: npx tsx scripts/schemas.mjs)", () => {
    const doc = readFileSync(join(import.meta.dirname, "../../../docs/configuration.md"), "utf8");
    const table = /<!-- config\.yaml keys -->\n([\s\S]*?)\n<!-- \/config\.yaml keys -->/.exec(doc)?.[1];
    expect(table).toBe(referenceTable(configSchema));
  });
});
