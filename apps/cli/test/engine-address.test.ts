import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readToken, removeEngineInfo, writeEngineInfo } from "@palisade/config/discovery";
import { findEngine, readEngineInfo, resolvePaths, socketPathProblem } from "../src/engine-address.js";

describe("resolvePaths", () => {
  it.each([
    [
      "defaults under the home directory",
      {},
      {},
      "/home/u/.local/share/palisade",
      "/home/u/.config/palisade/config.yaml",
    ],
    [
      "XDG dirs",
      {},
      { XDG_DATA_HOME: "/x/data", XDG_CONFIG_HOME: "/x/cfg" },
      "/x/data/palisade",
      "/x/cfg/palisade/config.yaml",
    ],
    [
      "PALISADE_* env wins over XDG",
      {},
      { XDG_DATA_HOME: "/x", PALISADE_DATA_DIR: "/p/data", PALISADE_CONFIG: "/p/c.yaml" },
      "/p/data",
      "/p/c.yaml",
    ],
    [
      "flags win over env",
      { dataDir: "/f/data", configFile: "/f/c.yaml" },
      { PALISADE_DATA_DIR: "/p/data" },
      "/f/data",
      "/f/c.yaml",
    ],
  ])("%s", (_name, overrides, env, dataDir, configFile) => {
    const p = resolvePaths(overrides, env, "/home/u");
    expect(p).toMatchObject({
      dataDir,
      configFile,
      socketAddress: `unix:${dataDir}/engine.sock`,
      infoFile: `${dataDir}/engine.json`,
      tokenFile: `${dataDir}/engine.token`,
      logFile: `${dataDir}/engine.log`,
    });
  });

  it("says when the socket path is too long for a unix socket", () => {
    expect(socketPathProblem(resolvePaths({ dataDir: "/tmp/short" }))).toBeUndefined();
    expect(socketPathProblem(resolvePaths({ dataDir: `/tmp/${"d".repeat(120)}` }))).toContain(
      "use a shorter --data-dir",
    );
  });
});

describe("engine.json (written by the Engine's discovery, read by the CLI)", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "pal-addr-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("is found where the Engine writes it", async () => {
    const paths = resolvePaths({ dataDir: dir });
    const info = {
      pid: process.pid,
      address: paths.socketAddress,
      startedAt: "2026-01-01T00:00:00.000Z",
      version: "0.1.0",
    };
    await writeEngineInfo(dir, info);
    expect(paths.infoFile).toBe(join(dir, "engine.json"));
    expect(statSync(paths.infoFile).mode & 0o777).toBe(0o600);
    expect(await readEngineInfo(paths)).toEqual(info);
    expect(await findEngine(paths)).toEqual({ address: paths.socketAddress, info });
  });

  it("an unreadable engine.json is no Engine", async () => {
    const paths = resolvePaths({ dataDir: dir });
    writeFileSync(paths.infoFile, "{");
    expect(await readEngineInfo(paths)).toBeUndefined();
    expect(await findEngine(paths)).toBeUndefined();
  });

  it("a dead pid is no Engine (stale engine.json)", async () => {
    const paths = resolvePaths({ dataDir: dir });
    await writeEngineInfo(dir, { pid: 2 ** 22 + 4321, address: "unix:/nowhere", startedAt: "", version: "" });
    expect(await findEngine(paths)).toBeUndefined();
  });

  it("TCP mode carries the bearer token from engine.token", async () => {
    const paths = resolvePaths({ dataDir: dir });
    await writeEngineInfo(dir, { pid: process.pid, address: "127.0.0.1:4567", startedAt: "", version: "" });
    writeFileSync(paths.tokenFile, "s3cret\n", { mode: 0o600 });
    expect(await readToken(dir)).toBe("s3cret");
    expect(await findEngine(paths)).toMatchObject({ address: "127.0.0.1:4567", bearerToken: "s3cret" });
  });

  it("removeEngineInfo leaves another Engine's file alone", async () => {
    const paths = resolvePaths({ dataDir: dir });
    writeFileSync(paths.infoFile, JSON.stringify({ pid: 1, address: "unix:/x", startedAt: "", version: "" }));
    await removeEngineInfo(dir, process.pid);
    expect(await readEngineInfo(paths)).toMatchObject({ pid: 1 });
    await removeEngineInfo(dir, 1);
    expect(await readEngineInfo(paths)).toBeUndefined();
  });
});

describe("input history file", () => {
  it("round-trips messages, one JSON string per line, owner-only", async () => {
    const { appendInputHistory, loadInputHistory } = await import("../src/tui/input-history.js");
    const dir = mkdtempSync(join(tmpdir(), "pal-hist-"));
    try {
      const file = join(dir, "chat-history.jsonl");
      expect(await loadInputHistory(file)).toEqual([]);
      await appendInputHistory(file, "first");
      await appendInputHistory(file, "two\nlines");
      expect(await loadInputHistory(file)).toEqual(["first", "two\nlines"]);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(await loadInputHistory(file, 1)).toEqual(["two\nlines"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
