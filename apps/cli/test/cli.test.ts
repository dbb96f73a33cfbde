import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { runCli } from "../src/cli/run-cli.js";
import { COMMAND_TREE } from "../src/cli/tree.js";
import type { CommandSpec } from "../src/cli/spec.js";
import { DELEGATES, runDelegated } from "../src/commands/delegates.js";
import { captureIo } from "./helpers.js";

function allPaths(spec: CommandSpec, prefix: string[] = []): string[][] {
  const subs = spec.subcommands ?? [];
  return [prefix, ...subs.flatMap((s) => allPaths(s, [...prefix, s.name]))];
}

describe("palisade command line", () => {
  it.each(allPaths(COMMAND_TREE).map((p) => [p.join(" ") || "(root)", p]))("%s --help prints usage and exits 0", async (_name, path) => {
    const io = captureIo();
    const code = await runCli([...path, "--help"], io);
    expect(code).toBe(0);
    expect(io.out()).toContain(`Usage: palisade${path.length ? ` ${path.join(" ")}` : ""}`);
    expect(io.out()).toContain("--data-dir DIR");
  });

  it("capability credentials set stores a value read from stdin (for ${secret:name} of MCP servers)", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "palisade-cli-cred-"));
    const io = captureIo();
    (io.stdin as PassThrough).end("ghp_example_value\n");
    expect(await runCli(["capability", "credentials", "set", "github", "github_token", "--data-dir", dataDir], io)).toBe(0);
    expect(io.out()).toContain('stored github github_token for user "local"');
    expect(readFileSync(join(dataDir, "credentials.json"), "utf8")).toContain("ghp_example_value");
    expect(io.out()).not.toContain("ghp_example_value");
  });

  it("lists what exists for an unknown command", async () => {
    const io = captureIo();
    expect(await runCli(["sesions"], io)).toBe(2);
    expect(io.err()).toContain("unknown command 'sesions'");
    expect(io.err()).toContain("chat, run, engine, sessions, shield, capability, audit");
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

  it("requires the prompt of run", async () => {
    const io = captureIo();
    expect(await runCli(["run"], io)).toBe(2);
    expect(io.err()).toContain("'palisade run' needs <prompt>");
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
    expect(io.out()).toContain("Usage: palisade run <prompt...> [options]");
  });

  it("a delegated command whose package is missing says so and exits 2", async () => {
    const missing = { packageName: "@palisade/does-not-exist", exportName: "runNothingCli", what: "nothing" };
    const tree: CommandSpec = {
      name: "palisade",
      summary: "test",
      subcommands: [{ name: "thing", summary: "a thing", passThrough: true, run: runDelegated(missing) }],
    };
    const io = captureIo();
    expect(await runCli(["thing", "--x"], io, tree)).toBe(2);
    expect(io.err()).toContain("'palisade thing' is not available yet");
    expect(io.err()).toContain("runNothingCli() from @palisade/does-not-exist");
  });

  it("a delegated command gets the words after the top-level command", async () => {
    const seen: string[][] = [];
    const tree: CommandSpec = {
      name: "palisade",
      summary: "test",
      subcommands: [
        {
          name: "shield",
          summary: "s",
          subcommands: [{ name: "check", summary: "c", passThrough: true, run: async (ctx) => (seen.push(ctx.rawArgs), 0) }],
        },
      ],
    };
    expect(await runCli(["--data-dir", "/d", "shield", "check", "--json", "tool"], captureIo(), tree)).toBe(0);
    expect(seen).toEqual([["check", "--json", "tool"]]);
  });

  it("the delegation table names the packages that will provide shield, capability and audit", () => {
    expect(DELEGATES.shield).toMatchObject({ packageName: "@palisade/shield", exportName: "runShieldCli" });
    expect(DELEGATES.capability.packageName).toBe("@palisade/capabilities");
    expect(DELEGATES.audit.packageName).toBe("@palisade/store");
  });
});
