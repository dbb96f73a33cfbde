// A damaged history database: the Engine's start-up error names the database file and how to
// get going again, not the config file.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { built, sh } from "./bin.js";

describe.skipIf(!built)("a damaged history database", () => {
  let root: string;
  let g: string[];
  let db: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "pcorrupt-"));
    mkdirSync(join(root, "d"));
    db = join(root, "d", "palisade.db");
    // not a SQLite file at all: what a disk error or a bad copy leaves
    writeFileSync(db, Buffer.alloc(64 * 1024, 0x5a));
    writeFileSync(join(root, "config.yaml"), "model:\n  base_url: http://127.0.0.1:9/v1\n  name: m\n");
    g = ["--data-dir", join(root, "d"), "--config", join(root, "config.yaml")];
  });
  afterAll(async () => {
    await sh([...g, "engine", "stop"], root, { HOME: root });
    rmSync(root, { recursive: true, force: true });
  }, 60_000);

  it("engine start names the database file and how to fix it, not config.yaml", async () => {
    const r = await sh([...g, "engine", "start"], root, { HOME: root });
    expect(r.code).toBe(1);
    expect(r.err).toContain(`the history database ${db} cannot be read`);
    expect(r.err).toContain(`mv ${db} ${db}.damaged`);
    expect(r.err).not.toContain("check " + join(root, "config.yaml"));
    // nothing is left running, and engine stop says so plainly
    const stop = await sh([...g, "engine", "stop"], root, { HOME: root });
    expect(stop.code).toBe(0);
    expect(stop.out).toContain("No Engine is running");
  }, 120_000);

  it("sessions list says the same, not a bare SQLite error from reading it without an Engine", async () => {
    const r = await sh([...g, "sessions", "list"], root, { HOME: root });
    expect(r.code).toBe(1);
    expect(r.err).toContain(`the history database ${db} cannot be read`);
    expect(r.err).not.toContain("reading the history from");
    expect(r.err).not.toMatch(/^palisade: file is not a database$/m);
  }, 120_000);
});
