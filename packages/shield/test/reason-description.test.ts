// A third-party tool's schema often says nothing of what it does with `path`; its description and
// its name do. The Shield reads them too: a read of /etc/passwd by an MCP read_file is judged as
// the read it is (never "may write"), a write or an edit stays a write.
import { describe, expect, it } from "vitest";
import { toolSpec } from "@palisade/shield";
import { check } from "./helpers.js";

// The shape of @modelcontextprotocol/server-filesystem's tools: `path` without a description.
const SCHEMA = {
  type: "object",
  properties: {
    path: { type: "string" },
    tail: { type: "number", description: "If provided, returns only the last N lines of the file" },
  },
  required: ["path"],
};

const TOOLS: { tool: string; description: string | undefined; op: string }[] = [
  {
    tool: "mcp__fs__read_file",
    description: "Read the complete contents of a file as text. DEPRECATED: Use read_text_file instead.",
    op: "read",
  },
  // a description that says nothing of the effect: the name's verb does
  { tool: "mcp__fs__read_text_file", description: "Handles various text encodings.", op: "read" },
  { tool: "mcp__fs__getFileInfo", description: undefined, op: "read" },
  // the description says read, the name does not
  { tool: "mcp__fs__cat", description: "Returns what the file at path holds (reads it).", op: "read" },
  {
    tool: "mcp__fs__write_file",
    description: "Create a new file or completely overwrite an existing file with new content.",
    op: "write",
  },
  { tool: "mcp__fs__edit_file", description: "Make line-based edits to a text file.", op: "write" },
  // a description naming a read and a write: the write counts
  { tool: "mcp__fs__sync", description: "Reads the file and writes it back normalized.", op: "write" },
  { tool: "mcp__fs__remove_file", description: undefined, op: "delete" },
  // nothing says: unknown, judged as a write
  { tool: "mcp__fs__file_tool", description: "Works on one file.", op: "unknown" },
];

describe("a tool's effect on a path, from its description and name when its schema does not say", () => {
  for (const { tool, description, op } of TOOLS) {
    it(`${tool}: ${op}`, () => {
      const spec = toolSpec(tool, undefined, SCHEMA, description);
      expect(spec.source).toBe("inferred");
      expect(spec.paths["path"]).toBe(op);
    });
  }

  it("a read_file of /etc/passwd by an MCP server is never said to write", async () => {
    const v = await check(
      "mcp__fs__read_file",
      { path: "/etc/passwd" },
      { toolSchema: SCHEMA, toolDescription: TOOLS[0]?.description ?? "" },
    );
    expect(v.reason).not.toMatch(/writes|may write/);
    // still asked: it reads the account list
    expect(v.decision).not.toBe("allow");
    expect(v.reason).toContain("/etc/passwd");
  });

  it("a write_file of /etc/passwd is blocked as the write it is", async () => {
    const v = await check(
      "mcp__fs__write_file",
      { path: "/etc/passwd" },
      { toolSchema: SCHEMA, toolDescription: TOOLS[4]?.description ?? "" },
    );
    expect(v.decision).toBe("block");
    expect(v.reason).toMatch(/persist\.[\w-]+: writes .*\/etc\/passwd/);
  });

  it("the same schema with another description is another verdict (the cache keeps them apart)", async () => {
    const { createShield, loadPolicy } = await import("@palisade/shield");
    const shield = createShield({ policy: await loadPolicy("default"), home: "/home/dev", rateLimitPerMinute: 0 });
    const args = { path: "/etc/passwd" };
    const read = shield.evaluateSync(
      { tool: "mcp__fs__file_tool", args },
      { toolSchema: SCHEMA, toolDescription: "Read a file." },
    );
    const write = shield.evaluateSync(
      { tool: "mcp__fs__file_tool", args },
      { toolSchema: SCHEMA, toolDescription: "Write a file." },
    );
    expect(read.reason).not.toMatch(/writes|may write/);
    expect(write.reason).toMatch(/writes/);
  });
});
