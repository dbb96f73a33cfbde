// kill -9 of the Engine in the middle of a turn: the user's message of that turn was committed
// when the turn started, so after a restart the history has it and the turn is marked
// interrupted (a TURN_INTERRUPTED event naming the message). Real Engine, real SQLite, real kill.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Store } from "@palisade/store";
import { isAlive, startScriptedServer, waitFor } from "@palisade/testing";
import type { ScriptedServer } from "@palisade/testing";
import { runCli } from "../src/cli/run-cli.js";
import { captureIo } from "./helpers.js";

const repo = join(import.meta.dirname, "..", "..", "..");
const palisade = join(repo, "bin", "palisade");
const main = join(repo, "apps", "cli", "dist", "main.js");
const built = existsSync(main);

describe.skipIf(!built)("a turn cut by kill -9 of the Engine", () => {
  let model: ScriptedServer;
  let root: string;
  let data: string;
  let g: string[];
  beforeAll(async () => {
    // the answer starts streaming, then the model goes quiet: the turn is mid-way when the Engine dies
    model = await startScriptedServer({
      turns: [{ content: "Sure, I will remember the milk and the eggs", stallAfterChunks: 2 }],
      tokenDelayMs: 0,
    });
    root = mkdtempSync(join(tmpdir(), "pkill-"));
    data = join(root, "d");
    mkdirSync(join(root, "w"));
    writeFileSync(
      join(root, "config.yaml"),
      `model:\n  base_url: ${model.baseURL}\n  name: scripted-model\nhistory:\n  auto_title: false\n`,
    );
    g = ["--data-dir", data, "--config", join(root, "config.yaml")];
  }, 60_000);
  afterAll(async () => {
    await runCli([...g, "engine", "stop"], captureIo({ HOME: root }, root));
    await model?.close();
    rmSync(root, { recursive: true, force: true });
  }, 60_000);

  it("keeps the user's message; after a restart the turn is marked interrupted", async () => {
    const run = spawn(palisade, [...g, "run", "please remember the milk"], {
      cwd: join(root, "w"),
      env: { PATH: process.env.PATH ?? "", HOME: root },
    });
    let out = "";
    let err = "";
    run.stdout.on("data", (d: Buffer) => (out += d.toString()));
    run.stderr.on("data", (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((r) => run.once("exit", r));
    await waitFor(() => out.includes("Sure,"), {
      timeoutMs: 60_000,
      message: `the answer starts streaming (stderr: ${err})`,
    });
    const { pid } = JSON.parse(readFileSync(join(data, "engine.json"), "utf8")) as { pid: number };
    process.kill(pid, "SIGKILL");
    await waitFor(() => !isAlive(pid), { timeoutMs: 10_000, message: "the Engine is gone" });
    expect(await exited).not.toBe(0);
    const sessionId = /\(session (ses_[\w-]+)/.exec(err)?.[1];
    expect(sessionId, err).toBeDefined();

    // a new Engine starts on the same data directory and shows the message
    const io = captureIo({ PALISADE_CLI_MAIN: main, HOME: root, PATH: process.env.PATH }, root);
    expect(await runCli([...g, "sessions", "show", sessionId ?? ""], io), io.err()).toBe(0);
    expect(io.out()).toContain("user: please remember the milk");

    const store = Store.open(join(data, "palisade.db"), { readonly: true });
    try {
      const [user] = store.getHistory(sessionId ?? "", { limit: 10 }).messages;
      expect(user).toMatchObject({ role: "user", content: "please remember the milk" });
      const last = store.lastEvent(sessionId ?? "");
      expect(last?.type).toBe("TURN_INTERRUPTED");
      expect(JSON.parse(last?.payload ?? "{}")).toMatchObject({ userMessageId: user?.id });
      expect(store.getSession(sessionId ?? "")?.messageCount).toBe(1);
    } finally {
      store.close();
    }
  }, 180_000);
});
