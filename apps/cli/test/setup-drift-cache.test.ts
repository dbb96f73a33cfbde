// The remembered "same setup" (engine/setup-check-cache.ts): a client command skips comparing the
// running Engine's setup with its own only while everything the comparison read is unchanged.
// Real files in a temp dir; the Engine's setup is made by the Engine's own code.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { EngineInfo } from "@palisade/config/discovery";
import { currentSetup } from "@palisade/config/setup";
import { resolvePaths } from "../src/engine-address.js";
import type { PalisadePaths } from "../src/engine-address.js";
import { SETUP_CHECK_FILE, recordingEnv } from "../src/engine/setup-check-cache.js";
import { setupDrift } from "../src/engine/setup-drift.js";

const SECRET = "sk-test-never-in-a-file-0123456789";

describe("the remembered setup comparison", () => {
  let root: string;
  let paths: PalisadePaths;
  let env: Record<string, string | undefined>;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "pal-setup-check-"));
    mkdirSync(join(root, "data"), { mode: 0o700 });
    paths = resolvePaths({ dataDir: join(root, "data"), configFile: join(root, "config.yaml") }, {}, root);
    env = { PALISADE_MODEL: "model-one", OPENAI_API_KEY: SECRET, OPENAI_BASE_URL: "http://127.0.0.1:9/v1", HOME: root };
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** engine.json's info of an Engine started now with `startEnv` (its own code computes the setup). */
  async function startedWith(startEnv: Record<string, string | undefined>, keySalt = "salt-one"): Promise<EngineInfo> {
    const now = await currentSetup(paths.configFile, startEnv, { dataDir: paths.dataDir, keySalt });
    if (!now.ok) throw now.error;
    return { pid: 1, address: "unix:/x", startedAt: "", version: "", setup: now.setup };
  }
  const cacheFile = (): string => join(paths.dataDir, SETUP_CHECK_FILE);

  it("finds no difference, remembers it without the key, and still finds none", async () => {
    const info = await startedWith(env);
    expect(await setupDrift(paths, env, info)).toBeUndefined();
    const cached = readFileSync(cacheFile(), "utf8");
    expect(JSON.parse(cached)).toMatchObject({
      env: expect.arrayContaining(["OPENAI_API_KEY", "OPENAI_BASE_URL", "PALISADE_MODEL"]),
    });
    expect(cached).not.toContain(SECRET);
    expect(cached).not.toContain("model-one");
    expect(await setupDrift(paths, env, info)).toBeUndefined();
  });

  it("reports a variable changed after it was remembered (model, key, base URL)", async () => {
    const info = await startedWith(env);
    expect(await setupDrift(paths, env, info)).toBeUndefined();
    expect((await setupDrift(paths, { ...env, PALISADE_MODEL: "model-two" }, info))?.changes).toEqual([
      { what: "model", from: "model-one", to: "model-two" },
    ]);
    expect((await setupDrift(paths, { ...env, OPENAI_API_KEY: "sk-other" }, info))?.changes.map((c) => c.what)).toEqual(
      ["API key"],
    );
    expect((await setupDrift(paths, { ...env, OPENAI_BASE_URL: undefined }, info))?.changes.map((c) => c.what)).toEqual(
      ["base URL"],
    );
    expect(await setupDrift(paths, env, info)).toBeUndefined();
  });

  it("reports a config file created, edited or emptied after it was remembered", async () => {
    const info = await startedWith(env); // no config file: the defaults
    expect(await setupDrift(paths, env, info)).toBeUndefined();
    writeFileSync(paths.configFile, "");
    expect((await setupDrift(paths, env, info))?.changes.map((c) => c.what)).toEqual(["config file content"]);
    writeFileSync(paths.configFile, "model:\n  name: from-file\n");
    const withFile = await startedWith({ OPENAI_API_KEY: SECRET });
    expect(await setupDrift(paths, { OPENAI_API_KEY: SECRET }, withFile)).toBeUndefined();
    writeFileSync(paths.configFile, "model:\n  name: edited\n");
    expect((await setupDrift(paths, { OPENAI_API_KEY: SECRET }, withFile))?.changes.map((c) => c.what)).toEqual([
      "config file content",
      "model",
    ]);
  });

  it("compares again for another config path or an Engine started since (another setup)", async () => {
    const info = await startedWith(env);
    expect(await setupDrift(paths, env, info)).toBeUndefined();
    const other = { ...paths, configFile: join(root, "other.yaml") };
    expect((await setupDrift(other, env, info))?.changes.map((c) => c.what)).toEqual(["config file"]);
    const restarted = await startedWith({ ...env, PALISADE_MODEL: "model-two" }, "salt-two");
    expect((await setupDrift(paths, env, restarted))?.changes).toEqual([
      { what: "model", from: "model-two", to: "model-one" },
    ]);
  });

  it("a corrupt or foreign entry is compared again, not trusted", async () => {
    const info = await startedWith(env);
    writeFileSync(cacheFile(), "{not json");
    expect(
      (await setupDrift(paths, { ...env, PALISADE_MODEL: "model-two" }, info))?.changes.map((c) => c.what),
    ).toEqual(["model"]);
    writeFileSync(cacheFile(), JSON.stringify({ env: [], key: "0".repeat(64) }));
    expect(
      (await setupDrift(paths, { ...env, PALISADE_MODEL: "model-two" }, info))?.changes.map((c) => c.what),
    ).toEqual(["model"]);
    expect(await setupDrift(paths, env, info)).toBeUndefined();
    expect(JSON.parse(readFileSync(cacheFile(), "utf8")).key).not.toBe("0".repeat(64));
  });

  it("records every variable the config code reads, however it reads it", () => {
    const seen = recordingEnv({ A: "1", B: "2" });
    void seen.env.A;
    void ("C" in seen.env);
    expect([...seen.names].sort()).toEqual(["A", "C"]);
    void { ...seen.env };
    expect([...seen.names].sort()).toEqual(["A", "B", "C"]);
  });
});
