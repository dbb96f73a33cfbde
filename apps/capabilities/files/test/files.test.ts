import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, realpath, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createFilesCapability } from "@palisade/capability-files";
import { serveForTest as start } from "@palisade/capability-sdk/testing";
import type { Harness } from "@palisade/capability-sdk/testing";

let h: Harness;
let base: string; // holds the workspace and an "outside" directory next to it
let ws: string;
let outside: string;
const cfg = () => ({ workspace: ws });
const call = (tool: string, args: unknown) => h.invoke(tool, args, cfg());

beforeAll(async () => {
  h = await start(createFilesCapability());
});
afterAll(async () => {
  await h.stop();
});
beforeEach(async () => {
  if (base) await rm(base, { recursive: true, force: true });
  base = await realpath(await mkdtemp(path.join(tmpdir(), "palisade-files-")));
  ws = path.join(base, "ws");
  outside = path.join(base, "outside");
  await mkdir(path.join(ws, "src"), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(outside, "secret.txt"), "top secret\n");
  await writeFile(path.join(ws, "hello.txt"), "line 1\nline 2\nline 3\n");
  await writeFile(path.join(ws, "src", "app.ts"), "const a = 1;\n// TODO: fix\nexport {};\n");
});

describe("workspace confinement", () => {
  const escapes: [string, string, RegExp][] = [
    ["..", "../outside/secret.txt", /climbs out of the workspace/],
    ["absolute outside", "/etc/passwd", /absolute path outside the workspace/],
    ["nested ..", "src/../../outside/secret.txt", /climbs out/],
  ];
  it.each(escapes)("read_file refuses %s", async (_name, p, why) => {
    const { error } = await call("read_file", { path: p });
    expect(error).toMatch(/^refused: path/);
    expect(error).toMatch(why);
  });

  it("refuses a sibling directory whose name starts with the workspace's, by any path", async () => {
    await mkdir(`${ws}-other`);
    await writeFile(path.join(`${ws}-other`, "secret.txt"), "top secret\n");
    await symlink(`${ws}-other`, path.join(ws, "sibling"));
    for (const p of ["../ws-other/secret.txt", `${ws}-other/secret.txt`, "sibling/secret.txt"]) {
      const { error, result } = await call("read_file", { path: p });
      expect(error, p).toMatch(/^refused: path/);
      expect(JSON.stringify(result)).not.toContain("top secret");
    }
  });

  it("reads names that merely start with two dots", async () => {
    await writeFile(path.join(ws, "..notes"), "dots\n");
    expect((await call("read_file", { path: "..notes" })).result).toMatchObject({ path: "..notes", content: "dots" });
    expect((await call("list_directory", { path: "." })).error).toBe("");
  });

  it("refuses reading through a symlink that leaves the workspace", async () => {
    await symlink(path.join(outside, "secret.txt"), path.join(ws, "link.txt"));
    await symlink(outside, path.join(ws, "linkdir"));
    for (const p of ["link.txt", "linkdir/secret.txt"]) {
      const { error, result } = await call("read_file", { path: p });
      expect(error).toMatch(/goes through a symlink to \S*outside\S*, outside the workspace/);
      expect(JSON.stringify(result)).not.toContain("top secret");
    }
  });

  it("refuses writing through a symlinked directory or a dangling symlink that points outside", async () => {
    await symlink(outside, path.join(ws, "linkdir"));
    await symlink(path.join(outside, "new.txt"), path.join(ws, "dangling.txt"));
    expect((await call("write_file", { path: "linkdir/evil.txt", content: "x" })).error).toMatch(/^refused/);
    expect((await call("write_file", { path: "dangling.txt", content: "x" })).error).toMatch(/^refused/);
    expect((await call("write_file", { path: "linkdir/sub/deeper.txt", content: "x" })).error).toMatch(/^refused/);
    await expect(stat(path.join(outside, "evil.txt"))).rejects.toThrow();
    await expect(stat(path.join(outside, "new.txt"))).rejects.toThrow();
  });

  it("allows absolute paths inside and symlinks that stay inside", async () => {
    await symlink(path.join(ws, "hello.txt"), path.join(ws, "alias.txt"));
    expect((await call("read_file", { path: path.join(ws, "hello.txt") })).result.content).toBe(
      "line 1\nline 2\nline 3",
    );
    const { result } = await call("read_file", { path: "alias.txt" });
    expect(result.path).toBe("hello.txt");
  });

  it("refuses copy and move destinations outside, and sources through outside symlinks", async () => {
    await symlink(outside, path.join(ws, "linkdir"));
    expect((await call("copy_file", { source: "hello.txt", destination: "../outside/copied.txt" })).error).toMatch(
      /^refused/,
    );
    expect((await call("move_file", { source: "hello.txt", destination: "linkdir/moved.txt" })).error).toMatch(
      /^refused/,
    );
    expect((await call("copy_file", { source: "linkdir/secret.txt", destination: "stolen.txt" })).error).toMatch(
      /^refused/,
    );
    await expect(stat(path.join(ws, "hello.txt"))).resolves.toBeTruthy();
  });

  it("explains a missing workspace and falls back to PALISADE_WORKSPACE", async () => {
    const { error } = await h.invoke("read_file", { path: "hello.txt" }, {});
    // The test process may have PALISADE_WORKSPACE unset: then the message names both ways.
    if (!process.env.PALISADE_WORKSPACE)
      expect(error).toMatch(/no workspace configured.*config_json.*PALISADE_WORKSPACE/);
    expect((await h.invoke("read_file", { path: "hello.txt" }, { workspace: "relative/dir" })).error).toMatch(
      /not an absolute path/,
    );
    expect(
      (await h.invoke("read_file", { path: "hello.txt" }, { workspace: path.join(base, "missing") })).error,
    ).toMatch(/not an existing directory/);
  });
});

