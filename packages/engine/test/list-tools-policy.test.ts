// ListTools reports what the ACTIVE policy decides for each tool (its unconditional rules before
// the manifest's recommendation) and the rules that decide some calls otherwise.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createEngineShield } from "../src/adapters/shield.js";
import { defaultConfig } from "@palisade/config";
import type { ToolSpec } from "../src/ports.js";
import { FakeHost, TOOLS } from "./helpers/fake-host.js";
import { startHarness } from "./helpers/setup.js";

const tool = (name: string, kind: string): ToolSpec => ({
  name,
  capabilityId: "box",
  description: name,
  policy: "ask",
  terminalOnSuccess: false,
  parameters: { type: "object", properties: { path: { type: "string" } } },
  semantics: { kind, paths: { path: "write" } },
});
const RUN = tool("box__run", "shell");
const SAVE = tool("box__save", "file-write");

class BoxHost extends FakeHost {
  override catalog(): ToolSpec[] {
    return [...TOOLS, RUN, SAVE];
  }
}

const dir = mkdtempSync(join(tmpdir(), "pal-tools-policy-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("ListTools", () => {
  it("shows the active policy's decision, not the manifest's recommendation", async () => {
    const file = join(dir, "policy.yaml");
    writeFileSync(
      file,
      [
        "version: 1",
        "name: mine",
        "rules:",
        "  - id: trust-box-run",
        "    tools: [box__run]",
        "    decision: allow",
        "  - id: save-in-workspace",
        "    description: Saving inside the workspace.",
        "    tools: [box__save]",
        '    paths: ["${workspace}/**"]',
        "    decision: allow",
      ].join("\n"),
    );
    const config = defaultConfig();
    config.shield.policyFile = file;
    const h = await startHarness({
      host: new BoxHost(),
      shield: await createEngineShield(config, join(dir, "data"), dir),
      workspace: dir,
    });
    try {
      const { tools } = await h.client.listTools({});
      const run = tools.find((t) => t.def?.name === "box__run");
      expect(run).toMatchObject({ policy: "allow", requiresConfirmation: false, policyRules: [] });
      const save = tools.find((t) => t.def?.name === "box__save");
      expect(save).toMatchObject({ policy: "ask", requiresConfirmation: true });
      expect(
        save?.policyRules.map((r) => ({ ruleId: r.ruleId, decision: r.decision, description: r.description })),
      ).toEqual([{ ruleId: "save-in-workspace", decision: "allow", description: "Saving inside the workspace." }]);
    } finally {
      await h.close();
    }
  });
});
