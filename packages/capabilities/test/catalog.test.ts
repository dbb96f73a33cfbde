import { describe, expect, it } from "vitest";
import {
  CapabilityError,
  argumentProblems,
  defaultPolicy,
  hostAllowed,
  parseDiscoveredTools,
  resolveTool,
  toolEntries,
  validateManifest,
} from "@palisade/capabilities";

const tool = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  name,
  description: `${name} tool`,
  input_schema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
  ...extra,
});

describe("catalog", () => {
  const a = validateManifest(
    {
      id: "alpha",
      tools: [
        tool("search", { recommended_policy: "allow", streaming: true }),
        tool("write", { requires_confirmation: true, terminal_on_success: true }),
      ],
    },
    "a.yaml",
  );
  const b = validateManifest(
    {
      id: "beta",
      tools: [tool("search"), tool("only_beta")],
      network: { mode: "allowlist", hosts: ["*.example.com:443"] },
    },
    "b.yaml",
  );
  const entries = [...toolEntries(a), ...toolEntries(b)];

  it("names tools <capability_id>__<tool> and carries policy, terminal and network", () => {
    expect(entries.map((e) => e.fullName)).toEqual([
      "alpha__search",
      "alpha__write",
      "beta__search",
      "beta__only_beta",
    ]);
    const write = entries[1]!;
    expect(write).toMatchObject({
      policy: "ask",
      requiresConfirmation: true,
      terminalOnSuccess: true,
      capabilityId: "alpha",
      streaming: false,
    });
    expect(entries[0]).toMatchObject({ streaming: true });
    expect(entries[2]).toMatchObject({ policy: "block", network: { mode: "allowlist", hosts: ["*.example.com:443"] } });
  });

  it.each([
    [{ recommendedPolicy: "allow" as const, requiresConfirmation: true }, "allow"],
    [{ requiresConfirmation: true }, "ask"],
    [{ requiresConfirmation: false }, "block"],
    [{ recommendedPolicy: "block" as const, requiresConfirmation: false }, "block"],
  ])("default policy of %j is %s", (t, expected) => {
    expect(defaultPolicy(t)).toBe(expected);
  });

  it("resolves full names, unique bare names, and explains the rest", () => {
    expect(resolveTool(entries, "beta__search").capabilityId).toBe("beta");
    expect(resolveTool(entries, "only_beta").fullName).toBe("beta__only_beta");
    expect(() => resolveTool(entries, "search")).toThrow(/ambiguous: use one of alpha__search, beta__search/);
    try {
      resolveTool(entries, "nope");
    } catch (err) {
      expect(err).toBeInstanceOf(CapabilityError);
      expect((err as CapabilityError).code).toBe("unknown_tool");
      expect((err as Error).message).toContain("available tools: alpha__search");
    }
  });

  it("argument problems name the field", () => {
    const search = entries[0]!;
    expect(argumentProblems(search.fullName, search.inputSchema, { q: "x" })).toEqual([]);
    expect(argumentProblems(search.fullName, search.inputSchema, {})).toEqual([
      "alpha__search: arguments.q: is required",
    ]);
    expect(argumentProblems(search.fullName, search.inputSchema, { q: 3 })).toEqual([
      "alpha__search: arguments.q: must be a string, got number 3",
    ]);
  });

  it("allowlist matching: host, host:port, *.suffix", () => {
    const hosts = ["api.a.com:443", "*.b.com", "c.com"];
    expect(hostAllowed(hosts, "api.a.com", 443)).toBe(true);
    expect(hostAllowed(hosts, "api.a.com", 80)).toBe(false);
    expect(hostAllowed(hosts, "x.y.b.com", 8443)).toBe(true);
    expect(hostAllowed(hosts, "b.com", 443)).toBe(false);
    expect(hostAllowed(hosts, "C.com", 1)).toBe(true);
    expect(hostAllowed(hosts, "evilc.com", 443)).toBe(false);
  });
});

describe("dynamic discovery parsing", () => {
  const good = [
    { name: "list_repos", description: "List", input_schema: { type: "object" }, recommended_policy: "allow" },
  ];
  it("accepts a JSON array of tools", () => {
    expect(parseDiscoveredTools(good, "src")).toEqual([
      {
        name: "list_repos",
        description: "List",
        inputSchema: { type: "object" },
        requiresConfirmation: false,
        recommendedPolicy: "allow",
        terminalOnSuccess: false,
        streaming: false,
      },
    ]);
  });
  it.each([
    ["not an array", { tools: good }, "must return a JSON array"],
    ["empty name", [{ ...good[0], name: "" }], "[0].name: must be a non-empty string"],
    ["duplicate names", [good[0], good[0]], "[1].name: duplicate tool name"],
    ["bad schema", [{ ...good[0], input_schema: { type: "nope" } }], "[0].input_schema: is not a valid JSON Schema"],
    ["missing schema", [{ name: "x", description: "d" }], "[0].input_schema: must be a JSON Schema object"],
    ["bad policy", [{ ...good[0], recommended_policy: "sometimes" }], "[0].recommended_policy"],
  ])("refuses %s", (_what, value, fragment) => {
    expect(() => parseDiscoveredTools(value, "discovery tool list_tools of capability x")).toThrow(fragment);
  });
});
