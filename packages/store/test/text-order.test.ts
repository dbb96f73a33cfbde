// Where a tool call happened in its message's text: stored by both backends, read back by
// history and used by the Markdown export, so text and calls keep the order they happened in.
import { join } from "node:path";
import { readFileSync } from "node:fs";
import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { Store, inTextOrder } from "@palisade/store";
import { forEachBackend } from "./backends.js";
import { allow, tempDir } from "./helpers.js";

const BEFORE = "I will read the file.";
const AFTER = "\n\nIt says hello.";

describe("inTextOrder", () => {
  const call = (id: string, textOffset: number) => ({ id, textOffset });
  const shown = (content: string, calls: { id: string; textOffset: number }[]): string[] =>
    inTextOrder(content, calls).map((p) => (p.kind === "text" ? `text:${p.text}` : `call:${p.call.id}`));

  it("cuts the text at each call's offset; calls at one offset keep their order", () => {
    expect(shown("abcdef", [call("x", 3), call("y", 3), call("z", 6)])).toEqual([
      "text:abc",
      "call:x",
      "call:y",
      "text:def",
      "call:z",
    ]);
  });

  it("calls stored without an offset (0) come first; an offset past the text puts the call last", () => {
    expect(shown("answer", [call("old", 0)])).toEqual(["call:old", "text:answer"]);
    expect(shown("cut", [call("late", 99), call("early", 1)])).toEqual([
      "text:c",
      "call:early",
      "text:ut",
      "call:late",
    ]);
    expect(shown("", [call("only", 5)])).toEqual(["call:only"]);
  });
});

forEachBackend((backend) => {
  describe("a tool call's text offset", () => {
    it("is stored with the call, read back by history, and orders the Markdown export", async () => {
      const store = await backend.open();
      await store.createSession({ id: "s" });
      await store.commitTurn("s", {
        messages: [
          { id: "u1", role: "user", content: "read hello.txt", createdAt: 1 },
          { id: "a1", role: "assistant", content: BEFORE + AFTER, createdAt: 2 },
        ],
        toolCalls: [
          {
            callId: "c1",
            messageId: "a1",
            toolName: "files__read_file",
            argumentsJson: '{"path":"hello.txt"}',
            verdict: allow,
            result: "hello",
            textOffset: BEFORE.length,
          },
        ],
      });
      const page = await store.getHistory("s", {});
      expect(page.messages[1]?.toolCalls.map((c) => c.textOffset)).toEqual([BEFORE.length]);
      const md = (await store.exportSession("s", "md")).content;
      const at = (text: string): number => md.indexOf(text);
      expect(at(BEFORE)).toBeGreaterThan(0);
      expect(at(BEFORE)).toBeLessThan(at("Tool call `files__read_file`"));
      expect(at("Tool call `files__read_file`")).toBeLessThan(at("It says hello."));
    });

    it("refuses an offset that is not a whole number of characters >= 0, naming the call", async () => {
      const store = await backend.open();
      await store.createSession({ id: "s" });
      await store.appendMessage({ id: "a1", sessionId: "s", role: "assistant", content: "x" });
      for (const textOffset of [-1, 1.5])
        await expect(
          store.commitTurn("s", {
            toolCalls: [{ callId: "bad", messageId: "a1", toolName: "t", argumentsJson: "{}", textOffset }],
          }),
        ).rejects.toThrow(/tool call bad: textOffset must be a whole number of characters >= 0/);
    });
  });
});

describe("sqlite migration to schema version 6", () => {
  it("keeps the tool calls stored before, with offset 0 (shown before the text, as they were)", () => {
    const path = join(tempDir(), "v2.db");
    const db = new BetterSqlite3(path);
    db.exec(readFileSync(join(import.meta.dirname, "fixtures", "v2.sql"), "utf8"));
    const before = (db.prepare("SELECT COUNT(*) AS n FROM tool_calls").get() as { n: number }).n;
    db.close();
    const store = Store.open(path);
    expect(store.schemaVersion).toBeGreaterThanOrEqual(6);
    store.close();
    const after = new BetterSqlite3(path, { readonly: true });
    const rows = after.prepare("SELECT text_offset FROM tool_calls").all() as { text_offset: number }[];
    after.close();
    expect(before).toBeGreaterThan(0);
    expect(rows).toHaveLength(before);
    expect(rows.every((r) => r.text_offset === 0)).toBe(true);
  });
});
