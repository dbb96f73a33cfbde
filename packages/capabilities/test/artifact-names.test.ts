// An artifact's name comes from a capability (or an MCP server, or the model through one): it is
// stored and listed without what makes a name lie (bidi overrides, control and zero-width
// characters, path separators). Real files on disk, and the in-memory store of off-the-record.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DiskArtifactStore, MemoryArtifactStore } from "@palisade/capabilities";

const owner = { userId: "local", sessionId: "s1" };
const data = new TextEncoder().encode("MZ not really an executable");
// eslint-disable-next-line no-control-regex -- none of these may stay in a name
const LYING = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/;

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("artifact names", () => {
  it("a right-to-left override, other controls and separators become _ in the stored and listed name", async () => {
    dir = mkdtempSync(join(tmpdir(), "pal-artname-"));
    const store = new DiskArtifactStore({ dir });
    const meta = await store.put(data, { filename: "evil\u202etxt.exe", mimeType: "application/octet-stream", owner });
    expect(meta.filename).toBe("evil_txt.exe");
    expect((await store.list(owner)).map((m) => m.filename)).toEqual(["evil_txt.exe"]);
    // the record on disk holds the plain name too
    const json = readdirSync(dir).find((f) => f.endsWith(".json")) ?? "";
    expect(readFileSync(join(dir, json), "utf8")).not.toMatch(/\\u202e|\u202e/i);
    const odd = await store.put(data, {
      filename: "../..\u0000/re\u200bport\u2066.pdf\u001b[8m",
      mimeType: "application/pdf",
      owner,
    });
    expect(odd.filename).not.toMatch(LYING);
    expect(odd.filename).not.toContain("/");
    expect(odd.filename).toBe(".._..__re_port_.pdf_[8m");
  });

  it("off the record (in memory) the same", async () => {
    const store = new MemoryArtifactStore();
    const meta = await store.put(data, {
      filename: "invoice\u202efdp.exe",
      mimeType: "application/octet-stream",
      owner,
    });
    expect(meta.filename).toBe("invoice_fdp.exe");
    expect(await store.put(data, { filename: "\u200b", mimeType: "text/plain", owner }).then((m) => m.filename)).toBe(
      "_",
    );
    expect(await store.put(data, { filename: "", mimeType: "text/plain", owner }).then((m) => m.filename)).toBe(
      "artifact",
    );
  });
});
