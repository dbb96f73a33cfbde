import { execFileSync } from "node:child_process";
import { mkdtemp, rm, stat, symlink, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_LINE_CHARS, SMALL_FILE_BYTES, pageOfText, readPage, readTextFile } from "../src/text.js";
import type { FileInfo } from "../src/text.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "files-text-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

// A small file is paged from memory, a large one streamed through readline: both must give the
// same page for every kind of line break, blank lines, offsets and limits.
const texts: [string, string][] = [
  ["empty", ""],
  ["one line, no break", "x"],
  ["one line, LF", "x\n"],
  ["only a break", "\n"],
  ["blank lines", "a\n\n\nb\n\n"],
  ["CRLF", "a\r\nb\r\n\r\nc"],
  ["lone CR", "a\rb\r\rc\r"],
  ["mixed breaks", "a\r\n\rb\n\r\nc\r"],
  ["multi-byte text", "é😀\nÅngström\r\n日本語"],
  ["a long line", `${"z".repeat(MAX_LINE_CHARS + 5)}\nshort`],
  ["many lines", Array.from({ length: 300 }, (_, i) => `row ${i + 1}`).join("\n")],
];
const windows: [number, number][] = [
  [1, 2000],
  [1, 1],
  [2, 2],
  [3, 100],
  [299, 5],
  [1000, 10],
];

describe("pageOfText", () => {
  it.each(texts)("gives the streamed page for %s", async (name, text) => {
    const file = path.join(dir, `${name.replace(/\W+/g, "-")}.txt`);
    await writeFile(file, text);
    for (const [offset, limit] of windows) {
      expect(pageOfText(text, offset, limit), `${name} offset ${offset} limit ${limit}`).toEqual(
        await readPage(file, offset, limit),
      );
    }
  });
});

/** The stat a caller passes, with the size it says (a file may change after its stat). */
async function infoOf(file: string, size?: number): Promise<FileInfo> {
  const { dev, size: real } = await stat(file);
  return { dev, size: size ?? real };
}

// Every case runs through both small-file paths: synchronous reads on the workspace's local
// device, and the thread pool (any other filesystem).
const paths: [string, string, (info: FileInfo) => number | undefined][] = [
  ["synchronous (local device)", "sync", (info) => info.dev],
  ["thread pool", "pool", () => undefined],
];

describe.each(paths)("readTextFile, %s", (_name, tag, deviceOf) => {
  const read = (file: string, info: FileInfo, offset: number, limit: number) =>
    readTextFile(file, info, offset, limit, undefined, deviceOf(info));

  it("reads a small file in one go and streams a large one, with the same page", async () => {
    const small = path.join(dir, "small.txt");
    await writeFile(small, "one\r\ntwo\nthree");
    expect(await read(small, await infoOf(small), 2, 5)).toEqual(await readPage(small, 2, 5));
    const large = path.join(dir, "large.txt");
    const text = Array.from({ length: 40_000 }, (_, i) => `line ${i + 1}`).join("\n");
    expect(Buffer.byteLength(text)).toBeGreaterThan(SMALL_FILE_BYTES);
    await writeFile(large, text);
    const page = await read(large, await infoOf(large), 39_999, 10);
    expect(page).toEqual({
      content: "line 39999\nline 40000",
      offset: 39_999,
      linesReturned: 2,
      totalLines: 40_000,
      nextOffset: undefined,
      longLinesCut: 0,
    });
  });

  it("reports binary files, small and large", async () => {
    const small = path.join(dir, "small.bin");
    await writeFile(small, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]));
    expect(await read(small, await infoOf(small), 1, 10)).toBe("binary");
    const large = path.join(dir, "large.bin");
    const bytes = Buffer.alloc(SMALL_FILE_BYTES + 10, 0x41);
    bytes[100] = 0;
    await writeFile(large, bytes);
    expect(await read(large, await infoOf(large), 1, 10)).toBe("binary");
  });

  it("streams a file that grew past the small size after its size was taken", async () => {
    const file = path.join(dir, "grew.txt");
    const text = Array.from({ length: 40_000 }, (_, i) => `g ${i + 1}`).join("\n");
    await writeFile(file, text);
    const page = await read(file, await infoOf(file, 10), 1, 3); // stat said 10 bytes
    expect(page).toEqual(await readPage(file, 1, 3));
  });

  it("refuses a FIFO swapped in after the stat, at once (no writer ever opens it)", async () => {
    const file = path.join(dir, `${tag}-swapped-fifo.txt`);
    await writeFile(file, "was a file\n");
    const info = await infoOf(file);
    await unlink(file);
    execFileSync("mkfifo", [file]);
    await expect(read(file, info, 1, 10)).rejects.toThrow(/is no longer a regular file/);
  });

  it("does not follow a symlink swapped in after the path was checked", async () => {
    const secret = path.join(dir, `${tag}-secret.txt`);
    await writeFile(secret, "top secret\n");
    const file = path.join(dir, `${tag}-swapped-link.txt`);
    await writeFile(file, "plain\n");
    const info = await infoOf(file);
    await unlink(file);
    await symlink(secret, file);
    await expect(read(file, info, 1, 10)).rejects.toThrow(/ELOOP/);
  });

  it("is cancelled by an aborted signal", async () => {
    const file = path.join(dir, `${tag}-cancelled.txt`);
    await writeFile(file, "x\n");
    const info = await infoOf(file);
    await expect(readTextFile(file, info, 1, 10, AbortSignal.abort(new Error("stop")), deviceOf(info))).rejects.toThrow(
      /stop/,
    );
  });
});
