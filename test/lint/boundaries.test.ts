// The import-boundary rules of `make lint` (eslint.boundaries.js) fire on a deliberate violation in
// each layer and stay quiet on an import the layering allows.
import { ESLint } from "eslint";
import tseslint from "typescript-eslint";
import { describe, expect, it } from "vitest";
// @ts-expect-error: the rules are a plain ES module at the repository root, without types.
import { boundaries } from "../../eslint.boundaries.js";

// Only the boundary rules, with the TypeScript parser (no type information needed).
const config = [
  { files: ["**/*.ts"], languageOptions: { parser: tseslint.parser } },
  ...(boundaries as object[]),
] as ESLint.Options["overrideConfig"];
const eslint = new ESLint({
  cwd: new URL("../..", import.meta.url).pathname,
  overrideConfigFile: true,
  overrideConfig: config,
});

async function violations(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((m) => `${m.ruleId ?? "?"}: ${m.message}`);
}

describe("import boundaries", () => {
  const cases: Array<[string, string]> = [
    ["packages/agent/src/probe.ts", `import { Store } from "@palisade/store";`],
    ["packages/agent/src/probe.ts", `import { createShield } from "@palisade/shield";`],
    ["packages/agent/src/probe.ts", `const m = await import("@palisade/capabilities");`],
    ["packages/subagent/src/probe.ts", `import { startEngine } from "@palisade/engine";`],
    ["packages/protocol/src/probe.ts", `import type { Verdict } from "@palisade/shield";`],
    ["packages/store/src/probe.ts", `import { startEngine } from "@palisade/engine";`],
    ["packages/shield/src/probe.ts", `import { loadManifest } from "@palisade/capabilities";`],
    ["packages/sandbox/src/probe.ts", `import { x } from "@palisade/engine";`],
    ["packages/sandbox/src/probe.ts", `import { x } from "@palisade/config";`],
    ["packages/capabilities/src/probe.ts", `import { Store } from "@palisade/store";`],
    ["apps/capabilities/files/src/probe.ts", `import { CapabilityHost } from "@palisade/capabilities";`],
    ["packages/engine/src/probe.ts", `import { startScriptedServer } from "@palisade/testing";`],
    ["packages/config/src/probe.ts", `import { startEngine } from "@palisade/engine";`],
    ["apps/cli/src/commands/probe.ts", `import { Store } from "@palisade/store";`],
    ["apps/cli/src/commands/audit.ts", `const { Store } = await import("@palisade/store");`],
    ["apps/cli/src/commands/probe.ts", `import Database from "better-sqlite3";`],
    ["apps/cli/src/engine/probe.ts", `const pg = await import("pg");`],
  ];
  it.each(cases)("refuses in %s: %s", async (file, code) => {
    const found = await violations(file, code);
    expect(found.join("\n")).toMatch(/^no-restricted-(imports|syntax): .*Import boundary: /m);
  });

  const allowed: Array<[string, string]> = [
    ["packages/agent/src/probe.ts", `import { createClient } from "@palisade/protocol";`],
    ["packages/engine/src/probe.ts", `import { Store } from "@palisade/store";`],
    ["packages/config/src/probe.ts", `import { loadPolicy } from "@palisade/shield/policy";`],
    ["apps/cli/src/commands/probe.ts", `import type { SessionRecord } from "@palisade/store";`],
    ["apps/cli/src/commands/store.ts", `const { PgStore } = await import("@palisade/store");`],
    ["apps/cli/src/engine/local-history.ts", `const { Store } = await import("@palisade/store");`],
    ["apps/cli/src/commands/sessions.ts", `import { inTextOrder } from "@palisade/store/text-order";`],
    ["packages/capabilities/src/probe.ts", `import { launch } from "@palisade/sandbox";`],
    ["apps/capabilities/files/src/probe.ts", `import { serve } from "@palisade/capability-sdk";`],
  ];
  it.each(allowed)("allows in %s: %s", async (file, code) => {
    expect(await violations(file, code)).toEqual([]);
  });
});
