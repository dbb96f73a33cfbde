// A broken policy file keeps the Engine from starting (it refuses to guess a policy), but not
// the user from their history: sessions list, show and search read it from the database.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { echoReply, startScriptedServer } from "@palisade/testing";
import type { ScriptedServer } from "@palisade/testing";
import { built, sh } from "./bin.js";

describe.skipIf(!built)("history with a broken policy file", () => {
  let model: ScriptedServer;
  let root: string;
  let g: string[];
  let env: Record<string, string>;
  beforeAll(async () => {
    model = await startScriptedServer({ fallback: echoReply, tokenDelayMs: 0 });
    root = mkdtempSync(join(tmpdir(), "ppolicy-"));
    mkdirSync(join(root, "w"));
    writeFileSync(join(root, "policy.yaml"), "version: 1\nname: mine\nrules: []\n");
    writeFileSync(
      join(root, "config.yaml"),
      `model:\n  base_url: ${model.baseURL}\n  name: scripted-model\nhistory:\n  auto_title: false\nshield:\n  policy_file: ${join(root, "policy.yaml")}\n`,
    );
    g = ["--data-dir", join(root, "d"), "--config", join(root, "config.yaml")];
    env = { HOME: root };
  });
  afterAll(async () => {
    await sh([...g, "engine", "stop"], root, env);
    await model?.close();
    rmSync(root, { recursive: true, force: true });
  }, 60_000);

  it("sessions list, show and search work while the Engine refuses the policy", async () => {
    const run = await sh([...g, "run", "the harbour opens at nine"], join(root, "w"), env);
    expect(run.code, run.err).toBe(0);
    expect((await sh([...g, "engine", "stop"], root, env)).code).toBe(0);
    // the policy file breaks: the Engine will not start with it
    writeFileSync(join(root, "policy.yaml"), "version: 1\nrules: [\n  - {id: x\n");

    const list = await sh([...g, "sessions", "list"], root, env);
    expect(list.code, list.err).toBe(0);
    expect(list.out).toMatch(/ses_\w+.*the harbour opens at nine/);
    expect(list.err).toContain("policy.yaml");
    const id = /(ses_[0-9a-f]+)/.exec(list.out)?.[1] ?? "";
    const show = await sh([...g, "sessions", "show", id], root, env);
    expect(show.code, show.err).toBe(0);
    expect(show.out).toContain("user: the harbour opens at nine");
    expect(show.out).toContain("assistant: (scripted model) You said: the harbour opens at nine");
    const search = await sh([...g, "sessions", "search", "harbour"], root, env);
    expect(search.code, search.err).toBe(0);
    expect(search.out).toContain("[harbour]");
  }, 180_000);
});