describe("read_file", () => {
  it("pages through a large file", async () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `row ${i + 1}`);
    await writeFile(path.join(ws, "big.txt"), lines.join("\n") + "\n");
    const first = (await call("read_file", { path: "big.txt" })).result;
    expect(first.lines_returned).toBe(2000);
    expect(first.next_offset).toBe(2001);
    expect(first.total_lines).toBeUndefined();
    expect(String(first.content).split("\n").at(-1)).toBe("row 2000");
    const last = (await call("read_file", { path: "big.txt", offset: 4001, limit: 5000 })).result;
    expect(last.lines_returned).toBe(1000);
    expect(last.total_lines).toBe(5000);
    expect(last.next_offset).toBeUndefined();
    const mid = (await call("read_file", { path: "big.txt", offset: 10, limit: 2 })).result;
    expect(mid.content).toBe("row 10\nrow 11");
  });

  it("stops a page at 256 KiB and cuts overlong lines", async () => {
    const long = "x".repeat(10_000);
    await writeFile(path.join(ws, "wide.txt"), Array.from({ length: 200 }, () => long).join("\n"));
    const { result } = await call("read_file", { path: "wide.txt" });
    expect(result.long_lines_cut).toBe(result.lines_returned);
    expect(String(result.content)).toContain("[line cut: 10000 characters]");
    await writeFile(path.join(ws, "heavy.txt"), Array.from({ length: 2000 }, () => "y".repeat(3000)).join("\n"));
    const heavy = (await call("read_file", { path: "heavy.txt" })).result;
    expect(Number(heavy.lines_returned)).toBeLessThan(100);
    expect(heavy.next_offset).toBe(Number(heavy.lines_returned) + 1);
  });

  it("reports binary files instead of their bytes", async () => {
    await writeFile(path.join(ws, "image.bin"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3, 255]));
    const { result, error } = await call("read_file", { path: "image.bin" });
    expect(error).toBe("");
    expect(result).toMatchObject({ binary: true, size_bytes: 9 });
    expect(result.content).toBeUndefined();
  });

  it("refuses a FIFO without waiting for a writer, and keeps serving", async () => {
    execFileSync("mkfifo", [path.join(ws, "pipe")]);
    expect((await call("read_file", { path: "pipe" })).error).toMatch(/"pipe" is not a regular file/);
    expect((await call("read_file", { path: "hello.txt" })).result).toMatchObject({
      content: "line 1\nline 2\nline 3",
    });
  });

  it("explains missing files and directories", async () => {
    expect((await call("read_file", { path: "nope.txt" })).error).toMatch(/"nope.txt" does not exist/);
    expect((await call("read_file", { path: "src" })).error).toMatch(/is a directory; use list_directory/);
  });
});

