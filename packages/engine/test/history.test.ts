// Issue 9, Engine side: `history` config, title cleaning, and retention by size over the real
// SQLite store. End-to-end tests are in test/history/.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openSqliteStore } from "../src/adapters/sqlite-store.js";
import { startScriptedServer, waitFor } from "@palisade/testing";
import { Retention, TitleWriter, cleanTitle, titleMessages } from "../src/index.js";
import { MemoryStore } from "../src/testing.js";
import { parseBytes, parseConfig } from "@palisade/config";
import { MAX_DEFER_MS } from "../src/history/titles.js";
import type { EngineStore } from "../src/index.js";
import type { ConfigError } from "@palisade/config";
import { ZERO_USAGE } from "../src/history/convert.js";

function issues(text: string): string[] {
  try {
    parseConfig(text, { env: {} });
    return [];
  } catch (err) {
    return (err as ConfigError).issues.map((i) => `${i.path}: ${i.message}`);
  }
}

describe("history config", () => {
  it("defaults: titles on, no retention, hourly checks", () => {
    expect(parseConfig("", { env: {} }).history).toEqual({
      autoTitle: true,
      retention: { checkIntervalMs: 3_600_000 },
    });
  });

  it("reads auto_title and retention", () => {
    const cfg = parseConfig(
      "history:\n  auto_title: false\n  retention: { max_age_days: 90, max_bytes: 2GB, check_interval_s: 60 }\n",
      { env: {} },
    );
    expect(cfg.history).toEqual({
      autoTitle: false,
      retention: { maxAgeDays: 90, maxBytes: 2e9, checkIntervalMs: 60_000 },
    });
  });

  it("reports every problem with its path", () => {
    expect(
      issues("history:\n  auto_title: yes please\n  retention: { max_age_days: 0, max_bytes: lots, colour: red }\n"),
    ).toEqual([
      'history.auto_title: must be true or false, got "yes please"',
      "history.retention.colour: unknown key; allowed here: max_age_days, max_bytes, check_interval_s",
      "history.retention.max_age_days: must be a number >= 1, got number 0",
      'history.retention.max_bytes: must be a size like 500MB, 2GB or a number of bytes >= 1048576, got "lots"',
    ]);
    expect(issues("history: 3\n")).toEqual(["history: must be a mapping, got number 3"]);
  });

  it("parses sizes", () => {
    expect(parseBytes(1_048_576)).toBe(1_048_576);
    expect(parseBytes("500MB")).toBe(500e6);
    expect(parseBytes("2 GiB")).toBe(2 * 1024 ** 3);
    expect(parseBytes("1.5gb")).toBe(1.5e9);
    expect(parseBytes("12kb")).toBeUndefined(); // below 1 MiB
    expect(parseBytes("10 parsecs")).toBeUndefined();
    expect(parseBytes(-5)).toBeUndefined();
  });
});

describe("titles", () => {
  it.each([
    ['"Capital of France."', "Capital of France"],
    ["Title: Trip planning", "Trip planning"],
    ["**Refactor the parser**", "Refactor the parser"],
    ["  Ok  \n", "Ok"],
    ["", undefined],
    ["line one\nline two", undefined],
    ["x".repeat(81), undefined],
  ])("cleanTitle(%j) = %j", (input, out) => {
    expect(cleanTitle(input)).toBe(out);
  });

  it("sends only the first message and an excerpt of the reply", () => {
    const msgs = titleMessages("a".repeat(2000), "b".repeat(2000));
    expect(msgs.map((m) => m.role)).toEqual(["system", "user"]);
    expect(msgs[1]!.content.length).toBeLessThan(1100);
  });

  it("makes no call without a configured model, or when disabled, or for OTR sessions", async () => {
    const store = new MemoryStore();
    const session = {
      id: "s1",
      title: "first",
      mode: "normal" as const,
      workspace: "/w",
      model: "",
      createdAt: 0,
      updatedAt: 0,
      messageCount: 2,
      usage: ZERO_USAGE,
    };
    await store.createSession({ ...session, title: "" });
    const logs: string[] = [];
    // Port 1 refuses connections: a call would be logged as a failure.
    const off = new TitleWriter({
      store,
      model: () => ({ name: "m", contextWindow: 1000 }),
      enabled: true,
      log: (l) => logs.push(l),
    });
    off.request(session, "hi", "hello");
    const disabled = new TitleWriter({
      store,
      model: () => ({ name: "m", baseUrl: "http://127.0.0.1:1/v1", contextWindow: 1000 }),
      enabled: false,
      log: (l) => logs.push(l),
    });
    disabled.request(session, "hi", "hello");
    const otr = new TitleWriter({
      store,
      model: () => ({ name: "m", baseUrl: "http://127.0.0.1:1/v1", contextWindow: 1000 }),
      enabled: true,
      log: (l) => logs.push(l),
    });
    otr.request({ ...session, mode: "otr" }, "hi", "hello");
    await Promise.all([off.close(), disabled.close(), otr.close()]);
    expect(logs).toEqual([]);
    // The same writer with a model does try (and fails over to the first message).
    const on = new TitleWriter({
      store,
      model: () => ({ name: "m", baseUrl: "http://127.0.0.1:1/v1", contextWindow: 1000 }),
      enabled: true,
      log: (l) => logs.push(l),
    });
    on.request(session, "hi", "hello");
    await new Promise((r) => setTimeout(r, 300));
    await on.close();
    expect(logs.join("\n")).toMatch(/title of s1: kept the first message/);
  });
});

