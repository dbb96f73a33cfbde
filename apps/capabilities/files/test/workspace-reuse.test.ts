// A workspace is resolved once per process and reused by later calls; what happens to its root
// afterwards must not let a call act outside it or recreate a deleted root.
import { mkdir, mkdtemp, readdir, realpath, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createFilesCapability } from "@palisade/capability-files";
import { serveForTest as start } from "@palisade/capability-sdk/testing";
import type { Harness } from "@palisade/capability-sdk/testing";

let h: Harness;
let base: string;
let ws: string;
let outside: string;
const call = (tool: string, args: unknown) => h.invoke(tool, args, { workspace: ws });

beforeAll(async () => {
  h = await start(createFilesCapability());
});
afterAll(async () => {
  await h.stop();
});
beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "palisade-files-reuse-")));
  ws = path.join(base, "ws");
  outside = path.join(base, "outside");
  await mkdir(ws);
  await mkdir(outside);
  await writeFile(path.join(ws, "x.txt"), "x\n");
  await writeFile(path.join(outside, "secret.txt"), "top secret\n");
  expect((await call("read_file", { path: "x.txt" })).error).toBe(""); // the workspace is now known
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("a workspace used before", () => {
  it("that was deleted is reported missing, and a write does not recreate it", async () => {
    await rm(ws, { recursive: true });
    expect((await call("read_file", { path: "x.txt" })).error).toMatch(/workspace ".*ws" is not an existing directory/);
    expect((await call("write_file", { path: "sub/new.txt", content: "hi" })).error).toMatch(
      /is not an existing directory/,
    );
    expect((await call("write_file", { path: "new.txt", content: "hi" })).error).toMatch(
      /is not an existing directory/,
    );
    await expect(stat(ws)).rejects.toThrow(/ENOENT/);
  });

  it("whose root was replaced by a symlink to another directory refuses every path (it resolves outside)", async () => {
    await rm(ws, { recursive: true });
    await symlink(outside, ws);
    expect((await call("read_file", { path: "secret.txt" })).error).toMatch(/outside the workspace/);
    expect((await call("write_file", { path: "planted.txt", content: "x" })).error).toMatch(/outside the workspace/);
    expect(await readdir(outside)).toEqual(["secret.txt"]);
  });

  it("that was recreated at the same path is used again", async () => {
    await rm(ws, { recursive: true });
    await mkdir(ws);
    await writeFile(path.join(ws, "x.txt"), "again\n");
    expect((await call("read_file", { path: "x.txt" })).result).toMatchObject({ content: "again" });
  });
});
