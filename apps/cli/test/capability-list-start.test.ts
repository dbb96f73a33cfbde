// `capability list` starts only what it is asked about: --static starts nothing, given ids start
// only those. Each capability here says it ran in its own log (data/logs/capabilities/<id>.log),
// which the host writes only once it has launched the process.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startEngine } from "@palisade/engine";
import { loadConfig } from "@palisade/config";
import { createClient } from "@palisade/protocol";
import { ClientService } from "@palisade/protocol/pipeline";
import { waitFor } from "@palisade/testing";
import { runCli } from "../src/cli/run-cli.js";
import { captureIo } from "./helpers.js";

const root = mkdtempSync(join(tmpdir(), "palisade-list-start-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const manifest = [
  "id: marker",
  "name: Marker",
  "version: 1.0.0",
  "description: says it ran",
  "tools:",
  "  - name: render",
  "    description: render a document",
  "    input_schema: { type: object, properties: { title: { type: string } } }",
  "    recommended_policy: allow",
  "",
].join("\n");

/** A config with a command capability and a stdio MCP server that never finishes starting; both print "<id>-ran" when launched. */
function install(withMcp = true): {
  args: string[];
  ranLog: (id: string) => string;
  dataDir: string;
  workspace: string;
} {
  const dir = mkdtempSync(join(root, "i"));
  const workspace = join(dir, "ws");
  mkdirSync(workspace);
  writeFileSync(join(dir, "manifest.yaml"), manifest);
  const configFile = join(dir, "config.yaml");
  writeFileSync(
    configFile,
    [
      "capabilities:",
      `  - { id: marker, manifest: ${join(dir, "manifest.yaml")}, command: ["sh", "-c", "echo marker-ran; exit 1"], protocol: palisade, maxRestarts: 0 }`,
      ...(withMcp
        ? [`  - { id: slowmcp, mcp: { command: ["sh", "-c", "echo slowmcp-ran >&2; exec sleep 60"] } }`]
        : []),
      "",
    ].join("\n"),
  );
  const dataDir = join(dir, "data");
  const ranLog = (id: string): string => {
    const file = join(dataDir, "logs", "capabilities", `${id}.log`);
    return existsSync(file) ? readFileSync(file, "utf8") : "";
  };
  return {
    args: ["--config", configFile, "--data-dir", dataDir, "--workspace", workspace],
    ranLog,
    dataDir,
    workspace,
  };
}

// `capability call` starts an Engine for the call: the built CLI is its entry point.
const CLI_MAIN = join(import.meta.dirname, "..", "dist", "main.js");

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo({ PALISADE_CLI_MAIN: CLI_MAIN, PATH: process.env.PATH }, root);
  const code = await runCli(argv, io);
  return { code, out: io.out(), err: io.err() };
}

type Listed = {
  id: string;
  launch: string;
  state: string;
  dynamic: boolean;
  tools: { name: string; policy: string }[];
};