describe("titles are background work", () => {
  const session = (id: string) => ({
    id,
    title: "",
    mode: "normal" as const,
    workspace: "/w",
    model: "",
    createdAt: 0,
    updatedAt: 0,
    messageCount: 2,
    usage: ZERO_USAGE,
  });

  it("wait while turns run, then at most two at a time", async () => {
    const model = await startScriptedServer({ latencyMs: 150, fallback: { content: "A fine title" } });
    const store = new MemoryStore();
    for (let i = 0; i < 5; i++) await store.createSession(session(`s${i}`));
    let busy = true;
    const writer = new TitleWriter({
      store,
      model: () => ({ name: "m", baseUrl: model.baseURL, contextWindow: 1000 }),
      enabled: true,
      log: () => undefined,
      busy: () => busy,
    });
    const t0 = Date.now();
    for (let i = 0; i < 5; i++) writer.request(session(`s${i}`), "hi", "hello");
    await new Promise((r) => setTimeout(r, 300));
    expect(model.requests).toHaveLength(0); // turns are running: nothing sent yet
    busy = false;
    await waitFor(async () => (await store.getSession("s4"))?.title === "A fine title", { timeoutMs: 5000 });
    const at = model.requests.map((r) => r.receivedAt - t0);
    expect(at).toHaveLength(5);
    expect(Math.min(...at)).toBeGreaterThanOrEqual(300);
    // Two, then two more after the first two answered (150 ms), then the last.
    const sorted = [...at].sort((a, b) => a - b);
    expect(sorted[2]! - sorted[0]!).toBeGreaterThanOrEqual(140);
    expect(sorted[4]! - sorted[2]!).toBeGreaterThanOrEqual(140);
    await writer.close();
    await model.close();
  });

  it("a title does not wait for idle time longer than MAX_DEFER_MS", async () => {
    const model = await startScriptedServer({ fallback: { content: "Busy title" } });
    const store = new MemoryStore();
    await store.createSession(session("b1"));
    const writer = new TitleWriter({
      store,
      model: () => ({ name: "m", baseUrl: model.baseURL, contextWindow: 1000 }),
      enabled: true,
      log: () => undefined,
      busy: () => true,
    });
    const t0 = Date.now();
    writer.request(session("b1"), "hi", "hello");
    await waitFor(async () => (await store.getSession("b1"))?.title === "Busy title", {
      timeoutMs: MAX_DEFER_MS + 3000,
    });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(MAX_DEFER_MS);
    await writer.close();
    await model.close();
  });
});

describe("retention over the SQLite store", () => {
  let dir = "";
  let store: EngineStore | undefined;
  afterEach(async () => {
    await store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("max_bytes deletes the least recently updated sessions until the database fits", async () => {
    dir = mkdtempSync(join(tmpdir(), "pal-retention-"));
    store = await openSqliteStore(dir);
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      const id = `ses_${String(i).padStart(2, "0")}`;
      const session = {
        id,
        title: "",
        mode: "normal" as const,
        workspace: "/w",
        model: "",
        createdAt: 1000 + i,
        updatedAt: 1000 + i,
        messageCount: 0,
        usage: ZERO_USAGE,
      };
      await store.createSession(session);
      await store.commitTurn({
        session: { ...session, updatedAt: Date.now() + i },
        status: "completed",
        user: { id: `u${i}`, content: `${"lorem ipsum dolor ".repeat(6000)} ${i}`, createdAt: Date.now() },
        toolCalls: [],
        events: [],
      });
      ids.push(id);
    }
    const deleted: string[] = [];
    const retention = new Retention({
      store,
      config: { maxBytes: 2 * 1024 * 1024, checkIntervalMs: 3_600_000 },
      log: () => undefined,
      onDeleted: async (x) => void deleted.push(...x),
    });
    const out = await retention.run();
    await retention.stop();
    expect(out!.bytesBefore).toBeGreaterThan(2 * 1024 * 1024);
    expect(out!.bytesAfter).toBeLessThanOrEqual(2 * 1024 * 1024);
    expect(deleted.length).toBeGreaterThan(0);
    expect(deleted).toEqual(ids.slice(0, deleted.length)); // oldest first
    expect(await store.getSession(ids.at(-1)!)).toBeDefined();
    expect(await store.getSession(ids[0]!)).toBeUndefined();
  });
});
