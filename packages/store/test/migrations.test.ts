import { readFileSync } from "node:fs";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { MIGRATIONS, SCHEMA_VERSION, Store } from "@palisade/store";
import { tempDir } from "./helpers.js";

const FIXTURE = readFileSync(join(import.meta.dirname, "fixtures", "v1.sql"), "utf8");
const FIXTURE_V2 = readFileSync(join(import.meta.dirname, "fixtures", "v2.sql"), "utf8");

function schemaOf(db: BetterSqlite3.Database): string[] {
  return (
    db
      .prepare("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name")
      .all() as Array<{ type: string; name: string; sql: string | null }>
  ).map((r) => `${r.type} ${r.name}: ${(r.sql ?? "").replace(/\s+/g, " ")}`);
}

function v1Database(): string {
  const path = join(tempDir(), "v1.db");
  const db = new BetterSqlite3(path);
  db.pragma("journal_mode = WAL");
  db.pragma("foreign_keys = ON");
  db.exec(FIXTURE);
  db.close();
  return path;
}

function v2Database(): string {
  const path = join(tempDir(), "v2.db");
  const db = new BetterSqlite3(path);
  db.pragma("auto_vacuum = INCREMENTAL");
  db.pragma("journal_mode = WAL");
  db.pragma("foreign_keys = ON");
  db.exec(FIXTURE_V2);
  db.close();
  return path;
}

