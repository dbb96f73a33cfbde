// `palisade capability list --json` shows what the Shield reads each tool's arguments as — for a
// built-in (declared in its manifest), a third-party Selu server (inferred from its schemas, or
// declared in its config entry) and an MCP server from npm — and an invalid `semantics:` block
// refuses `capability list`, `engine start` and the start of `chat`/`run`, naming file and path.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { defineCapability, serveCapability } from "@palisade/capability-sdk";
import type { CapabilityServer } from "@palisade/capability-sdk";
import { runCli } from "../src/cli/run-cli.js";
import { captureIo } from "./helpers.js";

const require = createRequire(join(process.cwd(), "packages", "capabilities", "package.json"));
const FS_SERVER = join(
  dirname(require.resolve("@modelcontextprotocol/server-filesystem/package.json")),
  "dist",
  "index.js",
);

const root = mkdtempSync(join(tmpdir(), "palisade-semantics-"));
const work = join(root, "ws");
mkdirSync(work);
let server: CapabilityServer;
let n = 0;

/** A third-party mail/web capability: schemas only, no semantics of its own. */
const OUTREACH_TOOLS = [
  {
    name: "send_email",
    description: "Sends an e-mail.",
    input_schema: {
      type: "object",
      properties: {
        to: { type: "array", items: { type: "string", format: "email" } },
        subject: { type: "string" },
        body: { type: "string" },
      },
      required: ["to"],
    },
    recommended_policy: "ask",
  },
  {
    name: "fetch_page",
    description: "Fetches a web page.",
    input_schema: { type: "object", properties: { url: { type: "string", format: "uri" } }, required: ["url"] },
    recommended_policy: "ask",
  },
  {
    name: "notify",
    description: "Notifies a contact.",
    input_schema: {
      type: "object",
      properties: { contact: { type: "string" }, note: { type: "string" } },
      required: ["contact"],
    },
    recommended_policy: "ask",
  },
];

function writeManifest(dir: string, tools: unknown[]): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "manifest.yaml");
  writeFileSync(
    file,
    stringify({
      id: "outreach",
      name: "Outreach",
      version: "1.0.0",
      description: "third-party test capability",
      tools,
    }),
  );
  return file;
}

function install(capabilities: unknown[]): { configFile: string; g: string[] } {
  const dir = join(root, `i${++n}`);
  mkdirSync(dir, { recursive: true });
  const configFile = join(dir, "config.yaml");
  writeFileSync(configFile, stringify({ capabilities }));
  return { configFile, g: ["--config", configFile, "--data-dir", join(dir, "data"), "--workspace", work] };
}

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo({}, work);
  const code = await runCli(argv, io);
  return { code, out: io.out(), err: io.err() };
}

type Tool = { name: string; semantics: Record<string, unknown> };
const toolsOf = (out: string, id: string): Tool[] =>
  (JSON.parse(out) as { capabilities: { id: string; tools: Tool[] }[] }).capabilities.find((c) => c.id === id)?.tools ??
  [];
const semanticsOf = (tools: Tool[], name: string): Record<string, unknown> | undefined =>
  tools.find((t) => t.name === name)?.semantics;

beforeAll(async () => {
  const cap = defineCapability({
    id: "outreach",
    tools: OUTREACH_TOOLS.map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.input_schema,
      handler: async () => ({ ok: true }),
    })),
  });
  server = await serveCapability(cap, { port: 0, insecureDev: true, log: () => undefined });
});
afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

describe("capability list --json: each tool's semantics", () => {
  it("built-ins (declared in their manifests), a third-party Selu server (inferred from its schemas; one tool declared in its config entry) and an MCP server", async () => {
    const manifest = writeManifest(join(root, "outreach"), OUTREACH_TOOLS);
    const { g } = install([
      {
        id: "outreach",
        manifest,
        address: server.address,
        semantics: { notify: { kind: "mail", recipients: ["contact"], content: ["note"] } },
      },
      { id: "fs", mcp: { command: [process.execPath, FS_SERVER, work] } },
      { id: "shell", enabled: false },
      { id: "http", enabled: false },
      { id: "documents", enabled: false },
    ]);
    const r = await cli(...g, "capability", "list", "--json");
    expect(r.code, r.err).toBe(0);

    const mail = toolsOf(r.out, "mail");
    expect(semanticsOf(mail, "mail__send_email")).toMatchObject({
      kind: "mail",
      source: "declared",
      recipients: ["to", "cc"],
      writes_files: false,
    });
    expect(semanticsOf(toolsOf(r.out, "files"), "files__write_file")).toMatchObject({
      kind: "file-write",
      source: "declared",
      paths: { path: "write" },
      writes_files: true,
    });

    const outreach = toolsOf(r.out, "outreach");
    expect(semanticsOf(outreach, "outreach__send_email")).toMatchObject({
      kind: "mail",
      source: "inferred",
      recipients: ["to"],
      hosts: [],
      writes_files: false,
    });
    expect(semanticsOf(outreach, "outreach__send_email")?.["outgoing"]).toEqual(
      expect.arrayContaining(["to", "subject", "body"]),
    );
    expect(semanticsOf(outreach, "outreach__fetch_page")).toMatchObject({
      kind: "http",
      source: "inferred",
      hosts: ["url"],
      recipients: [],
    });
    expect(semanticsOf(outreach, "outreach__notify")).toMatchObject({
      kind: "mail",
      source: "declared",
      recipients: ["contact"],
      outgoing: ["contact", "note"],
    });

    const fs = toolsOf(r.out, "fs");
    expect(fs.length).toBeGreaterThan(3);
    // the server's schemas say nothing of `path`: its descriptions and tool names do
    expect(semanticsOf(fs, "fs__read_text_file")).toMatchObject({ source: "inferred", paths: { path: "read" } });
    expect(semanticsOf(fs, "fs__read_file")).toMatchObject({ source: "inferred", paths: { path: "read" } });
    expect(semanticsOf(fs, "fs__write_file")).toMatchObject({ source: "inferred", paths: { path: "write" } });
    expect(semanticsOf(fs, "fs__edit_file")).toMatchObject({ source: "inferred", paths: { path: "write" } });

    const text = await cli(...g, "capability", "list");
    expect(text.out).toMatch(/ {2}outreach__send_email +ask +mail \(inferred\)/);
    expect(text.out).toMatch(/ {2}mail__send_email +ask +mail \(declared\)/);
  }, 90_000);
});

