// `palisade capability check|call|list` with MCP servers from npm, run unmodified in the sandbox
// the Engine gives them; the workspace is --workspace (or the current directory).
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { runCli } from "../src/cli/run-cli.js";
import { captureIo } from "./helpers.js";

const CLI_MAIN = join(import.meta.dirname, "..", "dist", "main.js");

const require = createRequire(join(process.cwd(), "packages", "capabilities", "package.json"));
const serverScript = (pkg: string): string => join(dirname(require.resolve(`${pkg}/package.json`)), "dist", "index.js");

const dir = mkdtempSync(join(tmpdir(), "palisade-mcp-cli-"));
const work = join(dir, "ws");
mkdirSync(work);
writeFileSync(join(work, "readme.md"), "# hi\n");
const config = join(dir, "config.yaml");
writeFileSync(
  config,
  stringify({
    capabilities: [
      {
        id: "everything",
        mcp: { command: [process.execPath, serverScript("@modelcontextprotocol/server-everything"), "stdio"] },
      },
      // Trusted: its readOnlyHint makes list_directory allow. everything is not: its tools ask.
      {
        id: "fs",
        mcp: {
          command: [process.execPath, serverScript("@modelcontextprotocol/server-filesystem"), work],
          trusted: true,
        },
      },
    ],
  }),
);
const dataDir = join(dir, "data");
const g = ["--config", config, "--data-dir", dataDir, "--workspace", work];

async function cli(...argv: string[]) {
  // `capability call` starts an Engine for the call: the built CLI is its entry point
  const io = captureIo({ PALISADE_CLI_MAIN: CLI_MAIN, PATH: process.env.PATH }, work);
  const code = await runCli(argv, io);
  return { code, out: io.out(), err: io.err() };
}

describe("palisade capability with MCP servers", () => {
  it("check prints the server's name, version, capabilities and tools", async () => {
    const r = await cli("capability", "check", "fs", ...g);
    expect(r.code).toBe(0);
    expect(r.out).toContain("ok fs: MCP server secure-filesystem-server 0.2.0");
    expect(r.out).toContain("capabilities: tools");
    expect(r.out).toMatch(/fs__list_directory {2}\[allow\]/);
    expect(r.out).toMatch(/fs__write_file {2}\[ask\]/);
    const j = await cli(...g, "capability", "check", "everything", "--json");
    expect(j.code).toBe(0);
    const [report] = JSON.parse(j.out) as Array<{
      server: { name: string; version: string };
      tools: { name: string }[];
    }>;
    expect(report?.server).toMatchObject({ name: "mcp-servers/everything", version: "2.0.0" });
    expect(report?.tools.map((t) => t.name)).toContain("everything__get-tiny-image");
    expect(j.out).toMatch(/"name": "everything__echo",\s+"description": "[^"]*",\s+"policy": "ask"/);
    const none = await cli("capability", "check", "nosuch", ...g);
    expect(none.code).toBe(1);
    expect(none.err).toContain("no such manifest file, and no MCP server with that id");
  }, 60_000);

  it("call runs a tool (as <id> <tool> or <id>__<tool>) and saves artifacts with --out", async () => {
    const r = await cli("capability", "call", "fs", "list_directory", JSON.stringify({ path: work }), ...g);
    expect(r.code).toBe(0);
    expect(r.out.trim()).toBe("[FILE] readme.md");
    expect(r.err).toContain("shield ALLOW");
    const same = await cli(...g, "capability", "call", "fs__list_directory", "--args", JSON.stringify({ path: work }));
    expect(same.out.trim()).toBe("[FILE] readme.md");
    const out = join(dir, "out");
    const img = await cli("capability", "call", "everything", "get-tiny-image", ...g, "--out", out, "--yes");
    expect(img.code).toBe(0);
    const saved = /saved (.+)/.exec(img.out)?.[1];
    expect(
      readFileSync(saved ?? "", { encoding: null })
        .subarray(0, 4)
        .toString("hex"),
    ).toBe("89504e47");
  }, 60_000);

  it("a tool error exits 1 with the server's message", async () => {
    const r = await cli("capability", "call", "fs", "read_text_file", '{"path":"/etc/hostname"}', ...g, "--yes");
    expect(r.code).toBe(1);
    expect(r.out).toContain("Access denied");
  }, 60_000);
});