describe("migrations", () => {
  it("the v1 fixture is exactly what migration 1 creates", () => {
    const fresh = new BetterSqlite3(":memory:");
    fresh.exec(MIGRATIONS[0]!);
    const fixture = new BetterSqlite3(v1Database(), { readonly: true });
    expect(fixture.pragma("user_version", { simple: true })).toBe(1);
    expect(schemaOf(fixture)).toEqual(schemaOf(fresh));
    fixture.close();
    fresh.close();
  });

  it("upgrades a database made by schema version 1, keeping and indexing its rows", () => {
    const path = v1Database();
    const store = Store.open(path);
    expect(store.schemaVersion).toBe(SCHEMA_VERSION);
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(2);
    expect(store.getSession("s-legacy")).toMatchObject({
      title: "Legacy weather chat",
      titleSource: "user",
      messageCount: 3,
      usage: { inputTokens: 120, outputTokens: 45 },
    });
    const history = store.getHistory("s-legacy");
    expect(history.messages.map((m) => m.id)).toEqual(["m-1", "m-2", "m-3"]);
    expect(history.messages[1]?.toolCalls[0]).toMatchObject({
      callId: "call_1",
      verdict: { decision: "allow", ruleIds: ["allow-http"] },
      durationMs: 310,
    });
    // v2 features work on old rows (FTS rebuilt from existing content) and new ones.
    expect(
      store
        .search("Lisbon")
        .hits.map((h) => h.callId || h.messageId)
        .sort(),
    ).toEqual(["call_1", "m-1", "m-3"]);
    expect(store.search("weather.example").hits.map((h) => h.callId)).toEqual(["call_1"]);
    store.appendMessage({ sessionId: "s-legacy", role: "user", content: "and in Porto?" });
    expect(store.search("porto").hits).toHaveLength(1);
    store.appendAudit({ kind: "proposal", payload: { tool: "x" } });
    expect(store.verifyAudit()).toMatchObject({ ok: true, rows: 1 });
    expect(store.integrityCheck()).toBe("ok");
    store.close();
    // Reopening an up-to-date database changes nothing.
    const again = Store.open(path);
    expect(again.schemaVersion).toBe(SCHEMA_VERSION);
    expect(again.getHistory("s-legacy").messages).toHaveLength(4);
    again.close();
  });

  it("the v2 fixture is exactly what migrations 1 and 2 create", () => {
    const fresh = new BetterSqlite3(":memory:");
    fresh.exec(MIGRATIONS[0]!);
    fresh.exec(MIGRATIONS[1]!);
    const fixture = new BetterSqlite3(v2Database(), { readonly: true });
    expect(fixture.pragma("user_version", { simple: true })).toBe(2);
    expect(schemaOf(fixture)).toEqual(schemaOf(fresh));
    fixture.close();
    fresh.close();
  });

  it("upgrades a database made by schema version 2: prefix indexes, rows and audit chain kept", () => {
    const path = v2Database();
    const before = new BetterSqlite3(path, { readonly: true });
    expect(before.prepare("SELECT sql FROM sqlite_master WHERE name = 'messages_fts'").pluck().get()).not.toContain(
      "prefix",
    );
    before.close();
    const store = Store.open(path);
    expect(store.schemaVersion).toBe(SCHEMA_VERSION);
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(3);
    expect(store.getHistory("s-v2").messages.map((m) => m.id)).toEqual(["v2-m1", "v2-m2"]);
    // Old rows are in the rebuilt indexes, for whole terms and prefixes of every indexed length and longer.
    const found = (q: string): string[] =>
      store
        .search(q)
        .hits.map((h) => h.callId || h.messageId)
        .sort();
    expect(found("staging")).toEqual(["v2-c1", "v2-m1", "v2-m2"]);
    expect(found("de*")).toEqual(["v2-c1", "v2-m1", "v2-m2"]);
    expect(found("dep*")).toEqual(["v2-c1", "v2-m1", "v2-m2"]);
    expect(found("depl*")).toEqual(["v2-c1", "v2-m1", "v2-m2"]);
    expect(found("deploym*")).toEqual(["v2-m2"]);
    expect(found("pipel*")).toEqual(["v2-m2"]);
    expect(found("sh*")).toEqual(["v2-c1"]);
    expect(store.verifyAudit()).toMatchObject({ ok: true, rows: 2 });
    // New rows go through the v2 triggers into the new tables; updates and deletes too.
    store.appendMessage({ sessionId: "s-v2", role: "user", content: "rollback the staging release" });
    expect(found("rol*")).toHaveLength(1);
    store.updateMessage("v2-m1", { content: "nothing to see" });
    expect(found("tag*")).toEqual(["v2-c1"]);
    expect(store.integrityCheck()).toBe("ok");
    store.close();
    const db = new BetterSqlite3(path);
    const sql = (name: string): string =>
      db.prepare("SELECT sql FROM sqlite_master WHERE name = ?").pluck().get(name) as string;
    expect(sql("messages_fts")).toContain("prefix = '2 3 4'");
    expect(sql("tool_calls_fts")).toContain("prefix = '2 3 4'");
    // FTS5's own check: every index (main and prefix) agrees with the content tables.
    for (const t of ["messages_fts", "tool_calls_fts"])
      expect(() => db.prepare(`INSERT INTO ${t} (${t}, rank) VALUES ('integrity-check', 1)`).run()).not.toThrow();
    db.close();
  });

  it("upgrades to schema version 4: a model stored before was asked for, so it stays with its session; none stored follows the configuration", () => {
    const path = v2Database();
    const db = new BetterSqlite3(path);
    db.prepare(
      "INSERT INTO sessions (id, title, title_source, mode, workspace, model, created_at, updated_at) VALUES ('s-none', '', 'none', 'normal', '/w', '', 1, 1)",
    ).run();
    db.close();
    const store = Store.open(path);
    expect(store.schemaVersion).toBeGreaterThanOrEqual(4);
    expect(store.getSession("s-v2")).toMatchObject({ model: "m", modelChosen: true });
    expect(store.getSession("s-none")).toMatchObject({ model: "", modelChosen: false });
    expect(store.recordSessionModel("s-v2", "configured")).toBe(false);
    expect(store.recordSessionModel("s-none", "configured")).toBe(true);
    expect(store.getSession("s-v2")?.model).toBe("m");
    expect(store.getSession("s-none")).toMatchObject({ model: "configured", modelChosen: false });
    store.createSession({ id: "s-new", model: "configured", modelChosen: false });
    expect(store.recordSessionModel("s-new", "other")).toBe(true);
    expect(store.getSession("s-new")).toMatchObject({ model: "other", modelChosen: false });
    store.close();
  });

  it("upgrades to schema version 5: tool calls stored before have no result label, new ones keep theirs", () => {
    const path = v2Database();
    const store = Store.open(path);
    expect(store.schemaVersion).toBeGreaterThanOrEqual(5);
    const m = store.appendMessage({ sessionId: "s-v2", role: "assistant", content: "" });
    store.recordToolCall({ callId: "old", messageId: m.id, toolName: "web__fetch", argumentsJson: "{}" });
    store.recordToolCall({
      callId: "new",
      messageId: m.id,
      toolName: "web__fetch",
      argumentsJson: "{}",
      resultTrust: "untrusted",
    });
    const calls = store.getHistory("s-v2").messages.flatMap((x) => x.toolCalls);
    // the fixture's own call (stored by version 2) and the two new ones
    expect(calls.map((c) => [c.callId, c.resultTrust])).toEqual([
      [calls[0]?.callId, ""],
      ["old", ""],
      ["new", "untrusted"],
    ]);
    store.close();
  });

  it("reports each migration of an existing database before and after it runs, and none for a new one", () => {
    const steps: Array<{ from: number; to: number; phase: string }> = [];
    Store.open(v2Database(), { onMigration: (s) => steps.push({ from: s.from, to: s.to, phase: s.phase }) }).close();
    expect(steps).toEqual([
      { from: 2, to: 3, phase: "start" },
      { from: 2, to: 3, phase: "done" },
      { from: 3, to: 4, phase: "start" },
      { from: 3, to: 4, phase: "done" },
      { from: 4, to: 5, phase: "start" },
      { from: 4, to: 5, phase: "done" },
      { from: 5, to: 6, phase: "start" },
      { from: 5, to: 6, phase: "done" },
    ]);
    const fresh: unknown[] = [];
    Store.open(join(tempDir(), "new.db"), { onMigration: (s) => fresh.push(s) }).close();
    expect(fresh).toEqual([]);
  });

  it("a fresh database equals an upgraded one", () => {
    const upgraded = v1Database();
    Store.open(upgraded).close();
    const freshPath = join(tempDir(), "fresh.db");
    Store.open(freshPath).close();
    const a = new BetterSqlite3(upgraded, { readonly: true });
    const b = new BetterSqlite3(freshPath, { readonly: true });
    expect(schemaOf(a)).toEqual(schemaOf(b));
    a.close();
    b.close();
  });

  it("refuses a database from a newer Palisade", () => {
    const path = join(tempDir(), "future.db");
    const db = new BetterSqlite3(path);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => Store.open(path)).toThrow(expect.objectContaining({ code: "SCHEMA_TOO_NEW" }));
  });

  it("rolls back a failing migration and leaves the previous version", () => {
    const path = v1Database();
    const db = new BetterSqlite3(path);
    db.exec("CREATE TABLE audit (x INTEGER)"); // collides with migration 2
    db.close();
    expect(() => Store.open(path)).toThrow(expect.objectContaining({ code: "MIGRATION_FAILED" }));
    const check = new BetterSqlite3(path, { readonly: true });
    expect(check.pragma("user_version", { simple: true })).toBe(1);
    expect(check.prepare("SELECT name FROM sqlite_master WHERE name = 'messages_fts'").get()).toBeUndefined();
    check.close();
  });

  it("opens WAL with foreign keys on and synchronous FULL by default", () => {
    const path = join(tempDir(), "p.db");
    const store = Store.open(path);
    expect(store.settings()).toEqual({ journalMode: "wal", synchronous: "full", foreignKeys: true });
    store.close();
    const fast = Store.open(path, { synchronous: "normal" });
    expect(fast.settings().synchronous).toBe("normal");
    fast.close();
  });
});
