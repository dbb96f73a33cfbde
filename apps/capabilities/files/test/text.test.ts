import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_LINE_CHARS, SMALL_FILE_BYTES, pageOfText, readPage, readTextFile } from "../src/text.js";

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
const windows: [number, number][] = [[1, 2000], [1, 1], [2, 2], [3, 100], [299, 5], [1000, 10]];

describe("pageOfText", () => {
  it.each(texts)("gives the streamed page for %s", async (name, text) => {
    const file = path.join(dir, `${name.replace(/\W+/g, "-")}.txt`);
    await writeFile(file, text);
    for (const [offset, limit] of windows) {
      expect(pageOfText(text, offset, limit), `${name} offset ${offset} limit ${limit}`).toEqual(await readPage(file, offset, limit));
    }
  });
});

describe("readTextFile", () => {
  it("reads a small file in one go and streams a large one, with the same page", async () => {
    const small = path.join(dir, "small.txt");
    await writeFile(small, "one\r\ntwo\nthree");
    expect(await readTextFile(small, 15, 2, 5)).toEqual(await readPage(small, 2, 5));
    const large = path.join(dir, "large.txt");
    const text = Array.from({ length: 40_000 }, (_, i) => `line ${i + 1}`).join("\n");
    expect(Buffer.byteLength(text)).toBeGreaterThan(SMALL_FILE_BYTES);
    await writeFile(large, text);
    const page = await readTextFile(large, Buffer.byteLength(text), 39_999, 10);
    expect(page).toEqual({ content: "line 39999\nline 40000", offset: 39_999, linesReturned: 2, totalLines: 40_000, nextOffset: undefined, longLinesCut: 0 });
  });

  it("reports binary files, small and large", async () => {
    const small = path.join(dir, "small.bin");
    await writeFile(small, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]));
    expect(await readTextFile(small, 7, 1, 10)).toBe("binary");
    const large = path.join(dir, "large.bin");
    const bytes = Buffer.alloc(SMALL_FILE_BYTES + 10, 0x41);
    bytes[100] = 0;
    await writeFile(large, bytes);
    expect(await readTextFile(large, bytes.length, 1, 10)).toBe("binary");
  });

  it("streams a file that grew past the small size after its size was taken", async () => {
    const file = path.join(dir, "grew.txt");
    const text = Array.from({ length: 40_000 }, (_, i) => `g ${i + 1}`).join("\n");
    await writeFile(file, text);
    const page = await readTextFile(file, 10, 1, 3); // stat said 10 bytes
    expect(page).toEqual(await readPage(file, 1, 3));
  });
});
