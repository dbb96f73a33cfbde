// `palisade capability call` prints what a tool returned: a file's text with terminal controls
// reaches stdout with them made visible, as in `run` and the chat (format/terminal-text.ts).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../src/cli/run-cli.js";
import { captureIo } from "./helpers.js";

const CLI_MAIN = join(import.meta.dirname, "..", "dist", "main.js");

const root = mkdtempSync(join(tmpdir(), "palisade-capesc-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// eslint-disable-next-line no-control-regex -- none may reach the terminal
const RAW = /[\u001b\u0007\u0080-\u009f\u202e]/;

describe("palisade capability call", () => {
  it("shows a tool's output with ESC, BEL, C1 and bidi controls made visible", async () => {
    const ws = join(root, "ws");
    mkdirSync(ws, { recursive: true });
    writeFileSync(
      join(ws, "notes.txt"),
      "fine\u001b]52;c;ZXZpbA==\u0007\u001b[1A\u001b[2K\u001b[32m✓ all passed\u001b[0m \u009b2J \u202eevil\n",
    );
    // `capability call` starts an Engine for the call: the built CLI is its entry point
    const io = captureIo({ HOME: root, PALISADE_CLI_MAIN: CLI_MAIN, PATH: process.env.PATH }, root);
    const code = await runCli(
      [
        "--config",
        join(root, "config.yaml"),
        "--data-dir",
        join(root, "d"),
        "--workspace",
        ws,
        "capability",
        "call",
        "files__read_file",
        '{"path":"notes.txt"}',
      ],
      io,
    );
    expect(code, io.err()).toBe(0);
    expect(io.out()).not.toMatch(RAW);
    // the result is JSON: it stays JSON, every control as a \u escape
    expect(io.out()).toContain(
      "fine\\u001b]52;c;ZXZpbA==\\u0007\\u001b[1A\\u001b[2K\\u001b[32m✓ all passed\\u001b[0m \\u009b2J \\u202eevil",
    );
    expect(io.err()).not.toMatch(RAW);
  }, 60_000);
});
