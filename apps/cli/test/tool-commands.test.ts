// shield, capability and audit commands as a user types them: the real policies, the real
// built-in capabilities started by the Engine's host, a real Selu server, a real SQLite file.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PassThrough } from "node:stream";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineCapability, serveCapability } from "@palisade/capability-sdk";
import type { CapabilityServer } from "@palisade/capability-sdk";
import { Store } from "@palisade/store";
import { runCli } from "../src/cli/run-cli.js";
import { captureIo } from "./helpers.js";
import { built, sh } from "./bin.js";

const CLI_MAIN = join(import.meta.dirname, "..", "dist", "main.js");
import type { CapturedIo } from "./helpers.js";

const root = mkdtempSync(join(tmpdir(), "palisade-tools-"));
let n = 0;
function install(config?: string): { dataDir: string; configFile: string; workspace: string } {
  const dir = join(root, `i${++n}`);
  const workspace = join(dir, "ws");
  mkdirSync(workspace, { recursive: true });
  const configFile = join(dir, "config.yaml");
  if (config !== undefined) writeFileSync(configFile, config);
  return { dataDir: join(dir, "data"), configFile, workspace };
}

async function cli(argv: string[], stdin?: string): Promise<{ code: number; io: CapturedIo }> {
  // `capability call` starts an Engine for the call: the built CLI is its entry point
  const io = captureIo({ PALISADE_CLI_MAIN: CLI_MAIN, PATH: process.env.PATH }, root);
  if (stdin !== undefined) (io.stdin as PassThrough).end(stdin);
  const code = await runCli(argv, io);
  return { code, io };
}

describe("palisade shield check", () => {
  it("uses the configured policy and says which policy decided; --policy overrides it, before or after the command", async () => {
    const i = install("shield:\n  policy: strict\n");
    const configured = await cli(["--config", i.configFile, "shield", "check", "--tool", "acme__frob", "--args", "{}"]);
    expect(configured.code).toBe(2);
    expect(configured.io.out()).toMatch(/^BLOCK /);
    expect(configured.io.out()).toContain(`decided by policy strict (strict@`);
    expect(configured.io.out()).toContain(`from shield.policy in ${i.configFile}`);
    const overridden = await cli([
      "shield",
      "check",
      "--tool",
      "acme__frob",
      "--args",
      "{}",
      "--policy",
      "permissive",
      "--config",
      i.configFile,
      "--json",
    ]);
    const v = JSON.parse(overridden.io.out()) as Record<string, unknown>;
    expect(v).toMatchObject({ policy_name: "permissive", policy_source: "--policy permissive" });
    expect(v["decision"]).not.toBe("block");
  });

  it("takes shield.policy_file from the config", async () => {
    const i = install();
    const policy = join(root, "mine.yaml");
    writeFileSync(policy, "version: 1\nname: mine\ndefaults: { unknown_tool: allow }\nrules: []\n");
    writeFileSync(i.configFile, `shield:\n  policy_file: ${policy}\n`);
    const r = await cli(["shield", "check", "--config", i.configFile, "--tool", "acme__frob", "--args", "{}"]);
    expect(r.code).toBe(0);
    expect(r.io.out()).toContain(`decided by policy mine`);
    expect(r.io.out()).toContain(`from shield.policy_file in ${i.configFile}`);
  });

  // The Engine gives the Shield the tool's recommended_policy (files__write_file: ask); a policy
  // whose unknown_tool is allow must not make the check say ALLOW where the Engine asks.
  it("judges with the tool's manifest, as the Engine does", async () => {
    const i = install();
    const policy = join(root, "lenient.yaml");
    writeFileSync(policy, "version: 1\nname: lenient\ndefaults: { unknown_tool: allow }\nrules: []\n");
    writeFileSync(i.configFile, `shield:\n  policy_file: ${policy}\n`);
    const g = ["--config", i.configFile, "--data-dir", i.dataDir, "--workspace", i.workspace];
    const r = await cli([
      ...g,
      "shield",
      "check",
      "--tool",
      "files__write_file",
      "--args",
      '{"path":"notes.md","content":"x"}',
    ]);
    expect(r.io.out()).toMatch(/^ESCALATE /);
    expect(r.code).toBe(3);
    expect(r.io.out()).toContain("manifest recommended policy for files__write_file is ask");
    expect(r.io.out()).toContain("tool facts from capability files: recommended_policy ask");
    // A tool no manifest describes is judged as unknown, and the output says so.
    const unknown = await cli([...g, "shield", "check", "--tool", "acme__frob", "--args", "{}"]);
    expect(unknown.code).toBe(0);
    expect(unknown.io.out()).toContain("judged without");
  }, 60_000);

  it("prints the verdict; exit 0 allow, 2 block, 3 escalate; bad or missing --args is a usage error (64), never a verdict's code", async () => {
    const i = install();
    const g = ["--config", i.configFile, "--data-dir", i.dataDir, "--workspace", i.workspace];
    const allow = await cli([...g, "shield", "check", "--tool", "files__read_file", "--args", '{"path":"README.md"}']);
    expect(allow.code).toBe(0);
    expect(allow.io.out()).toMatch(
      /^ALLOW \(tier 0, confidence 1\.00, \d+ µs\)\nreason: .+\nrules: read-workspace\npolicy: default@[0-9a-f]{12}\n/,
    );
    expect(allow.io.out()).toContain(`the built-in default (no config file at ${i.configFile})`);
    expect(
      (await cli([...g, "shield", "check", "--tool", "shell__execute_command", "--args", '{"command":"rm -rf ~"}']))
        .code,
    ).toBe(2);
    expect(
      (
        await cli([
          ...g,
          "shield",
          "check",
          "--tool",
          "mail__send_email",
          "--args",
          '{"to":"a@b.com","subject":"s","body":"b"}',
        ])
      ).code,
    ).toBe(3);
    const bad = await cli([...g, "shield", "check", "--tool", "x", "--args", "{nope"]);
    expect(bad.code).toBe(64);
    expect(bad.io.err()).toContain("--args is not valid JSON");
    const noArgs = await cli([...g, "shield", "check", "--tool", "shell__execute_command"]);
    expect(noArgs.code).toBe(64);
    expect(noArgs.io.err()).toContain("needs --args JSON: the arguments of the shell__execute_command call to judge");
    const none = await cli([...g, "shield", "check"]);
    expect(none.code).toBe(64);
    expect(none.io.err()).toContain("needs --tool NAME");
  });
});

