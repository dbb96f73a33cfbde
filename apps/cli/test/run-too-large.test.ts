// A prompt over the Engine's per-message limit, piped into the real `bin/palisade run` (real Engine
// and Agent, the scripted model): the user reads the limit and what to do instead, not a raw gRPC
// status, and the Engine is still serving afterwards.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedServer } from "@palisade/testing";
import type { ScriptedServer } from "@palisade/testing";
import { built, palisade, sh } from "./bin.js";

/** `bin/palisade ARGS` with `input` on stdin; never rejects. */
function shWithStdin(
  args: string[],
  cwd: string,
  env: Record<string, string>,
  input: string,
): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(palisade, args, { cwd, env: { PATH: process.env.PATH ?? "", ...env } });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString("utf8")));
    child.stderr.on("data", (d: Buffer) => (err += d.toString("utf8")));
    child.stdin.on("error", () => undefined);
    child.stdin.end(input);
    child.on("close", (code) => resolve({ code: code ?? 1, out, err }));
  });
}

describe.skipIf(!built)("palisade run with a prompt over the Engine's message limit", () => {
  let model: ScriptedServer;
  let root: string;
  let g: string[];
  let env: Record<string, string>;
  beforeAll(async () => {
    model = await startScriptedServer({ turns: [{ content: "the Engine still answers" }], tokenDelayMs: 0 });
    root = mkdtempSync(join(tmpdir(), "ptoolarge-"));
    mkdirSync(join(root, "w"));
    writeFileSync(
      join(root, "config.yaml"),
      `model:\n  base_url: ${model.baseURL}\n  name: scripted-model\nhistory:\n  auto_title: false\n`,
    );
    g = ["--data-dir", join(root, "d"), "--config", join(root, "config.yaml")];
    env = { HOME: root, OPENAI_API_KEY: "sk-test" };
  }, 60_000);

  afterAll(async () => {
    await sh([...g, "engine", "stop"], root, env);
    await model?.close();
    rmSync(root, { recursive: true, force: true });
  }, 60_000);

  it("a 5 MB prompt from stdin fails with the limit and the fix, and the Engine stays up", async () => {
    const prompt = "x".repeat(5 * 1024 * 1024);
    const r = await shWithStdin([...g, "run"], join(root, "w"), env, prompt);
    expect(r.code, r.err).not.toBe(0);
    expect(r.err).not.toContain("RESOURCE_EXHAUSTED");
    expect(r.err).toContain("this message is 5.0 MB, over the Engine's limit of 1.0 MB per message");
    expect(r.err).toContain("limits.client_max_message");
    expect(r.err).toContain("Save the text as a file in the workspace and ask about that file instead");
    expect(r.err).not.toContain("input box");

    const status = await sh([...g, "engine", "status"], root, env);
    expect(status.code, status.err).toBe(0);
    expect(status.out).toMatch(/running/i);
    // and it still answers a turn
    const next = await sh([...g, "run", "say something"], join(root, "w"), env);
    expect(next.code, next.err).toBe(0);
    expect(next.out).toContain("the Engine still answers");
  }, 180_000);
});
