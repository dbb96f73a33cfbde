import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { readEngineInfo, currentSetup, setupChanges } from "@palisade/config";
import type { EngineSetup } from "@palisade/config";
import { startHarness } from "./helpers/setup.js";
import type { Harness } from "./helpers/setup.js";

const KEY = "sk-secret-key-4f1e2d3c";
let h: Harness | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await h?.close();
  h = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempConfig(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), "pal-setup-"));
  dirs.push(dir);
  const file = join(dir, "config.yaml");
  writeFileSync(file, text);
  return file;
}

const CONFIG = "model:\n  base_url: http://127.0.0.1:1/v1\n  name: from-file\n";

describe("engine.json records what the Engine started with", () => {
  it("config path and content hash, model, base URL, data dir; the key only as an HMAC", async () => {
    const configPath = tempConfig(CONFIG);
    h = await startHarness(
      { config: undefined, configPath, env: { OPENAI_API_KEY: KEY, PALISADE_MODEL: "model-one" } },
      false,
    );
    const raw = readFileSync(join(h.dir, "engine.json"), "utf8");
    expect(raw).not.toContain(KEY);
    const info = await readEngineInfo(h.dir);
    expect(info?.setup).toMatchObject({
      configFile: configPath,
      configSha256: createHash("sha256").update(CONFIG).digest("hex"),
      model: "model-one",
      baseUrl: "http://127.0.0.1:1/v1",
      dataDir: h.dir,
      demo: false,
    });
    expect(info?.setup?.apiKeyHmac).toMatch(/^[0-9a-f]{64}$/);
    expect(info?.setup?.keySalt).toMatch(/^[0-9a-f]{32}$/);
  });

  it("GetStatus names the config file and says when its content changed since the start", async () => {
    const configPath = tempConfig(CONFIG);
    h = await startHarness({ config: undefined, configPath, env: {} }, false);
    expect(await h.client.getStatus({})).toMatchObject({ configFile: configPath, configChanged: false });
    writeFileSync(configPath, CONFIG + "# edited\n");
    expect(await h.client.getStatus({})).toMatchObject({ configFile: configPath, configChanged: true });
    writeFileSync(configPath, CONFIG);
    expect((await h.client.getStatus({})).configChanged).toBe(false);
    rmSync(configPath);
    expect((await h.client.getStatus({})).configChanged).toBe(true);
  });

  it("a missing config file is recorded with an empty hash (the defaults)", async () => {
    const configPath = join(tempConfig(""), "..", "absent.yaml");
    h = await startHarness({ config: undefined, configPath, env: { OPENAI_BASE_URL: "http://127.0.0.1:1/v1" } }, false);
    const setup = (await readEngineInfo(h.dir))?.setup;
    expect(setup).toMatchObject({ configSha256: "", model: "gpt-4o-mini", apiKeyHmac: "" });
    expect(setup?.configFile.endsWith("absent.yaml")).toBe(true);
  });
});

describe("setupChanges: what an Engine started now would do differently", () => {
  const started = async (configFile: string, env: NodeJS.ProcessEnv): Promise<EngineSetup> => {
    const now = await currentSetup(configFile, env, { dataDir: "/d", keySalt: "00112233445566778899aabbccddeeff" });
    if (!now.ok) throw now.error;
    return now.setup;
  };
  const now = (configFile: string, env: NodeJS.ProcessEnv, salt = "00112233445566778899aabbccddeeff") =>
    currentSetup(configFile, env, { dataDir: "/d", keySalt: salt });

  it("the same file and environment: nothing", async () => {
    const file = tempConfig(CONFIG);
    const env = { OPENAI_API_KEY: KEY, PALISADE_MODEL: "m1" };
    expect(setupChanges(await started(file, env), await now(file, env))).toEqual([]);
  });

  it("a model and base URL exported after the start: old → new", async () => {
    const file = tempConfig(CONFIG);
    const changes = setupChanges(
      await started(file, { PALISADE_MODEL: "m1" }),
      await now(file, { PALISADE_MODEL: "m2", OPENAI_BASE_URL: "http://localhost:11434/v1" }),
    );
    expect(changes).toEqual([
      { what: "model", from: "m1", to: "m2" },
      { what: "base URL", from: "http://127.0.0.1:1/v1", to: "http://localhost:11434/v1" },
    ]);
  });

  it("a changed key is reported without the key", async () => {
    const file = tempConfig(CONFIG);
    const changes = setupChanges(
      await started(file, { OPENAI_API_KEY: KEY }),
      await now(file, { OPENAI_API_KEY: `${KEY}-new` }),
    );
    expect(changes).toEqual([{ what: "API key", from: "a key", to: "a different key" }]);
    expect(JSON.stringify(changes)).not.toContain(KEY);
    const added = setupChanges(await started(file, {}), await now(file, { OPENAI_API_KEY: KEY }));
    expect(added).toEqual([{ what: "API key", from: "(none)", to: "a key" }]);
  });

  it("an edited config file, and another --config", async () => {
    const file = tempConfig(CONFIG);
    const before = await started(file, {});
    writeFileSync(file, CONFIG.replace("from-file", "edited"));
    const changes = setupChanges(before, await now(file, {}));
    expect(changes[0]).toMatchObject({
      what: "config file content",
      from: `sha256 ${before.configSha256.slice(0, 12)}`,
    });
    expect(changes[1]).toEqual({ what: "model", from: "from-file", to: "edited" });
    const other = tempConfig(CONFIG);
    expect(setupChanges(before, await now(other, {}))[0]).toEqual({ what: "config file", from: file, to: other });
  });

  it("a config file that became invalid keeps its path-precise problems", async () => {
    const file = tempConfig(CONFIG);
    const before = await started(file, {});
    writeFileSync(file, "model:\n  base_url: localhost:11434\n");
    const current = await now(file, {});
    expect(current.ok).toBe(false);
    if (!current.ok)
      expect(current.error.message).toContain(`${file}: model.base_url: must start with http:// or https://`);
    expect(setupChanges(before, current).map((c) => c.what)).toEqual(["config file content"]);
  });

  it("a demo Engine's model is the demo's: only its config file is compared", async () => {
    const file = tempConfig(CONFIG);
    const demo = { ...(await started(file, { PALISADE_MODEL: "palisade-demo" })), demo: true };
    expect(setupChanges(demo, await now(file, { PALISADE_MODEL: "real" }))).toEqual([]);
  });
});