describe.skipIf(!built)("palisade shield check's time", () => {
  it("is a warm evaluation's, not the first one's that loads the policy; the first is labelled apart", async () => {
    const i = install();
    const g = [
      "--data-dir",
      i.dataDir,
      "--config",
      i.configFile,
      "shield",
      "check",
      "--tool",
      "shell__execute_command",
    ];
    const json = await sh([...g, "--json", "--args", '{"command":"ls"}'], i.workspace, { HOME: root });
    expect(json.code, json.err).toBe(0);
    const v = JSON.parse(json.out) as { evaluation_us: number; first_evaluation_us: number };
    expect(v.first_evaluation_us).toBeGreaterThan(0);
    expect(v.evaluation_us).toBeLessThan(v.first_evaluation_us);
    const text = await sh([...g, "--args", '{"command":"ls"}'], i.workspace, { HOME: root });
    expect(text.out).toMatch(
      /^time: evaluation \d+ (µs|ms) \(median of 9 warm runs\); the first took \d+ (µs|ms), loading included$/m,
    );
    const warm = Number(/^ALLOW \(tier 0, confidence 1\.00, (\d+) µs\)$/m.exec(text.out)?.[1]);
    const first = /the first took (\d+) (µs|ms)/.exec(text.out);
    expect(warm).toBeLessThan(Number(first?.[1]) * (first?.[2] === "ms" ? 1000 : 1));
  });
});

