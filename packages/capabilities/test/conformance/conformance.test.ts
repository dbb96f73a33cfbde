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

const MACHINE =
  "an extension for machine-to-machine grants (client_credentials, JWT assertions, token exchange): Palisade signs in as its user with the authorization code flow and PKCE, and has no configuration for these grants";

const EXPECTED: Expectation[] = [
  {
    version: { alias: "mcp-conformance-0.1" },
    notApplicable: {
      "auth/2025-03-26-oauth-metadata-backcompat":
        "its authorization server metadata names another issuer than the URL it is served from; Palisade refuses such metadata (RFC 8414 §3.3), as auth/metadata-issuer-mismatch of 2026-07-28 requires, and this 2025-03-26 back-compatibility scenario expects it accepted",
      "auth/client-credentials-jwt": MACHINE,
      "auth/client-credentials-basic": MACHINE,
      "auth/cross-app-access-complete-flow": MACHINE,
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
      it(`${scenario}${excused ? ` (expected to fail: ${excused})` : ""}`, { timeout: 60_000 }, async ({ signal }) => {
        const result = await runScenario(version, scenario, signal);
        if (excused)
          expect(result.passed, `${scenario} passes now: remove it from the exceptions of ${label}`).toBe(false);
        else expect(result.passed, `${scenario} failed:\n${result.explain}`).toBe(true);
      });
    }
  });
}