describe("an invalid semantics: block refuses the start, naming file and path", () => {
  it("in the capability's config entry: capability list, engine start and run say where and how to fix it; nothing starts", async () => {
    const manifest = writeManifest(join(root, "outreach-cfg"), OUTREACH_TOOLS);
    const { configFile, g } = install([
      { id: "shell", enabled: false },
      {
        id: "outreach",
        manifest,
        address: server.address,
        semantics: { send_email: { kind: "mail", recipients: [7] }, notify: { kind: "pager" } },
      },
    ]);
    for (const argv of [
      ["capability", "list", "--json"],
      ["engine", "start"],
      ["run", "hello"],
    ]) {
      const r = await cli(...g, ...argv);
      expect(r.code, argv.join(" ")).not.toBe(0);
      expect(r.out).toBe("");
      expect(r.err).toContain(
        `${configFile}: capabilities[1].semantics.send_email.recipients[0]: must be an argument name (got 7)`,
      );
      expect(r.err).toContain(`${configFile}: capabilities[1].semantics.notify.kind: must be one of mail, http`);
      expect(r.err).toContain("docs/policy.md");
      expect(r.err).not.toContain("Engine started");
    }
    // chat (in a terminal) says the same: the Engine it started refused the config and exited.
    const io = captureIo({}, work);
    Object.assign(io.stdin, { isTTY: true });
    Object.assign(io.stdout, { isTTY: true });
    expect(await runCli([...g, "chat"], io)).toBe(1);
    expect(io.err()).toContain(
      `${configFile}: capabilities[1].semantics.send_email.recipients[0]: must be an argument name (got 7)`,
    );
    // Nothing was started: no Engine answers for this data directory.
    expect((await cli(...g, "engine", "status")).code).toBe(3);
  }, 90_000);

  it("a well-formed block naming an argument the tool does not have, or a tool the manifest does not have", async () => {
    const manifest = writeManifest(join(root, "outreach-args"), OUTREACH_TOOLS);
    const { configFile, g } = install([
      {
        id: "outreach",
        manifest,
        address: server.address,
        semantics: { send_email: { kind: "mail", recipients: ["too"] }, sendmail: { kind: "mail" } },
      },
    ]);
    const r = await cli(...g, "capability", "list");
    expect(r.code).not.toBe(0);
    expect(r.err).toContain(
      `${configFile}: capabilities[0].semantics.send_email.recipients[0]: names the argument "too", which the tool's input_schema does not have (its arguments: to, subject, body)`,
    );
    expect(r.err).toContain(
      `${configFile}: capabilities[0].semantics.sendmail: the manifest ${manifest} has no tool "sendmail" (its tools: send_email, fetch_page, notify)`,
    );
  }, 60_000);

  it("in a manifest: the manifest file and the tool's index", async () => {
    const tools = OUTREACH_TOOLS.map((t, i) =>
      i === 2 ? { ...t, semantics: { kind: "mail", recipients: "contact", paths: { note: "scribble" } } } : t,
    );
    const manifest = writeManifest(join(root, "outreach-manifest"), tools);
    const { g } = install([{ id: "outreach", manifest, address: server.address }]);
    for (const argv of [
      ["capability", "list", "--json"],
      ["engine", "start"],
    ]) {
      const r = await cli(...g, ...argv);
      expect(r.code, argv.join(" ")).not.toBe(0);
      expect(r.err).toContain(
        `${manifest}: tools[2].semantics.paths.note: must be one of read, write, delete, exec, unknown (got "scribble")`,
      );
    }
  }, 60_000);
});
