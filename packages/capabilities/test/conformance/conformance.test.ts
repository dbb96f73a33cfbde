import { describe, expect, it } from "vitest";
import { clientScenarios, runScenario } from "./suite.js";
import type { SuiteVersion } from "./suite.js";

// The official MCP client conformance suite, both pinned releases, against Palisade's own MCP
// client (client.mjs drives a CapabilityHost). Runs compiled dist: `make build` first.

interface Expectation {
  version: SuiteVersion;
  /** Scenarios that do not apply to Palisade, each with why. */
  notApplicable: Record<string, string>;
  /** Scenarios Palisade does not pass yet, each with what is missing. */
  notYet: Record<string, string>;
}

const EXPECTED: Expectation[] = [
  {
    version: { alias: "mcp-conformance-0.1" },
    notApplicable: {
      "auth/2025-03-26-oauth-metadata-backcompat":
        "its authorization server metadata, served at the root (/.well-known/oauth-authorization-server of http://localhost:<port>/), names the issuer http://localhost:<port>/oauth; Palisade refuses such metadata (RFC 8414 §3.3), as auth/metadata-issuer-mismatch of 2026-07-28 requires, and this 2025-03-26 back-compatibility scenario expects it accepted",
      "auth/cross-app-access-complete-flow":
        "enterprise-managed authorization (SEP-990): it starts from an ID token the user got by signing in to their organisation's identity provider, exchanged there for an ID-JAG (RFC 8693); Palisade signs in to no identity provider, so it has no ID token to exchange, and an ID token copied into the config would expire within the hour",
    },
    notYet: {},
  },
  {
    version: { alias: "mcp-conformance-0.2", specVersion: "2026-07-28" },
    notApplicable: {},
    notYet: {},
  },
];

for (const { version, notApplicable, notYet } of EXPECTED) {
  const label = `${version.alias}${version.specVersion ? ` --spec-version ${version.specVersion}` : ""}`;
  const scenarios = await clientScenarios(version);

  describe.concurrent(`MCP conformance (${label})`, () => {
    it("lists client scenarios, and every listed exception is one of them", () => {
      expect(scenarios.length).toBeGreaterThan(3);
      for (const name of [...Object.keys(notApplicable), ...Object.keys(notYet)])
        expect(scenarios, `${name} is not a scenario of ${label}`).toContain(name);
    });

    for (const scenario of scenarios) {
      const excused = notApplicable[scenario] ?? notYet[scenario];
      it(`${scenario}${excused ? ` (expected to fail: ${excused})` : ""}`, { timeout: 300_000 }, async ({ signal }) => {
        const result = await runScenario(version, scenario, signal);
        if (excused)
          expect(result.passed, `${scenario} passes now: remove it from the exceptions of ${label}`).toBe(false);
        else expect(result.passed, `${scenario} failed:\n${result.explain}`).toBe(true);
      });
    }
  });
}
