// A turn that says what it will do, calls a tool, then answers: the stored turn reads back with
// its text and its tool card in the order they happened, in the chat's transcript (what
// `chat --resume` and /resume show), in `sessions show` and in `sessions export`. Through the
// real Engine, Agent, files capability and SQLite store, with the scripted model.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedServer } from "@palisade/testing";
import type { ScriptedServer } from "@palisade/testing";
import { runCli } from "../src/cli/run-cli.js";
import { connectToEngine } from "../src/engine/connect.js";
import { resolvePaths } from "../src/engine-address.js";
import { messagesToEntries } from "../src/tui/state/history.js";
import { captureIo } from "./helpers.js";

const main = join(import.meta.dirname, "..", "dist", "main.js");
const built =
  existsSync(main) && existsSync(join(import.meta.dirname, "..", "..", "capabilities", "files", "dist", "main.js"));

const BEFORE = "Let me read the notes first.";
const AFTER = "The notes say: hello world.";

describe.skipIf(!built)("text and tool calls of a stored turn read back in the order they happened", () => {
  let model: ScriptedServer;
  let root: string;
  let ws: string;
  let g: string[];
  let sessionId = "";
  const env = (): Record<string, string | undefined> => ({
    PALISADE_CLI_MAIN: main,
    HOME: root,
    PATH: process.env.PATH,
  });

  beforeAll(async () => {
    model = await startScriptedServer({
      turns: [
        { toolCalls: [{ name: "load_tools", arguments: { groups: ["files"] } }] },
        { content: BEFORE, toolCalls: [{ name: "files__read_file", arguments: { path: "notes.txt" } }] },
        { content: AFTER },
      ],
      tokenDelayMs: 0,
    });
    root = mkdtempSync(join(tmpdir(), "ptextorder-"));
    ws = join(root, "w");
    mkdirSync(ws);
    writeFileSync(join(ws, "notes.txt"), "hello world\n");
    writeFileSync(
      join(root, "config.yaml"),
      `model:\n  base_url: ${model.baseURL}\n  name: scripted-model\nhistory:\n  auto_title: false\n`,
    );
    g = ["--data-dir", join(root, "d"), "--config", join(root, "config.yaml")];
    const io = captureIo(env(), ws);
    const code = await runCli([...g, "run", "what do my notes say?"], io);
    expect(code, io.err()).toBe(0);
    expect(io.out()).toContain(AFTER);
    const list = captureIo(env(), ws);
    expect(await runCli([...g, "sessions", "list", "--json"], list)).toBe(0);
    sessionId = (JSON.parse(list.out()) as { sessions: { id: string }[] }).sessions[0]?.id ?? "";
  }, 120_000);

  afterAll(async () => {
    await runCli([...g, "engine", "stop"], captureIo({ HOME: root }, root));
    await model?.close();
    rmSync(root, { recursive: true, force: true });
  }, 60_000);

  it("the chat's transcript (resume): the announcing text, then the card, then the answer", async () => {
    const conn = await connectToEngine(
      resolvePaths({ dataDir: join(root, "d"), configFile: join(root, "config.yaml") }, {}, root),
    );
    try {
      const res = await conn.client.getHistory({ sessionId });
      const assistant = res.messages.find((m) => m.role === "assistant");
      expect(assistant?.toolCalls.map((c) => [c.toolName, c.textOffset])).toEqual([
        ["files__read_file", BEFORE.length],
      ]);
      const shown = messagesToEntries(res.messages).map((e) =>
        e.kind === "tool" ? `card ${e.toolName}` : e.kind === "assistant" ? `text ${e.text}` : e.kind,
      );
      expect(shown).toEqual(["user", `text ${BEFORE}`, "card files__read_file", `text ${AFTER}`]);
    } finally {
      conn.client.close();
    }
  });

  it("sessions show and sessions export: the same order", async () => {
    const show = captureIo(env(), ws);
    expect(await runCli([...g, "sessions", "show", sessionId], show), show.err()).toBe(0);
    const text = show.out();
    expect(text.indexOf(BEFORE)).toBeGreaterThanOrEqual(0);
    expect(text.indexOf(BEFORE)).toBeLessThan(text.indexOf("[tool] files__read_file"));
    expect(text.indexOf("[tool] files__read_file")).toBeLessThan(text.indexOf(AFTER));

    const exported = captureIo(env(), ws);
    expect(await runCli([...g, "sessions", "export", sessionId], exported), exported.err()).toBe(0);
    const md = exported.out();
    expect(md.indexOf(BEFORE)).toBeGreaterThanOrEqual(0);
    expect(md.indexOf(BEFORE)).toBeLessThan(md.indexOf("Tool call `files__read_file`"));
    expect(md.indexOf("Tool call `files__read_file`")).toBeLessThan(md.indexOf(AFTER));
  });
});