describe("write, delete, move, copy", () => {
  it("writes with parent directories, replaces and appends", async () => {
    expect((await call("write_file", { path: "a/b/c.txt", content: "one" })).result).toMatchObject({
      path: "a/b/c.txt",
      created: true,
      bytes_written: 3,
    });
    await call("write_file", { path: "a/b/c.txt", content: "+two", append: true });
    expect(await readFile(path.join(ws, "a/b/c.txt"), "utf8")).toBe("one+two");
    expect((await call("write_file", { path: "a/b/c.txt", content: "new" })).result.created).toBe(false);
    expect(await readFile(path.join(ws, "a/b/c.txt"), "utf8")).toBe("new");
  });

  it("deletes files, needs recursive for directories, never the root", async () => {
    expect((await call("delete_file", { path: "src" })).error).toMatch(/pass recursive: true/);
    expect((await call("delete_file", { path: "src", recursive: true })).result).toMatchObject({
      deleted: true,
      type: "directory",
    });
    expect((await call("delete_file", { path: ".", recursive: true })).error).toMatch(
      /workspace root itself cannot be deleted/,
    );
    expect((await call("delete_file", { path: "hello.txt" })).result.deleted).toBe(true);
    await expect(stat(path.join(ws, "hello.txt"))).rejects.toThrow();
  });

  it("deletes a symlink that points outside without touching its target", async () => {
    await symlink(outside, path.join(ws, "linkdir"));
    expect((await call("delete_file", { path: "linkdir", recursive: true })).result).toMatchObject({
      deleted: true,
      type: "symlink",
    });
    expect(await readFile(path.join(outside, "secret.txt"), "utf8")).toBe("top secret\n");
  });

  it("moves and copies, into directories, never over existing files", async () => {
    expect((await call("move_file", { source: "hello.txt", destination: "src" })).result).toMatchObject({
      destination: "src/hello.txt",
    });
    expect((await call("copy_file", { source: "src", destination: "copy" })).result.copied).toBe(true);
    expect(await readFile(path.join(ws, "copy/app.ts"), "utf8")).toContain("TODO");
    expect((await call("copy_file", { source: "src/app.ts", destination: "copy/app.ts" })).error).toMatch(
      /already exists/,
    );
    expect((await call("move_file", { source: "src", destination: "src/inner" })).error).toMatch(/into itself/);
    expect((await call("move_file", { source: "missing", destination: "x" })).error).toMatch(/does not exist/);
  });
});