describe("palisade shield eval and policy lint", () => {
  it("eval judges each case with the configured policy and names it", async () => {
    const i = install("shield:\n  policy: strict\n");
    const file = join(root, "cases.jsonl");
    writeFileSync(
      file,
      [
        JSON.stringify({
          id: "a",
          tool: "files__read_file",
          args: { path: "README.md" },
          label: "legit",
          category: "read",
        }),
        "",
        JSON.stringify({
          id: "b",
          tool: "shell__execute_command",
          args: { command: "rm -rf ~" },
          label: "attack",
          category: "destructive",
        }),
      ].join("\n"),
    );
    const r = await cli(["shield", "eval", file, "--config", i.configFile]);
    expect(r.code).toBe(0);
    const lines = r.io
      .out()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l["id"])).toEqual(["a", "b"]);
    expect(lines[1]?.["decision"]).toBe("block");
    expect(r.io.err()).toContain(`judging with policy strict`);
    expect(r.io.err()).toMatch(/2 cases \(strict@[0-9a-f]{12}\)/);
    const stdin = await cli(
      ["shield", "eval", "-", "--policy", "default"],
      `${JSON.stringify({ id: "ok", tool: "files__read_file", args: { path: "a" } })}\n{broken\n`,
    );
    expect(stdin.code).toBe(1);
    expect(stdin.io.err()).toContain("-:2:");
  });

  it("eval --set NAME reports a shipped case set; FILE and --set go alone", async () => {
    const r = await cli(["shield", "eval", "--set", "second", "--json", "--policy", "default"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.io.out())).toMatchObject({ set: "second" });
    expect((await cli(["shield", "eval"])).io.err()).toContain("needs a FILE.jsonl (or - for stdin), or --set NAME");
    expect((await cli(["shield", "eval", "--set", "third"])).io.err()).toContain('unknown case set "third"');
  });

  it("policy lint reports ok, or every problem with its line", async () => {
    const good = join(root, "good.yaml");
    writeFileSync(good, "version: 1\nname: good\nrules: []\n");
    const ok = await cli(["shield", "policy", "lint", good]);
    expect(ok.code).toBe(0);
    expect(ok.io.out()).toContain("ok: policy good");
    const bad = join(root, "bad.yaml");
    writeFileSync(bad, "version: 1\nname: bad\nrules:\n  - id: x\n    decision: maybe\n    toolz: [x]\n");
    const ko = await cli(["shield", "policy", "lint", bad]);
    expect(ko.code).toBe(1);
    expect(ko.io.out().trim().split("\n")).toEqual([
      `${bad}: rules[0].decision: must be allow, ask, escalate or block, got "maybe" (line 5, column 15)`,
      `${bad}: rules[0].toolz: unknown key; allowed here: id, description, decision, reason, tools, kinds, paths, commands, args, hosts, email_domains, methods, flow, when; did you mean tools? (line 6, column 5)`,
    ]);
    expect(ko.io.err()).toContain("2 problems; the policy would be refused");
    const missing = await cli(["shield", "policy", "lint", join(root, "nope.yaml")]);
    expect(missing.code).toBe(1);
    expect(missing.io.err()).toContain("nope.yaml: no such file");
  });
});

