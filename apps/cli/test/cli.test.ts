import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { runCli } from "../src/cli/run-cli.js";
import { COMMAND_TREE } from "../src/cli/tree.js";
import type { CommandSpec } from "../src/cli/spec.js";
import { GLOBAL_OPTIONS } from "../src/cli/spec.js";
import { parseCommandLine } from "../src/cli/parse.js";
import { captureIo } from "./helpers.js";

function allPaths(spec: CommandSpec, prefix: string[] = []): string[][] {
  const subs = spec.subcommands ?? [];
  return [prefix, ...subs.flatMap((s) => allPaths(s, [...prefix, s.name]))];
}

describe("palisade command line", () => {
  it.each(allPaths(COMMAND_TREE).map((p) => [p.join(" ") || "(root)", p]))(
    "%s --help prints usage and exits 0",
    async (_name, path) => {
      const io = captureIo();
      const code = await runCli([...path, "--help"], io);
      expect(code).toBe(0);
      expect(io.out()).toContain(`Usage: palisade${path.length ? ` ${path.join(" ")}` : ""}`);
      expect(io.out()).toContain("--data-dir DIR");
    },
  );

  it("capability credentials set stores a value read from stdin (for ${secret:name} of MCP servers)", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "palisade-cli-cred-"));
    const io = captureIo();
    (io.stdin as PassThrough).end("ghp_example_value\n");
    expect(
      await runCli(["capability", "credentials", "set", "github", "github_token", "--data-dir", dataDir], io),
    ).toBe(0);
    expect(io.out()).toContain('stored github github_token for user "local"');
    expect(readFileSync(join(dataDir, "credentials.json"), "utf8")).toContain("ghp_example_value");
    expect(io.out()).not.toContain("ghp_example_value");
  });

  it("lists what exists for an unknown command", async () => {
    const io = captureIo();
    expect(await runCli(["sesions"], io)).toBe(2);
    expect(io.err()).toContain("unknown command 'sesions'");
    expect(io.err()).toContain("chat, run, engine, sessions, shield, capability, artifacts, audit");
  });

  it("lists what exists for an unknown subcommand", async () => {
    const io = captureIo();
    expect(await runCli(["sessions", "lst"], io)).toBe(2);
    expect(io.err()).toContain("unknown command 'lst' for 'palisade sessions'");
    expect(io.err()).toContain("list, show, search, export, rename, delete");
  });

  it("names the options of the command for an unknown flag", async () => {
    const io = captureIo();
    expect(await runCli(["chat", "--dmeo"], io)).toBe(2);
    expect(io.err()).toContain("unknown option '--dmeo' for 'palisade chat'");
    expect(io.err()).toContain("--demo, --ephemeral, --otr");
  });

  it("accepts global flags before and after the command", async () => {
    const io = captureIo();
    expect(await runCli(["--data-dir", "/tmp/x", "sessions", "--config", "c.yaml", "list", "--help"], io)).toBe(0);
    expect(io.out()).toContain("Usage: palisade sessions list");
  });

  it("rejects extra arguments", async () => {
    const io = captureIo();
    expect(await runCli(["sessions", "show", "a", "b"], io)).toBe(2);
    expect(io.err()).toContain("unexpected argument 'b'");
  });

  it("bare group commands print their help on stderr with exit 2", async () => {
    const io = captureIo();
    expect(await runCli(["engine"], io)).toBe(2);
    expect(io.err()).toContain("Usage: palisade engine <command>");
    expect(io.err()).toContain("start");
  });

  it("help <command> works like --help", async () => {
    const io = captureIo();
    expect(await runCli(["help", "run"], io)).toBe(0);
    expect(io.out()).toContain("Usage: palisade run [prompt...] [options]");
  });

  it.each(allPaths(COMMAND_TREE).map((p) => [p.join(" ") || "(root)", p]))(
    "%s --help lists every option with its default",
    async (_name, path) => {
      const io = captureIo();
      expect(await runCli([...path, "--help"], io)).toBe(0);
      const spec = path.reduce<CommandSpec>((s, w) => s.subcommands?.find((c) => c.name === w) ?? s, COMMAND_TREE);
      const lines = io.out().split("\n");
      for (const name of [...Object.keys(spec.options ?? {}), ...Object.keys(GLOBAL_OPTIONS)]) {
        const line = lines.find((l) => new RegExp(`^ +(-\\w, )? *--${name}( |$)`).test(l));
        expect(line, `--${name} in 'palisade ${path.join(" ")} --help'`).toBeDefined();
        expect(line).toMatch(/\(default: [^)]+\)/);
      }
    },
  );

  it.each(leafPaths(COMMAND_TREE).map((p) => [p.join(" "), p]))(
    "%s takes --config, --data-dir and --workspace before or after the command words",
    (_name, path) => {
      const spec = path.reduce<CommandSpec>((s, w) => s.subcommands?.find((c) => c.name === w) ?? s, COMMAND_TREE);
      const positionals = (spec.positionals ?? []).filter((p) => p.required).map((p) => `<${p.name}>`);
      const globals = ["--config", "/c.yaml", "--data-dir", "/d", "--workspace", "/w"];
      const before = parseCommandLine(COMMAND_TREE, [...globals, ...path, ...positionals]);
      const after = parseCommandLine(COMMAND_TREE, [...path, ...positionals, ...globals]);
      const between = parseCommandLine(COMMAND_TREE, [path[0] as string, ...globals, ...path.slice(1), ...positionals]);
      for (const parsed of [before, after, between]) {
        expect(parsed.path).toEqual(path);
        expect(parsed.options).toMatchObject({ config: "/c.yaml", "data-dir": "/d", workspace: "/w" });
        expect(parsed.positionals).toEqual(positionals);
      }
    },
  );

  it("the shield, capability and audit commands are declared here, with their options", () => {
    const find = (...path: string[]): CommandSpec | undefined =>
      path.reduce<CommandSpec | undefined>((s, w) => s?.subcommands?.find((c) => c.name === w), COMMAND_TREE);
    expect(Object.keys(find("shield", "check")?.options ?? {})).toEqual(
      expect.arrayContaining(["tool", "args", "policy", "context", "json"]),
    );
    expect(Object.keys(find("capability", "call")?.options ?? {})).toEqual(
      expect.arrayContaining(["args", "session", "out", "json", "yes", "address", "command"]),
    );
    expect(find("capability", "credentials", "set")?.run).toBeTypeOf("function");
    expect(find("audit", "verify")?.run).toBeTypeOf("function");
  });

  it("an unknown option of a tool command is refused by the one parser", async () => {
    const io = captureIo();
    expect(await runCli(["shield", "check", "--tool", "x", "--bogus", "1"], io)).toBe(2);
    expect(io.err()).toContain("unknown option '--bogus' for 'palisade shield check'");
  });
});

function leafPaths(spec: CommandSpec, prefix: string[] = []): string[][] {
  const subs = spec.subcommands ?? [];
  if (subs.length === 0) return prefix.length ? [prefix] : [];
  return subs.flatMap((s) => leafPaths(s, [...prefix, s.name]));
}
