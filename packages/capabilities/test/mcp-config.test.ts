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
      'capabilities[2].mcp.url: must be an http:// or https:// URL of the server\'s MCP endpoint, got "ftp://h/mcp"',
      "capabilities[3].mcp.env.TOKEN: ${secret:no-dashes} must name a credential (letters, digits, _)",
      "capabilities[4].manifest: is not used with mcp: (an MCP server has no Selu manifest)",
      "capabilities[4].command: goes under mcp: for an MCP server (mcp.command)",
      'capabilities[5].mcp.policy.read: must be allow, ask or block, got "maybe"',
      "capabilities[6].mcp.command: must list at least one item, got a list",
      "capabilities[7].manifest: is required (the path of a Selu manifest.yaml), or set mcp: for an MCP server",
      "capabilities[8].network: comes from the capability's manifest (set it there); it is only a config field for mcp: servers",
    ]);
  });
});

describe("mcp.oauth with grant: client_credentials", () => {
  const at = (oauth: Record<string, unknown>): string[] =>
    problems([{ id: "bot", mcp: { url: "https://mcp.example.com/mcp", oauth } }]);

  it("accepts a client with a stored secret or a stored key", () => {
    const secret = { grant: "client_credentials", clientId: "bot", clientSecret: "${secret:bot_secret}" };
    expect(at({ ...secret, issuer: "https://auth.example.com", scope: "read" })).toEqual([]);
    expect(
      at({ grant: "client_credentials", clientId: "bot", privateKey: "${secret:bot_key}", signingAlgorithm: "RS256" }),
    ).toEqual([]);
  });

  it("says what each grant needs and forbids, at its path", () => {
    expect(at({ grant: "client_credentials" })).toEqual([
      "capabilities[0].mcp.oauth: grant: client_credentials needs clientId: the client registered with the authorization server",
      "capabilities[0].mcp.oauth: grant: client_credentials needs exactly one of clientSecret (client_secret_basic) or privateKey (private_key_jwt)",
    ]);
    expect(
      at({ grant: "client_credentials", clientId: "bot", clientSecret: "hunter2", privateKey: "${secret:k}" }),
    ).toEqual([
      "capabilities[0].mcp.oauth: grant: client_credentials needs exactly one of clientSecret (client_secret_basic) or privateKey (private_key_jwt)",
      'capabilities[0].mcp.oauth.clientSecret: must be a ${secret:name} reference, not the value itself: store it with `palisade capability credentials set <id> <name>` and write "${secret:<name>}"',
    ]);
    expect(
      at({
        grant: "client_credentials",
        clientId: "bot",
        clientSecret: "${secret:s}",
        signingAlgorithm: "ES256",
        clientMetadataUrl: "https://example.com/c.json",
      }),
    ).toEqual([
      "capabilities[0].mcp.oauth.clientMetadataUrl: is for the user's sign-in only: a client_credentials client is registered beforehand",
      "capabilities[0].mcp.oauth.signingAlgorithm: is the privateKey's algorithm: set privateKey too, or remove it",
    ]);
    expect(at({ privateKey: "${secret:k}", issuer: "https://auth.example.com" })).toEqual([
      "capabilities[0].mcp.oauth.privateKey: is for grant: client_credentials only (the user's sign-in has no use for it)",
      "capabilities[0].mcp.oauth.issuer: is for grant: client_credentials only (the user's sign-in has no use for it)",
    ]);
    expect(at({ grant: "password" })).toEqual([
      'capabilities[0].mcp.oauth.grant: must be authorization_code or client_credentials, got "password"',
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
