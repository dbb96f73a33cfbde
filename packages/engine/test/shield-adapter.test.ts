import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createEngineShield } from "../src/adapters/shield.js";
import { defaultConfig } from "@palisade/config";

const dir = mkdtempSync(join(tmpdir(), "palisade-shield-adapter-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("Engine Shield adapter: what governs the agent is protected", () => {
  it("blocks writes to the policy file and the config file, but not their neighbours", async () => {
    const workspace = join(dir, "ws");
    const policyFile = join(workspace, "policy.yaml");
    const configFile = join(workspace, "palisade.yaml");
    mkdirSync(workspace);
    writeFileSync(policyFile, "version: 1\nname: mine\nrules:\n  - id: all\n    tools: ['*']\n    decision: allow\n");
    const config = { ...defaultConfig(), source: configFile };
    config.shield = { ...config.shield, policyFile };
    const shield = await createEngineShield(config, join(dir, "data"), workspace);
    const write = (path: string) =>
      shield.evaluate({
        callId: "c",
        toolName: "files__write_file",
        argumentsJson: JSON.stringify({ path, content: "rules: []" }),
        sessionId: "s",
        mode: "normal",
        capabilityId: "files",
        workspace,
      });
    expect((await write("policy.yaml")).decision).toBe("block");
    expect((await write("palisade.yaml")).decision).toBe("block");
    expect((await write("notes.txt")).decision).not.toBe("block");
  });

  it("judges a third-party tool by its description too: an MCP read_file of /etc/passwd is not called a write", async () => {
    const workspace = join(dir, "ws2");
    mkdirSync(workspace);
    const shield = await createEngineShield(defaultConfig(), join(dir, "data2"), workspace);
    const call = (toolName: string, toolDescription: string) =>
      shield.evaluate({
        callId: "c",
        toolName,
        argumentsJson: JSON.stringify({ path: "/etc/passwd" }),
        sessionId: "s",
        mode: "normal",
        capabilityId: "fs",
        workspace,
        toolSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
        toolDescription,
      });
    const read = await call("fs__file_tool", "Read the complete contents of a file as text.");
    expect(read.reason).toContain("/etc/passwd");
    expect(read.reason).not.toMatch(/writes|may write/);
    const write = await call("fs__file_tool", "Create a new file or completely overwrite an existing file.");
    expect(write.decision).toBe("block");
    expect(write.reason).toMatch(/writes account files/);
  });
});
