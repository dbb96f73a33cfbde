// `palisade audit verify` on the chain a real Engine writes: keyed with the audit key beside the
// configuration, so the command must verify with that key (it reads it, never creates it).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedServer } from "@palisade/testing";
import type { ScriptedServer } from "@palisade/testing";
import { built, sh } from "./bin.js";

describe.skipIf(!built)("palisade audit verify on a real Engine's keyed chain", () => {
  let model: ScriptedServer;
  let root: string;
  let data: string;
  let config: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    // one tool call, so the turn writes proposal, verdict and result rows besides the messages
    let calls = 0;
    model = await startScriptedServer({
      tokenDelayMs: 0,
      fallback: () =>
        ++calls === 1
          ? { toolCalls: [{ name: "files__list_directory", arguments: { path: "." } }] }
          : { content: "listed" },
    });
    root = mkdtempSync(join(tmpdir(), "paudit-"));
    data = join(root, "d");
    config = join(root, "cfg", "config.yaml");
    mkdirSync(join(root, "cfg"));
    mkdirSync(join(root, "w"));
    writeFileSync(join(root, "w", "a.txt"), "a\n");
    writeFileSync(config, `model:\n  base_url: ${model.baseURL}\n  name: scripted-model\n`);
    env = { HOME: join(root, "home") };
  });
  afterAll(async () => {
    await sh(["--data-dir", data, "--config", config, "engine", "stop"], root, env);
    await model?.close();
    rmSync(root, { recursive: true, force: true });
  }, 60_000);

  it("verifies OK with the key beside the config; an edited row is BROKEN", async () => {
    const run = await sh(["--data-dir", data, "--config", config, "run", "list the files"], join(root, "w"), env);
    expect(run.code, run.err).toBe(0);
    expect(run.out).toContain("listed");
    const stop = await sh(["--data-dir", data, "--config", config, "engine", "stop"], root, env);
    expect(stop.code, stop.err).toBe(0);
    // the Engine keyed the chain: its key file names this database
    const keyFile = join(root, "cfg", "audit.key");
    const key = JSON.parse(readFileSync(keyFile, "utf8")) as { databases: Record<string, number> };
    expect(Object.keys(key.databases)).toEqual([join(data, "palisade.db")]);
    const keyMtime = statSync(keyFile).mtimeMs;

    const ok = await sh(["--data-dir", data, "--config", config, "audit", "verify", "--json"], root, env);
    const verdict = JSON.parse(ok.out) as { ok: boolean; entries: number; problems: unknown[] };
    expect(verdict.problems).toEqual([]);
    expect(verdict.ok).toBe(true);
    expect(verdict.entries).toBeGreaterThanOrEqual(3);
    expect(ok.code).toBe(0);
    const human = await sh(["--data-dir", data, "--config", config, "audit", "verify"], root, env);
    expect(human.out).toMatch(/^OK: \d+ audit entries verified/);
    // verifying reads the key; it neither rewrites it nor makes one elsewhere
    expect(statSync(keyFile).mtimeMs).toBe(keyMtime);
    expect(existsSync(join(root, "home"))).toBe(false);

    const raw = new BetterSqlite3(join(data, "palisade.db"));
    raw.exec("DROP TRIGGER audit_no_update");
    raw.prepare("UPDATE audit SET payload = json_set(payload, '$.edited', 1) WHERE seq = 2").run();
    raw.close();
    const broken = await sh(["--data-dir", data, "--config", config, "audit", "verify"], root, env);
    expect(broken.code).toBe(1);
    expect(broken.out).toContain("BROKEN: audit entry #2 edited: row content does not match its keyed hash");
  }, 180_000);
});