describe("list, search, grep", () => {
  it("lists entries with types, recursively, without following symlinks", async () => {
    await symlink(outside, path.join(ws, "linkdir"));
    const flat = (await call("list_directory", {})).result;
    expect(flat.entries).toEqual([
      { path: "hello.txt", type: "file", size_bytes: 21 },
      { path: "linkdir", type: "symlink", target: outside },
      { path: "src", type: "directory" },
    ]);
    const deep = (await call("list_directory", { path: ".", recursive: true })).result;
    const paths = (deep.entries as { path: string }[]).map((e) => e.path);
    expect(paths).toContain("src/app.ts");
    expect(paths.some((p) => p.includes("secret"))).toBe(false);
  });

  it("finds files by glob, skipping node_modules", async () => {
    await mkdir(path.join(ws, "node_modules/pkg"), { recursive: true });
    await writeFile(path.join(ws, "node_modules/pkg/index.ts"), "");
    expect((await call("search_files", { pattern: "*.ts" })).result.matches).toEqual(["src/app.ts"]);
    expect((await call("search_files", { pattern: "**/*.txt" })).result.matches).toEqual(["hello.txt"]);
    expect((await call("search_files", { pattern: "*.ts", path: "src" })).result.matches).toEqual(["src/app.ts"]);
  });

  it("greps with a regex, a glob filter and a file path; skips binaries; explains bad regexes", async () => {
    await writeFile(path.join(ws, "blob.bin"), Buffer.from([0, 84, 79, 68, 79]));
    const all = (await call("grep_files", { pattern: "TODO|line 2" })).result;
    expect(all.matches).toEqual([
      { path: "hello.txt", line: 2, text: "line 2" },
      { path: "src/app.ts", line: 2, text: "// TODO: fix" },
    ]);
    expect(all.files_skipped).toBe(1);
    expect(
      (await call("grep_files", { pattern: "todo", glob: "*.ts", case_insensitive: true })).result.matches,
    ).toHaveLength(1);
    expect((await call("grep_files", { pattern: "line", path: "hello.txt" })).result.matches).toHaveLength(3);
    expect((await call("grep_files", { pattern: "(" })).error).toMatch(/invalid regular expression/);
    expect((await call("grep_files", { pattern: "x", path: "../outside" })).error).toMatch(/^refused/);
    expect((await call("grep_files", { pattern: "(a)\\1" })).error).toMatch(/RE2 syntax: no backreferences/);
  });

  it("a catastrophic-backtracking pattern finishes at once (linear-time engine) and the server stays responsive", async () => {
    // 30 a's then a b: JavaScript's backtracking engine needs ~2^30 steps for ^(a+)+$ on this line.
    await writeFile(path.join(ws, "evil.txt"), `${"a".repeat(30)}b\n${"a".repeat(20_000)}!\n`);
    const started = performance.now();
    const res = await call("grep_files", { pattern: "^(a+)+$", path: "evil.txt" });
    const elapsedMs = performance.now() - started;
    expect(res.error).toBe("");
    expect(res.result.matches).toEqual([]);
    // Generous bound for a loaded machine; the backtracking engine takes minutes here.
    expect(elapsedMs).toBeLessThan(5_000);
    expect((await call("grep_files", { pattern: "line 2" })).result.matches).toHaveLength(1);
  });
});

describe("manifest.yaml", () => {
  it("declares the same tools and schemas as the code, reads allowed and writes asked", async () => {
    const { manifestPath } = await import("@palisade/capability-files");
    const { manifestTools } = await import("@palisade/capability-sdk/testing");
    const { manifest, tools } = await manifestTools(manifestPath);
    expect(manifest).toMatchObject({
      id: "files",
      class: "environment",
      filesystem: "workspace",
      network: { mode: "none" },
    });
    const cap = createFilesCapability();
    expect(tools.map((t) => t.name)).toEqual(cap.tools.map((t) => t.name));
    for (const t of tools)
      expect({ description: t.description, input_schema: t.input_schema }, t.name).toEqual({
        description: cap.tool(t.name)?.description,
        input_schema: cap.tool(t.name)?.inputSchema,
      });
    const policy = Object.fromEntries(tools.map((t) => [t.name, t.recommended_policy]));
    expect(policy).toEqual({
      read_file: "allow",
      list_directory: "allow",
      search_files: "allow",
      grep_files: "allow",
      write_file: "ask",
      delete_file: "ask",
      move_file: "ask",
      copy_file: "ask",
    });
  });
});