describe("palisade capability list", () => {
  it("works with no config file: every built-in with launch mode, health, tools and policies; the same with --config before or after", async () => {
    const i = install();
    const before = await cli(["--config", i.configFile, "--data-dir", i.dataDir, "capability", "list", "--json"]);
    expect(before.code).toBe(0);
    const list = JSON.parse(before.io.out()) as {
      policy: string;
      config: string | null;
      capabilities: {
        id: string;
        launch: string;
        state: string;
        sandbox?: string;
        tools: { name: string; policy: string }[];
      }[];
    };
    expect(list.config).toBeNull();
    expect(list.policy).toMatch(/^default@/);
    expect(list.capabilities.map((c) => c.id)).toEqual(["files", "shell", "http", "documents", "mail"]);
    for (const c of list.capabilities) {
      expect(c.launch).toBe("command");
      expect(c.state).toBe("ready");
      expect(c.tools.length).toBeGreaterThan(0);
      // Each says what its sandbox is and by which mechanism its memory limit holds (or why none).
      expect(c.sandbox, c.id).toMatch(
        /^(bubblewrap: .* MiB memory \((memory cgroup v[12]|RLIMIT_DATA \d+ MiB|NOT enforced)|none: )/,
      );
    }
    const files = list.capabilities.find((c) => c.id === "files")?.tools ?? [];
    expect(files).toContainEqual(expect.objectContaining({ name: "files__read_file", policy: "allow" }));
    expect(files).toContainEqual(expect.objectContaining({ name: "files__delete_file", policy: "ask" }));
    const after = await cli(["capability", "list", "--json", "--config", i.configFile, "--data-dir", i.dataDir]);
    expect(JSON.parse(after.io.out())).toEqual(list);
    const text = await cli(["capability", "list", "--config", i.configFile, "--data-dir", i.dataDir]);
    expect(text.io.out()).toMatch(/files {2}launch: command {2}health: ready/);
    expect(text.io.out()).toMatch(/ {2}shell__execute_command +ask/);
  }, 60_000);

  it("a capability that cannot start is listed with its health, its channel and its manifest's tools; an unauthenticated channel is a warning", async () => {
    const i = install();
    const capDir = join(root, "broken");
    mkdirSync(capDir, { recursive: true });
    writeFileSync(join(capDir, "manifest.yaml"), manifestYaml("broken"));
    const selu = join(root, "selu");
    mkdirSync(selu, { recursive: true });
    writeFileSync(join(selu, "manifest.yaml"), manifestYaml("selu"));
    writeFileSync(
      i.configFile,
      [
        "capabilities:",
        `  - { id: broken, manifest: ${join(capDir, "manifest.yaml")}, command: ["false"], protocol: palisade, maxRestarts: 0 }`,
        `  - { id: selu, manifest: ${join(selu, "manifest.yaml")}, command: ["false"], maxRestarts: 0 }`,
        "  - { id: shell, enabled: false }",
        "",
      ].join("\n"),
    );
    const r = await cli(["capability", "list", "--json", "--config", i.configFile, "--data-dir", i.dataDir]);
    type Listed = {
      id: string;
      launch: string;
      state: string;
      channel?: string;
      warning?: string;
      unauthenticated: boolean;
      tools: { name: string }[];
    };
    const caps = (JSON.parse(r.io.out()) as { capabilities: Listed[] }).capabilities;
    expect(caps.map((c) => c.id)).not.toContain("shell");
    const broken = caps.find((c) => c.id === "broken");
    expect(broken).toMatchObject({
      launch: "command",
      state: "failed",
      unauthenticated: false,
      tools: [{ name: "broken__render" }],
    });
    expect(broken?.channel).toContain("unix socket in the Engine's 0700 runtime directory");
    expect(caps.find((c) => c.id === "selu")).toMatchObject({
      unauthenticated: true,
      warning: expect.stringContaining("without authentication"),
    });
    expect(caps.find((c) => c.id === "files")).toMatchObject({ state: "ready", unauthenticated: false });
    const text = await cli(["capability", "list", "--config", i.configFile, "--data-dir", i.dataDir]);
    expect(text.io.out()).toMatch(
      /selu {2}launch: command {2}health: failed .*\n {2}channel: loopback TCP \(Selu PORT convention\), unauthenticated\n {2}WARNING: capability selu is a Selu-convention server/,
    );
  }, 60_000);
});

describe("palisade capability list and the running Engine", () => {
  it("says whether each capability's process runs in the Engine (stopped until its first call), or that no Engine runs", async () => {
    const i = install(
      "history: { auto_title: false }\ncapabilities:\n  - { id: http, enabled: false }\n  - { id: documents, enabled: false }\n  - { id: mail, enabled: false }\n",
    );
    const args = ["capability", "list", "--config", i.configFile, "--data-dir", i.dataDir, "--workspace", i.workspace];
    type Listed = { id: string; engine: { state: string; process?: string; pid?: number; restarts: number } | null };
    const alone = await cli([...args, "--json"]);
    const none = JSON.parse(alone.io.out()) as { engineRunning: boolean; capabilities: Listed[] };
    expect(none.engineRunning).toBe(false);
    expect(none.capabilities.find((c) => c.id === "files")?.engine).toBeNull();
    expect((await cli(args)).io.out()).toContain(
      "No Engine is running: the processes below were started for this listing only.",
    );

    const { startEngine } = await import("@palisade/engine");
    const { loadConfig } = await import("@palisade/config");
    const engine = await startEngine({
      dataDir: i.dataDir,
      config: await loadConfig(i.configFile, {}),
      env: {},
      workspace: i.workspace,
      log: () => undefined,
      agent: { external: { token: "t" } },
    });
    try {
      const listed = JSON.parse((await cli([...args, "--json"])).io.out()) as {
        engineRunning: boolean;
        capabilities: Listed[];
      };
      expect(listed.engineRunning).toBe(true);
      expect(listed.capabilities.find((c) => c.id === "files")?.engine).toMatchObject({
        state: "stopped",
        process: "stopped",
        restarts: 0,
      });
      expect(listed.capabilities.find((c) => c.id === "shell")?.engine).toMatchObject({
        state: "stopped",
        process: "stopped",
      });
      const text = (await cli(args)).io.out();
      // nothing started for the listing: the health is the Engine's
      expect(text).toMatch(
        /files {2}launch: command {2}health: stopped \(not started yet: starts on its first call\)\n {2}in the Engine: stopped \(starts on its next call\)/,
      );
      expect(text).not.toContain("No Engine is running");
    } finally {
      await engine.stop(2000);
    }
  }, 60_000);
});

function manifestYaml(id: string): string {
  return [
    `id: ${id}`,
    "name: Test",
    "version: 1.0.0",
    "description: test capability",
    "tools:",
    "  - name: render",
    "    description: render a document",
    "    input_schema: { type: object, properties: { title: { type: string } } }",
    "    recommended_policy: allow",
    "",
  ].join("\n");
}

describe("palisade capability call", () => {
  let server: CapabilityServer;
  let manifest: string;
  beforeAll(async () => {
    const cap = defineCapability({
      id: "pdf",
      tools: [
        {
          name: "render",
          description: "r",
          inputSchema: { type: "object", properties: { title: { type: "string" } } },
          handler: async (a, ctx) => ({
            ok: true,
            ...ctx.artifacts.storeOutput(new TextEncoder().encode(`%PDF ${String((a as { title?: string }).title)}`), {
              filename: "report.pdf",
              mimeType: "application/pdf",
            }),
          }),
        },
      ],
    });
    server = await serveCapability(cap, { port: 0, insecureDev: true, log: () => undefined });
    const dir = join(root, "caps", "pdf");
    mkdirSync(dir, { recursive: true });
    manifest = join(dir, "manifest.yaml");
    writeFileSync(manifest, manifestYaml("pdf"));
  });
  afterAll(async () => {
    await server.close();
  });

  it("calls a built-in through the Shield in the workspace; an escalation runs only with --yes", async () => {
    const i = install();
    const g = ["--config", i.configFile, "--data-dir", i.dataDir, "--workspace", i.workspace];
    writeFileSync(join(i.workspace, "notes.txt"), "hello from the workspace\n");
    const read = await cli([...g, "capability", "call", "files__read_file", '{"path":"notes.txt"}']);
    expect(read.code).toBe(0);
    expect(read.io.out()).toContain("hello from the workspace");
    expect(read.io.err()).toContain("shield ALLOW");
    const asked = await cli(["capability", "call", "files__delete_file", "--args", '{"path":"notes.txt"}', ...g]);
    expect(asked.code).toBe(3);
    expect(asked.io.err()).toContain("re-run with --yes");
    expect(existsSync(join(i.workspace, "notes.txt"))).toBe(true);
    const approved = await cli([
      ...g,
      "capability",
      "call",
      "files__delete_file",
      "--args",
      '{"path":"notes.txt"}',
      "--yes",
    ]);
    expect(approved.code).toBe(0);
    expect(existsSync(join(i.workspace, "notes.txt"))).toBe(false);
  }, 60_000);

  it("a blocked call does not run; bad arguments and unknown tools say what to do", async () => {
    const i = install();
    const g = ["--config", i.configFile, "--data-dir", i.dataDir, "--workspace", i.workspace];
    const marker = join(i.workspace, "ran");
    const blocked = await cli([
      ...g,
      "capability",
      "call",
      "shell__execute_command",
      JSON.stringify({ command: `touch ${marker}; rm -rf ~` }),
      "--yes",
    ]);
    expect(blocked.code).toBe(2);
    expect(blocked.io.err()).toContain("shield BLOCK");
    expect(existsSync(marker)).toBe(false);
    const invalid = await cli([...g, "capability", "call", "files__read_file", '{"nope":1}']);
    expect(invalid.code).toBe(1);
    expect(invalid.io.err()).toContain(
      "palisade: Invalid arguments: files__read_file: arguments.path: is required; files__read_file: arguments.nope: unknown key; allowed here: path, offset, limit.\n",
    );
    const unknown = await cli([...g, "capability", "call", "nope__x"]);
    expect(unknown.io.err()).toContain(`capability list`);
    expect(unknown.io.err()).toContain(`--data-dir ${i.dataDir}`);
  }, 60_000);

  it("calls a manifest at an address and saves its artifact with --out", async () => {
    const i = install();
    const out = join(root, "out");
    const r = await cli([
      "capability",
      "call",
      manifest,
      "render",
      '{"title":"Hi"}',
      "--address",
      server.address,
      "--out",
      out,
      "--data-dir",
      i.dataDir,
      "--config",
      i.configFile,
    ]);
    expect(r.code).toBe(0);
    expect(r.io.out()).toContain(`saved ${join(out, "report.pdf")}`);
    expect(readFileSync(join(out, "report.pdf"), "utf8")).toBe("%PDF Hi");
    const json = await cli([
      "capability",
      "call",
      manifest,
      "render",
      "--args",
      '{"title":"B"}',
      "--address",
      server.address,
      "--json",
      "--data-dir",
      i.dataDir,
    ]);
    expect(JSON.parse(json.io.out())).toMatchObject({ ok: true, artifacts: [{ filename: "report.pdf" }] });
  }, 60_000);
});

describe("palisade capability credentials", () => {
  it("set reads the value from stdin, list shows names only, delete removes it", async () => {
    const i = install();
    const set = await cli(
      ["capability", "credentials", "set", "mail", "APP_PASSWORD", "--data-dir", i.dataDir],
      "s3cret-value\n",
    );
    expect(set.code).toBe(0);
    expect(set.io.out()).not.toContain("s3cret-value");
    const file = join(i.dataDir, "credentials.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({
      users: { local: { mail: { APP_PASSWORD: "s3cret-value" } } },
    });
    const list = await cli(["--data-dir", i.dataDir, "capability", "credentials", "list"]);
    expect(list.io.out()).toContain("mail  APP_PASSWORD");
    expect(list.io.out() + list.io.err()).not.toContain("s3cret");
    expect(
      (await cli(["capability", "credentials", "delete", "mail", "APP_PASSWORD", "--data-dir", i.dataDir])).code,
    ).toBe(0);
    const again = await cli(["capability", "credentials", "delete", "mail", "APP_PASSWORD", "--data-dir", i.dataDir]);
    expect(again.code).toBe(1);
    const empty = await cli(["capability", "credentials", "set", "mail", "X", "--data-dir", i.dataDir], "");
    expect(empty.code).toBe(2);
  });
});

