import { describe, expect, it } from "vitest";
import { argumentProblems } from "@palisade/capabilities";
import { mcpToolEntries } from "../src/mcp/tools.js";

describe("MCP tools in the catalog", () => {
  it("keeps a tool whose input schema has a network $ref, unresolved (nothing is fetched)", () => {
    const inputSchema = {
      type: "object",
      properties: { address: { $ref: "https://schemas.example.com/address.json" }, note: { type: "string" } },
    } as const;
    const { entries, skipped } = mcpToolEntries({ id: "geo", mcp: { url: "http://127.0.0.1:1/mcp" } }, [
      { name: "locate", inputSchema },
    ]);
    expect(skipped).toEqual([]);
    expect(entries.map((e) => e.name)).toEqual(["locate"]);
    expect(entries[0]?.inputSchema).toEqual(inputSchema);
    // The referenced part accepts anything; the rest is still checked.
    expect(
      argumentProblems("geo__locate", entries[0]!.inputSchema, { address: { street: "Main St" }, note: "x" }),
    ).toEqual([]);
    expect(argumentProblems("geo__locate", entries[0]!.inputSchema, { note: 5 })).toEqual([
      "geo__locate: arguments.note: must be a string, got number 5",
    ]);
  });
});
