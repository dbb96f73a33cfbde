import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_MENTION_BYTES, attachMentions, mentionsIn } from "../src/tui/mentions.js";
import { fresh, run, sent } from "./state.js";

let root: string;
let ws: string;
const signal = AbortSignal.timeout(10_000);

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "pal-mention-"));
  ws = join(root, "ws");
  mkdirSync(join(ws, "src"), { recursive: true });
  writeFileSync(join(ws, "README.md"), "# Hello\nA workspace file.\n");
  writeFileSync(join(ws, "src", "parse.ts"), "export const x = 1;");
  writeFileSync(join(root, "secret.txt"), "outside the workspace");
  symlinkSync(join(root, "secret.txt"), join(ws, "link.txt"));
  writeFileSync(join(ws, "big.log"), "x".repeat(MAX_MENTION_BYTES + 1));
  writeFileSync(join(ws, "image.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("@file mentions", () => {
  it("finds @path words, not e-mail addresses", () => {
    expect(mentionsIn("look at @README.md and @src/parse.ts, mail me at a@b.com")).toEqual([
      "README.md",
      "src/parse.ts",
    ]);
  });

  it("attaches workspace text files after the message and says so", async () => {
    const r = await attachMentions("explain @README.md and @src/parse.ts", ws, signal);
    expect(r.text).toBe(
      'explain @README.md and @src/parse.ts\n\n<file path="README.md">\n# Hello\nA workspace file.\n</file>\n\n<file path="src/parse.ts">\nexport const x = 1;\n</file>',
    );
    expect(r.notes).toEqual(["attached @README.md (26 B)", "attached @src/parse.ts (19 B)"]);
  });

  it("never attaches what is outside the workspace (a symlink out, ../), too large or not text", async () => {
    const r = await attachMentions("@link.txt @../secret.txt @big.log @image.png @nope.md", ws, signal);
    expect(r.text).not.toContain("outside the workspace\n");
    expect(r.text).toBe("@link.txt @../secret.txt @big.log @image.png @nope.md");
    expect(r.notes).toEqual([
      "@link.txt not attached: it is outside the workspace",
      "@../secret.txt not attached: it is outside the workspace",
      "@big.log not attached: it is 256.0 kB, over the 256.0 kB a mention attaches (ask the model to read it with its tools)",
      "@image.png not attached: it is not a text file",
      "@nope.md not attached: no such file in the workspace",
    ]);
  });

  it("the chat shows each note during the turn", () => {
    const s = sent("explain @README.md").state;
    const clientMessageId = s.turn?.clientMessageId ?? "";
    const after = run(s, [{ type: "mention", clientMessageId, note: "attached @README.md (26 B)" }]).state;
    expect(after.live.at(-1)).toMatchObject({ kind: "notice", level: "info", text: "attached @README.md (26 B)" });
    expect(run(fresh(), [{ type: "mention", clientMessageId: "other", note: "x" }]).state.live).toEqual([]);
  });
});