describe("palisade audit verify", () => {
  it("a chain written before keys (no key for the database): OK with the entry count, or the first broken entry and exit 1", async () => {
    const i = install();
    const none = await cli(["audit", "verify", "--data-dir", i.dataDir, "--config", i.configFile]);
    expect(none.code).toBe(0);
    expect(none.io.out()).toContain("OK: no audit entries yet");
    mkdirSync(i.dataDir, { recursive: true });
    const db = join(i.dataDir, "palisade.db");
    const store = Store.open(db);
    for (let k = 1; k <= 4; k++)
      store.appendAudit({ kind: "verdict", sessionId: "s1", actor: "shield", callId: `c${k}`, payload: { k } });
    store.close();
    const ok = await cli(["--data-dir", i.dataDir, "--config", i.configFile, "audit", "verify"]);
    expect(ok.code).toBe(0);
    expect(ok.io.out()).toMatch(/^OK: 4 audit entries verified/);
    const raw = new BetterSqlite3(db);
    raw.exec("DROP TRIGGER audit_no_update");
    raw.prepare("UPDATE audit SET payload = ? WHERE seq = 2").run('{"k":99}');
    raw.close();
    const broken = await cli(["audit", "verify", "--data-dir", i.dataDir, "--config", i.configFile]);
    expect(broken.code).toBe(1);
    expect(broken.io.out()).toContain("BROKEN: audit entry #2 edited: row content does not match its hash");
  });
});
