import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { discoverEngine, ensureDataDir } from "../src/discovery.js";
import { loadConfig } from "../src/parse.js";
import { PrivatePathError } from "../src/private-path.js";

const isRoot = process.getuid?.() === 0;
const OTHER = 54321;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "trusted-files-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("the files Palisade trusts", () => {
  it("refuses a config holding an API key that others can read, and says how to fix it", async () => {
    const file = join(dir, "config.yaml");
    writeFileSync(file, "model:\n  name: m\n  api_key: sk-in-file\nshield:\n  llm_judge:\n    api_key: sk-judge\n");
    chmodSync(file, 0o644);
    const err = await loadConfig(file, {}).catch((e: unknown) => e);
    expect((err as Error).message).toContain(
      `model.api_key: is a secret in a file other users can read (mode 644); chmod 600 ${file}, or use OPENAI_API_KEY (line 3`,
    );
    expect((err as Error).message).toContain("shield.llm_judge.api_key: is a secret");
    chmodSync(file, 0o600);
    expect((await loadConfig(file, {})).model.apiKey).toBe("sk-in-file");
    // without a key the file may be readable by others
    writeFileSync(file, "model:\n  name: m\n");
    chmodSync(file, 0o644);
    expect((await loadConfig(file, {})).model.name).toBe("m");
  });

  it("refuses a config file in a directory anyone can write, present or missing", async () => {
    const open = join(dir, "open");
    mkdirSync(open, { mode: 0o700 });
    chmodSync(open, 0o777);
    await expect(loadConfig(join(open, "config.yaml"), {})).rejects.toThrow(PrivatePathError);
    writeFileSync(join(open, "config.yaml"), "model:\n  name: m\n");
    await expect(loadConfig(join(open, "config.yaml"), {})).rejects.toThrow(/chmod go-w/);
  });

  it("refuses a policy file the config names in a directory anyone can write", async () => {
    const open = join(dir, "open");
    mkdirSync(open, { mode: 0o700 });
    chmodSync(open, 0o777);
    writeFileSync(join(open, "policy.yaml"), "name: p\n");
    const file = join(dir, "config.yaml");
    writeFileSync(file, `shield:\n  policy_file: ${join(open, "policy.yaml")}\n`);
    await expect(loadConfig(file, {})).rejects.toThrow(`the policy file ${join(open, "policy.yaml")}: ${open}`);
  });

  it("creates the data dir 0700, makes a readable one 0700, refuses one others can write", async () => {
    const data = join(dir, "a", "palisade");
    await ensureDataDir(data);
    expect(statSync(data).mode & 0o777).toBe(0o700);
    chmodSync(data, 0o755);
    await ensureDataDir(data);
    expect(statSync(data).mode & 0o777).toBe(0o700);
    chmodSync(data, 0o777);
    await expect(ensureDataDir(data)).rejects.toThrow(`is writable by every user (mode 777)`);
    await expect(discoverEngine({ dataDir: data, env: {} })).rejects.toThrow(PrivatePathError);
    expect(statSync(data).mode & 0o777).toBe(0o777);
  });

  it.skipIf(!isRoot)(
    "refuses a data dir of another user before reading its engine.json (chown, needs root)",
    async () => {
      const data = join(dir, "theirs");
      mkdirSync(data, { mode: 0o700 });
      writeFileSync(join(data, "engine.json"), JSON.stringify({ pid: process.pid, address: "127.0.0.1:1" }));
      chownSync(data, OTHER, OTHER);
      await expect(discoverEngine({ dataDir: data, env: {} })).rejects.toThrow(
        `the data directory ${data} is owned by uid ${OTHER}, not by you`,
      );
      await expect(ensureDataDir(data)).rejects.toThrow(PrivatePathError);
      expect(existsSync(join(data, "engine.token"))).toBe(false);
    },
  );
});
