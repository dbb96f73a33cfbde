// "a" (allow for this session) at `palisade run`'s approval prompt, through the real Engine, Agent
// and shell capability: it covers calls of the same effect class only. Another option set is
// another class, and a destructive variant (a recursive delete) is asked every time. Checked by
// effect: what the ungranted calls would have done did not happen.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedServer } from "@palisade/testing";
import type { ScriptedServer } from "@palisade/testing";
import { runCli } from "../src/cli/run-cli.js";
import { captureIo } from "./helpers.js";

const main = join(import.meta.dirname, "..", "dist", "main.js");
const built =
  existsSync(main) && existsSync(join(import.meta.dirname, "..", "..", "capabilities", "shell", "dist", "main.js"));
const sh = (command: string) => ({ toolCalls: [{ name: "shell__execute_command", arguments: { command } }] });

describe.skipIf(!built)("a session grant at run's prompt covers one effect class (real Engine, real shell)", () => {
  let model: ScriptedServer;
  let root: string;
  let ws: string;
  let g: string[];
  beforeAll(async () => {
    model = await startScriptedServer({
      turns: [
        { toolCalls: [{ name: "load_tools", arguments: { groups: ["shell"] } }] },
        sh("rm -f a.tmp"),
        sh("rm -rf src"),
        sh("./deploy.sh --dry-run"),
        sh("./deploy.sh --production"),
        sh("rm -f b.tmp"),
        { content: "all done" },
      ],
      tokenDelayMs: 0,
    });
    root = mkdtempSync(join(tmpdir(), "pgrant-"));
    ws = join(root, "w");
    mkdirSync(join(ws, "src"), { recursive: true });
    writeFileSync(join(ws, "src", "main.ts"), "export {};\n");
    writeFileSync(join(ws, "a.tmp"), "a");
    writeFileSync(join(ws, "b.tmp"), "b");
    writeFileSync(join(ws, "deploy.sh"), '#!/bin/sh\ntouch "deployed$1"\n');
    chmodSync(join(ws, "deploy.sh"), 0o755);
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

  it("'a' on rm -f a.tmp does not let rm -rf src run; 'a' on --dry-run does not let --production run", async () => {
    const io = captureIo({ PALISADE_CLI_MAIN: main, HOME: root, PATH: process.env.PATH }, ws);
    Object.assign(io.stdin, { isTTY: true });
    const asked: string[] = [];
    // answer each prompt as it appears: allow the two harmless calls for the session, deny the rest
    const answering = (async () => {
      for (;;) {
        const prompts = io.err().split("allow? [y] once").length - 1;
        if (prompts > asked.length) {
          const text = io.err().split("\n? ").at(-1) ?? "";
          asked.push(text.split("\n")[0] ?? "");
          (io.stdin as PassThrough).write(/rm -f a\.tmp|--dry-run/.test(text) ? "a" : "n");
        }
        if (io.err().includes("(session ")) return;
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const code = await runCli([...g, "run", "clean up and deploy"], io);
    await answering;
    expect(code, io.err()).toBe(0);
    expect(io.out()).toContain("all done");
    // the effects: the granted calls ran, the ungranted variants did not
    expect(existsSync(join(ws, "a.tmp"))).toBe(false);
    expect(existsSync(join(ws, "deployed--dry-run"))).toBe(true);
    expect(existsSync(join(ws, "src", "main.ts"))).toBe(true);
    expect(existsSync(join(ws, "deployed--production"))).toBe(false);
    // a delete's class is the deleted path itself: rm -f b.tmp is asked, though rm -f a.tmp was granted
    expect(existsSync(join(ws, "b.tmp"))).toBe(true);
    expect(asked.map((a) => /command=(.*)$/.exec(a)?.[1] ?? a)).toEqual([
      '"rm -f a.tmp"',
      '"rm -rf src"',
      '"./deploy.sh --dry-run"',
      '"./deploy.sh --production"',
      '"rm -f b.tmp"',
    ]);
  }, 180_000);
});
