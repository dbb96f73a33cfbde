import { describe, expect, it } from "vitest";
import { CapabilityDefinitionError, defineCapability } from "@palisade/capability-sdk";
import type { ToolDefinition } from "@palisade/capability-sdk";

const ok: ToolDefinition = {
  name: "ok",
  description: "Fine.",
  inputSchema: { type: "object" },
  handler: async () => null,
};

function problems(fn: () => unknown): readonly string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof CapabilityDefinitionError) return err.problems;
    throw err;
  }
  throw new Error("expected a CapabilityDefinitionError");
}

describe("defineCapability", () => {
  it("accepts a valid definition and exposes its tools", () => {
    const cap = defineCapability({ id: "files", tools: [ok] });
    expect(cap.id).toBe("files");
    expect(cap.tool("ok")).toBe(ok);
    expect(cap.validateArgs("ok", {})).toBeUndefined();
  });

  it("reports every problem with its path", () => {
    const found = problems(() =>
      defineCapability({
        id: "Bad Id",
        tools: [
          ok,
          { ...ok },
          { ...ok, name: "has space", description: "" },
          { ...ok, name: "typo", inputSchema: { type: "object", require: ["x"] } },
          { ...ok, name: "badtype", inputSchema: { type: "strin" } },
          { ...ok, name: "nohandler", handler: undefined as unknown as ToolDefinition["handler"] },
        ],
      }),
    );
    expect(found).toEqual([
      expect.stringMatching(/^id: "Bad Id" must match/),
      'tools[1].name: duplicate tool name "ok"',
      expect.stringMatching(/^tools\[2\]\.name: "has space" must match/),
      "tools[2].description: must be a non-empty string",
      expect.stringMatching(/^tools\[3\]\.inputSchema: .*unknown keyword: "require"/),
      expect.stringMatching(
        /^tools\[4\]\.inputSchema: not a valid JSON Schema: type: must be array, boolean, .* got "strin"$/,
      ),
      "tools[5].handler: must be a function",
    ]);
  });

  it("refuses a capability without tools", () => {
    expect(problems(() => defineCapability({ id: "empty", tools: [] }))).toEqual(["tools: declare at least one tool"]);
  });

  it("puts the capability id and all problems in the message", () => {
    expect(() => defineCapability({ id: "x", tools: [] })).toThrow(
      'invalid capability definition "x":\n  - tools: declare at least one tool',
    );
  });
});
