import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Code, createClient } from "@palisade/protocol";
import { ClientService } from "@palisade/protocol/pipeline";
import { discoverEngine, readEngineInfo, resolveConfigPath, resolveDataDir } from "@palisade/config";
import { startHarness } from "./helpers/setup.js";
import type { Harness } from "./helpers/setup.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("discovery", () => {
  it("resolves data and config paths from flags, env, XDG and home", () => {
    expect(resolveDataDir({ dataDir: "/x/y", env: { PALISADE_DATA_DIR: "/z" } })).toBe("/x/y");
    expect(resolveDataDir({ env: { PALISADE_DATA_DIR: "/z" } })).toBe("/z");
    expect(resolveDataDir({ env: { XDG_DATA_HOME: "/d" } })).toBe("/d/palisade");
    expect(resolveDataDir({ env: {} })).toMatch(/\.local\/share\/palisade$/);
    expect(resolveConfigPath({ env: {} })).toMatch(/\.config\/palisade\/config\.yaml$/);
    expect(resolveConfigPath({ configPath: "/c.yaml", env: {} })).toBe("/c.yaml");
  });

  it("a unix-socket Engine writes engine.json and a 0600 socket; stop removes engine.json", async () => {
    h = await startHarness({}, false);
    const info = await readEngineInfo(h.dir);
    expect(info).toMatchObject({ pid: process.pid, address: `unix:${join(h.dir, "engine.sock")}`, version: "0.1.0" });
    expect(statSync(join(h.dir, "engine.json")).mode & 0o777).toBe(0o600);
    expect(statSync(join(h.dir, "engine.sock")).mode & 0o777).toBe(0o600);
    expect((await discoverEngine({ dataDir: h.dir }))?.info.address).toBe(h.engine.address);
    await h.engine.stop();
    expect(await readEngineInfo(h.dir)).toBeUndefined();
  });

  it.each(["tcp", "unix"])("a %s Engine requires the client token from engine.token on ClientService", async (kind) => {
    h = await startHarness(kind === "tcp" ? { listen: "127.0.0.1:0" } : {}, false);
    const found = await discoverEngine({ dataDir: h.dir });
    expect(found?.bearerToken).toBeTruthy();
    expect(statSync(join(h.dir, "engine.token")).mode & 0o777).toBe(0o600);
    const good = createClient(ClientService, h.engine.address, { bearerToken: found!.bearerToken! });
    expect((await good.getStatus({})).version).toBe("0.1.0");
    const bad = createClient(ClientService, h.engine.address, { bearerToken: "wrong" });
    await expect(bad.getStatus({})).rejects.toMatchObject({
      code: Code.UNAUTHENTICATED,
      message: expect.stringMatching(/client token.*engine\.token/) as unknown,
    });
    const none = createClient(ClientService, h.engine.address);
    await expect(none.getStatus({})).rejects.toMatchObject({
      code: Code.UNAUTHENTICATED,
      message: expect.stringMatching(/client token.*engine\.token/) as unknown,
    });
    good.close();
    bad.close();
    none.close();
  });

  it("a stale engine.json (dead pid) is not a running Engine", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pal-disc-"));
    writeFileSync(
      join(dir, "engine.json"),
      JSON.stringify({ pid: 2 ** 22 + 12345, address: "unix:/nope", startedAt: "", version: "0" }),
    );
    expect(await discoverEngine({ dataDir: dir })).toBeUndefined();
    rmSync(dir, { recursive: true, force: true });
  });
});
