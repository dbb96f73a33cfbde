import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { runCapabilityCli } from "@palisade/capabilities";
import { tempDir } from "./helpers.js";
import { everythingConfig, filesystemConfig } from "./mcp-helpers.js";

const dir = tempDir();
const work = tempDir("palisade-mcp-cli-ws-");

// The current directory is the workspace: the only host directory a sandboxed server can see
// besides the read-only system (its /tmp is its own).
function io() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => err.push(s) }, env: {}, cwd: work },
    out: () => out.join(""),
    err: () => err.join(""),
  };
}

writeFileSync(join(work, "readme.md"), "# hi\n");
const config = join(dir, "config.yaml");
writeFileSync(config, stringify({ capabilities: [everythingConfig(), filesystemConfig(work)] }));
const dataDir = join(dir, "data");

describe("palisade capability with MCP servers", () => {
  it("list shows MCP entries without starting them", async () => {
    const u = io();
    expect(await runCapabilityCli(["list", "--config", config], u.io)).toBe(0);
    expect(u.out()).toContain("everything (mcp stdio) tools discovered at runtime");
    expect(u.out()).toContain("fs (mcp stdio)");
  });

  it("check prints the server's name, version, capabilities and tools", async () => {
    const u = io();
    expect(await runCapabilityCli(["check", "fs", "--config", config, "--data-dir", dataDir], u.io)).toBe(0);
    const out = u.out();
    expect(out).toContain("ok fs: MCP server secure-filesystem-server 0.2.0");
    expect(out).toContain("capabilities: tools");
    expect(out).toMatch(/fs__list_directory {2}\[allow\]/);
    expect(out).toMatch(/fs__write_file {2}\[ask\]/);
    const j = io();
    expect(await runCapabilityCli(["check", "everything", "--config", config, "--data-dir", dataDir, "--json"], j.io)).toBe(0);
    const [report] = JSON.parse(j.out()) as Array<{ server: { name: string; version: string }; tools: { name: string }[] }>;
    expect(report?.server).toMatchObject({ name: "mcp-servers/everything", version: "2.0.0" });
    expect(report?.tools.map((t) => t.name)).toContain("everything__get-tiny-image");
  });

  it("call runs a tool and saves artifacts with --out", async () => {
    const u = io();
    expect(await runCapabilityCli(["call", "fs", "list_directory", JSON.stringify({ path: work }), "--config", config, "--data-dir", dataDir], u.io)).toBe(0);
    expect(u.out().trim()).toBe("[FILE] readme.md");
    const out = join(dir, "out");
    const img = io();
    expect(await runCapabilityCli(["call", "everything", "get-tiny-image", "--config", config, "--data-dir", dataDir, "--out", out], img.io)).toBe(0);
    const saved = /saved (.+)/.exec(img.out())?.[1];
    expect(readFileSync(saved!).subarray(0, 4).toString("hex")).toBe("89504e47");
  });

  it("a tool error exits 1 with the server's message", async () => {
    const u = io();
    expect(await runCapabilityCli(["call", "fs", "read_text_file", '{"path":"/etc/hostname"}', "--config", config, "--data-dir", dataDir], u.io)).toBe(1);
    expect(u.out()).toContain("Access denied");
  });
});