describe("palisade capability list starts only what it needs", () => {
  it("--static starts nothing and still lists manifest tools, policies and launch modes", async () => {
    const i = install();
    const r = await cli(["capability", "list", "--static", "--json", ...i.args]);
    expect(r.code, r.err).toBe(0);
    const caps = (JSON.parse(r.out) as { capabilities: Listed[] }).capabilities;
    expect(caps.map((c) => c.id)).toEqual(["files", "shell", "http", "documents", "mail", "marker", "slowmcp"]);
    expect(caps.every((c) => c.state === "not_started")).toBe(true);
    expect(caps.find((c) => c.id === "marker")).toMatchObject({
      launch: "command",
      tools: [{ name: "marker__render", policy: "allow" }],
    });
    expect(caps.find((c) => c.id === "files")?.tools.map((t) => t.name)).toContain("files__read_file");
    expect(caps.find((c) => c.id === "slowmcp")).toMatchObject({ launch: "command", dynamic: true, tools: [] });
    expect(i.ranLog("marker")).toBe("");
    expect(i.ranLog("slowmcp")).toBe("");
    expect(r.err).not.toContain("starting");
    const text = await cli(["capability", "list", "--static", ...i.args]);
    expect(text.out).toContain("--static: nothing was started");
    expect(text.out).toMatch(/marker {2}launch: command {2}health: not_started/);
  }, 60_000);

  it("given ids, only those start (the slow MCP server is never launched) and stderr says what is starting", async () => {
    const i = install();
    const r = await cli(["capability", "list", "files", "--json", ...i.args]);
    expect(r.code, r.err).toBe(0);
    const caps = (JSON.parse(r.out) as { capabilities: Listed[] }).capabilities;
    expect(caps.map((c) => [c.id, c.state])).toEqual([["files", "ready"]]);
    expect(i.ranLog("slowmcp")).toBe("");
    expect(i.ranLog("marker")).toBe("");
    expect(r.err).toContain("starting files … (0 of 1 done)");
    expect(r.err).toMatch(/started 1 capability in \d+\.\d s \(1 ready\)/);
    // The same fixture does say it ran once it is asked about.
    const marker = await cli(["capability", "list", "marker", "--json", ...i.args]);
    expect(marker.code, marker.err).toBe(0);
    expect((JSON.parse(marker.out) as { capabilities: Listed[] }).capabilities).toMatchObject([
      { id: "marker", state: "failed" },
    ]);
    expect(i.ranLog("marker")).toContain("marker-ran");
    expect(i.ranLog("slowmcp")).toBe("");
  }, 60_000);

  it("an unknown id is an error that names it", async () => {
    const i = install();
    const r = await cli(["capability", "list", "nope", ...i.args]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("no capability 'nope' in the config or the built-ins");
    expect(r.out).toBe("");
  }, 60_000);
});

describe("palisade capability list with an Engine running", () => {
  it("starts nothing: health and an MCP server's tools come from the Engine, and stderr says so", async () => {
    const i = install(false);
    // a real stdio MCP server, ready at once (its go file exists), that logs each start
    const go = join(i.workspace, "go");
    writeFileSync(go, "");
    const SLOW = join(import.meta.dirname, "../../../packages/capabilities/test/fixtures/mcp/slow.mjs");
    const configFile = i.args[1] ?? "";
    writeFileSync(
      configFile,
      `${readFileSync(configFile, "utf8")}  - { id: slow, mcp: { command: ${JSON.stringify([process.execPath, SLOW])}, env: { GO_FILE: ${JSON.stringify(go)} } } }\n`,
    );
    const engine = await startEngine({
      dataDir: i.dataDir,
      config: await loadConfig(configFile, {}),
      env: {},
      log: () => undefined,
      workspace: i.workspace,
    });
    try {
      const client = createClient(ClientService, engine.address, { bearerToken: engine.bearerToken });
      await waitFor(
        async () => (await client.getStatus({})).capabilities.find((c) => c.id === "slow" && c.state === "ready"),
        { timeoutMs: 30_000, message: "slow to be ready in the Engine" },
      ).finally(() => client.close());
      const starts = (): number => i.ranLog("slow").split("slow server: waiting").length - 1;
      expect(starts()).toBe(1);
      const r = await cli(["capability", "list", "--json", ...i.args]);
      expect(r.code, r.err).toBe(0);
      expect(r.err).toContain(`reading the running Engine's capabilities (pid ${process.pid}): nothing is started`);
      expect(r.err).not.toMatch(/^starting /m);
      const caps = (JSON.parse(r.out) as { engineRunning: boolean; capabilities: Listed[] }).capabilities;
      expect(caps.find((c) => c.id === "slow")).toMatchObject({
        state: "ready",
        tools: [{ name: "slow__echo", policy: "ask" }],
      });
      // a command capability the Engine starts on its first call: stopped there, not started here
      expect(caps.find((c) => c.id === "marker")).toMatchObject({
        state: "stopped",
        tools: [{ name: "marker__render", policy: "allow" }],
      });
      expect(caps.find((c) => c.id === "files")?.state).toBe("stopped");
      expect(i.ranLog("marker")).toBe("");
      expect(starts()).toBe(1);
      const text = await cli(["capability", "list", ...i.args]);
      expect(text.out).toContain(`The running Engine's capabilities (pid ${process.pid})`);
      expect(text.out).toMatch(/slow {2}launch: command {2}health: ready/);
      expect(starts()).toBe(1);
    } finally {
      await engine.stop(2000);
    }
  }, 90_000);
});

describe("palisade capability call starts only the capability it calls", () => {
  // Without the MCP server: the Engine starts MCP servers when it starts and is not ready until they answer.
  it("files__list_directory runs in an Engine that starts files and no other local capability", async () => {
    const i = install(false);
    writeFileSync(join(i.workspace, "a.txt"), "hi\n");
    const r = await cli(["capability", "call", "files__list_directory", '{"path":"."}', ...i.args]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('"path":"a.txt"');
    const log = readFileSync(join(i.dataDir, "engine.log"), "utf8");
    expect(log).toContain("capability files: ready");
    for (const id of ["shell", "http", "documents", "mail", "marker"])
      expect(log, id).not.toMatch(new RegExp(`capability ${id}: (starting|ready|failed)`));
    expect(i.ranLog("marker")).toBe("");
  }, 60_000);
});
