// Manifests, capability entries and MCP entries are checked by JSON Schemas compiled ahead of
// time; a manifest's problems are placed at their line and column.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { standaloneModule } from "@palisade/schema/standalone";
import { ValidationError, parseManifest } from "@palisade/capabilities";
import { capabilityConfigSchema } from "../src/config.js";
import { manifestSchema } from "../src/manifest/schema.js";
import { httpSchema, stdioSchema } from "../src/mcp/config.js";

const FILE = "/caps/demo/manifest.yaml";

function problems(text: string): string[] {
  try {
    parseManifest(text, FILE);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as ValidationError).problems.map((p) => `${p.line}:${p.col} ${p.path}: ${p.message}`);
  }
  throw new Error("the manifest was accepted");
}

const TOOL = "  - name: echo\n    description: Echo\n    input_schema: { type: object }\n";

describe("manifest schema", () => {
  it("a field of the wrong type is reported with its path, line and column", () => {
    const text = `id: demo\ntools:\n${TOOL}    streaming: "yes"\nresources:\n  max_memory_mb: lots\n`;
    expect(problems(text)).toEqual([
      '6:16 tools[0].streaming: must be true or false, got "yes"',
      '8:18 resources.max_memory_mb: must be an integer >= 1, got "lots"',
    ]);
    try {
      parseManifest(text, FILE);
    } catch (err) {
      expect((err as Error).message).toContain(
        `${FILE}: tools[0].streaming: must be true or false, got "yes" (line 6, column 16)`,
      );
    }
  });

  it("a missing field is placed at the mapping that lacks it", () => {
    expect(problems("id: demo\ntools:\n  - name: echo\n    input_schema: { type: object }\n")).toEqual([
      "3:5 tools[0].description: is required",
    ]);
  });

  it("an unknown field stays a warning (Selu manifests carry more), with the key likely meant", () => {
    const m = parseManifest(`id: demo\ntools:\n${TOOL}    streming: true\nnetwrok: { mode: none }\n`, FILE);
    expect(m.warnings).toEqual([
      "netwrok: unknown field, ignored; did you mean network?",
      "tools[0].streming: unknown field, ignored; did you mean streaming?",
    ]);
  });

  it("the compiled validators are the ones the schemas give (regenerate: npx tsx scripts/schemas.mjs)", () => {
    const committed = readFileSync(join(import.meta.dirname, "../src/schemas.generated.ts"), "utf8");
    const now = standaloneModule(
      {
        validateManifestStructure: manifestSchema,
        validateCapabilityConfig: capabilityConfigSchema,
        validateMcpStdio: stdioSchema,
        validateMcpHttp: httpSchema,
      },
      "manifest/schema.ts, config.ts and mcp/config.ts",
    );
    expect(committed === now).toBe(true);
  });
});
