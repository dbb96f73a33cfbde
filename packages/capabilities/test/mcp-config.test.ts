import { describe, expect, it } from "vitest";
import { ValidationError, mcpPolicy, validateCapabilityConfigs } from "@palisade/capabilities";

function problems(value: unknown): string[] {
  try {
    validateCapabilityConfigs(value, { file: "config.yaml" });
  } catch (err) {
    if (err instanceof ValidationError) return err.problems.map((p) => `${p.path}: ${p.message}`);
    throw err;
  }
  return [];
}

describe("mcp: capability config", () => {
  it("accepts stdio and streamable HTTP servers and resolves cwd against the config's directory", () => {
    const configs = validateCapabilityConfigs(
      [
        {
          id: "github",
          mcp: {
            command: ["npx", "-y", "@modelcontextprotocol/server-github"],
            env: { GITHUB_TOKEN: "${secret:github_token}" },
            cwd: "work",
          },
        },
        {
          id: "docs",
          mcp: {
            url: "https://mcp.example.com/mcp",
            headers: { Authorization: "Bearer ${secret:docs_token}" },
            policy: { search: "allow" },
          },
          network: { mode: "allowlist", hosts: ["mcp.example.com"] },
        },
      ],
      { baseDir: "/etc/palisade" },
    );
    expect(configs[0]).toMatchObject({ id: "github", mcp: { cwd: "/etc/palisade/work" } });
    expect(configs[1]).toMatchObject({ id: "docs", network: { mode: "allowlist" } });
  });

  it("reports every problem at its path", () => {
    expect(
      problems([
        { id: "both", mcp: { command: ["x"], url: "http://h/mcp" } },
        { id: "neither", mcp: { env: {} } },
        { id: "bad-url", mcp: { url: "ftp://h/mcp" } },
        { id: "bad-secret", mcp: { command: ["x"], env: { TOKEN: "${secret:no-dashes}" } } },
        { id: "mixed", manifest: "m.yaml", command: ["x"], mcp: { command: ["y"] } },
        { id: "bad-policy", mcp: { command: ["x"], policy: { read: "maybe" } } },
        { id: "empty-command", mcp: { command: [] } },
        { id: "selu" },
        { id: "selu-net", manifest: "m.yaml", network: { mode: "any" } },
      ]),
    ).toEqual([
      "capabilities[0].mcp: set either command (stdio) or url (streamable HTTP), not both",
      "capabilities[1].mcp: needs command (a stdio server's argv) or url (a streamable HTTP endpoint)",
      'capabilities[2].mcp.url: must be an http:// or https:// URL of the server\'s MCP endpoint (got "ftp://h/mcp")',
      "capabilities[3].mcp.env.TOKEN: ${secret:no-dashes} must name a credential (letters, digits, _)",
      "capabilities[4].manifest: is not used with mcp: (an MCP server has no Selu manifest)",
      "capabilities[4].command: goes under mcp: for an MCP server (mcp.command)",
      'capabilities[5].mcp.policy.read: must be one of "allow", "ask", "block" (got "maybe")',
      "capabilities[6].mcp.command: must NOT have fewer than 1 items",
      "capabilities[7].manifest: is required (the path of a Selu manifest.yaml), or set mcp: for an MCP server",
      "capabilities[8].network: comes from the capability's manifest (set it there); it is only a config field for mcp: servers",
    ]);
  });
});

describe("the Shield default of an MCP tool", () => {
  it.each([
    // A server's annotations are its own claims: they count only for a server marked trusted.
    [{ readOnly: true }, undefined, false, "ask"],
    [{ readOnly: true, openWorld: true }, undefined, false, "ask"],
    [{ readOnly: true }, undefined, true, "allow"],
    [{ readOnly: true, openWorld: true }, undefined, true, "allow"],
    [{ destructive: true }, undefined, true, "ask"],
    [{ readOnly: false, destructive: false }, undefined, true, "ask"],
    [{}, undefined, true, "ask"],
    [{ readOnly: true }, "block", true, "block"],
    [{ destructive: true }, "allow", false, "allow"],
  ] as const)("annotations %j with config policy %s, trusted %s → %s", (annotations, configured, trusted, expected) => {
    expect(mcpPolicy(annotations, configured, trusted)).toBe(expected);
  });
});
