// The endpoint's models in the chat: /models lists them (asked through the Engine, which holds
// the key), and `palisade chat --model NAME` refuses a name the endpoint does not list.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedServer } from "@palisade/testing";
import type { ScriptedServer } from "@palisade/testing";
import { runCli } from "../src/cli/run-cli.js";
import { modelNotListed } from "../src/commands/chat.js";
import { connectToEngine } from "../src/engine/connect.js";
import { resolvePaths } from "../src/engine-address.js";
import { captureIo } from "./helpers.js";
import { enter, fresh, run, type } from "./state.js";

const main = join(import.meta.dirname, "..", "dist", "main.js");

describe("/models in the chat", () => {
  it("asks the Engine, then lists the endpoint's models with the one in use marked", () => {
    const asked = run(fresh({ model: "model-b" }), [...type("/models"), enter]);
    expect(asked.effects).toEqual([{ type: "listModels" }]);
    const shown = run(asked.state, [
      {
        type: "modelsLoaded",
        models: ["model-a", "model-b"],
        configured: "model-b",
        answered: true,
        error: "",
        baseUrl: "http://h/v1",
      },
    ]).state.committed.at(-1);
    expect(shown).toMatchObject({ kind: "notice", level: "info" });
    expect(shown?.kind === "notice" ? shown.text : "").toBe(
      "Models of http://h/v1 (2; /model NAME uses one):\n    model-a\n  ● model-b",
    );
  });

  it("says why there is no list when the endpoint gave none", () => {
    const r = run(fresh({ model: "m" }), [
      {
        type: "modelsLoaded",
        models: [],
        configured: "m",
        answered: false,
        error: "http://h/v1 answered 404: no body",
        baseUrl: "http://h/v1",
      },
    ]);
    expect(r.state.committed.at(-1)).toMatchObject({
      kind: "notice",
      level: "warn",
      text: "/models: http://h/v1 answered 404: no body · the chat uses m",
    });
  });
});

describe.skipIf(!existsSync(main))("palisade chat --model against the endpoint's list (real Engine)", () => {
  let model: ScriptedServer;
  let root: string;
  let g: string[];
  beforeAll(async () => {
    model = await startScriptedServer({ models: ["scripted-model", "model-b"] });
    root = mkdtempSync(join(tmpdir(), "pmodels-"));
    writeFileSync(join(root, "config.yaml"), `model:\n  base_url: ${model.baseURL}\n  name: scripted-model\n`);
    g = ["--data-dir", join(root, "d"), "--config", join(root, "config.yaml")];
  }, 60_000);
  afterAll(async () => {
    await runCli([...g, "engine", "stop"], captureIo({ HOME: root }, root));
    await model?.close();
    rmSync(root, { recursive: true, force: true });
  }, 60_000);

  it("refuses a model the endpoint does not list, naming the ones it does, and stops the Engine it started", async () => {
    const io = captureIo({ PALISADE_CLI_MAIN: main, HOME: root, PATH: process.env.PATH }, root);
    Object.assign(io.stdin, { isTTY: true });
    Object.assign(io.stdout, { isTTY: true, columns: 100, rows: 30 });
    const code = await runCli([...g, "chat", "--model", "gpt-5-nonexistent"], io);
    expect(code, io.err()).toBe(2);
    expect(io.err()).toContain(
      `--model gpt-5-nonexistent: the model endpoint ${model.baseURL} does not list it. It lists: scripted-model, model-b.`,
    );
    const status = captureIo({ HOME: root }, root);
    await runCli([...g, "engine", "status"], status);
    expect(status.out() + status.err()).toMatch(/not running|no Engine/i);
  }, 120_000);

  it("a listed model passes the check", async () => {
    const started = captureIo({ PALISADE_CLI_MAIN: main, HOME: root, PATH: process.env.PATH }, root);
    expect(await runCli([...g, "engine", "start"], started), started.err()).toBe(0);
    const conn = await connectToEngine(
      resolvePaths({ dataDir: join(root, "d"), configFile: join(root, "config.yaml") }, {}, root),
    );
    try {
      expect(await modelNotListed(conn, "model-b")).toBeUndefined();
      expect(await modelNotListed(conn, "model-c")).toContain("does not list it");
    } finally {
      conn.close();
    }
  }, 120_000);
});
