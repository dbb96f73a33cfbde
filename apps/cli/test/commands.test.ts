import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ApprovalDecision, SessionMode } from "@palisade/protocol/types";
import { runCli } from "../src/cli/run-cli.js";
import { writeEngineInfo } from "@palisade/config/discovery";
import { startFakeEngine } from "./fake/fake-engine.js";
import type { RunningFakeEngine } from "./fake/fake-engine.js";
import { captureIo } from "./helpers.js";

describe("palisade run / sessions / engine against a ClientService", () => {
  let dir: string;
  let fake: RunningFakeEngine;
  let holder: ChildProcess;
  const argv = (...a: string[]): string[] => ["--data-dir", dir, ...a];

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "palisade-cli-"));
    // engine.json needs a live pid that is not ours (engine stop waits for it to exit).
    holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
    fake = await startFakeEngine(`unix:${join(dir, "engine.sock")}`, {
      tokenDelayMs: 0,
      onShutdown: () => holder.kill(),
    });
    await writeEngineInfo(dir, {
      pid: holder.pid ?? 0,
      address: fake.address,
      startedAt: new Date().toISOString(),
      version: "fake",
    });
  });

  afterEach(async () => {
    holder.kill();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("run streams the answer and exits 0", async () => {
    const io = captureIo();
    expect(await runCli(argv("run", "hello", "there"), io)).toBe(0);
    expect(io.out()).toContain("## What I found");
    expect(io.out()).toContain("See [the design]");
    expect(io.err()).toMatch(
      new RegExp(`session s\\w+: continue with 'palisade --data-dir ${dir} run --session s\\w+ "…"'`),
    );
    expect(fake.engine.received[0]).toMatchObject({
      content: "hello there",
      mode: SessionMode.NORMAL,
      source: "cli-run",
    });
  });

  it("run shows each tool call with its verdict and result", async () => {
    const io = captureIo();
    expect(await runCli(argv("run", "read the readme"), io)).toBe(0);
    expect(io.out()).toContain(
      "⏺ files__read_file path=README.md · shield ALLOW (tier 0): reading inside the workspace is allowed",
    );
    expect(io.out()).toContain("✓ files__read_file 9 ms → README.md: 42 lines, 1.3 kB");
    expect(io.out()).toContain("The README has **42 lines**");
  });

  it("run without a terminal answers an escalation as unattended and says no one could approve, not that the user declined", async () => {
    const io = captureIo();
    expect(await runCli(argv("run", "approve rm"), io)).toBe(0);
    expect(io.err()).toContain(
      "not run: shell__exec needs approval (deleting files needs your approval) and no one could approve (no terminal)",
    );
    expect(io.err()).toContain("--approve 'shell__exec'");
    expect(fake.engine.approvalAnswers).toEqual([
      { approvalId: "ap-1", decision: ApprovalDecision.UNATTENDED, reason: "no terminal" },
    ]);
    expect(io.out()).not.toContain("declined");
  });

  it("run --approve TOOL_GLOB approves matching escalations once", async () => {
    const io = captureIo();
    expect(await runCli(argv("run", "--approve", "files__*", "--approve", "shell__*", "approve rm"), io)).toBe(0);
    expect(fake.engine.approvalAnswers).toEqual([
      { approvalId: "ap-1", decision: ApprovalDecision.ALLOW_ONCE, reason: "approved by --approve shell__*" },
    ]);
    expect(io.err()).toContain("approved shell__exec (--approve shell__*)");
    expect(io.out()).toContain("Done: `build/` is gone.");
  });

  it("run reads the prompt from stdin when it is - or absent with stdin not a terminal", async () => {
    const dash = captureIo();
    (dash.stdin as PassThrough).end("hello from a pipe\n");
    expect(await runCli(argv("run", "-"), dash)).toBe(0);
    const none = captureIo();
    (none.stdin as PassThrough).end("second prompt");
    expect(await runCli(argv("run"), none)).toBe(0);
    expect(fake.engine.received.map((r) => r.content)).toEqual(["hello from a pipe", "second prompt"]);
    const empty = captureIo();
    (empty.stdin as PassThrough).end("");
    expect(await runCli(argv("run"), empty)).toBe(2);
    expect(empty.err()).toContain("the prompt read from stdin is empty");
  });

  it("run --json prints one JSON event per line", async () => {
    const io = captureIo();
    expect(await runCli(argv("run", "--json", "read it"), io)).toBe(0);
    const lines = io
      .out()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; sessionId?: string });
    const types = lines.map((l) => l.type);
    expect(types[0]).toBe("MESSAGE_ACCEPTED");
    expect(types).toContain("LLM_TOKEN");
    expect(types).toContain("SHIELD_VERDICT");
    expect(types.at(-1)).toBe("RESPONSE_COMPLETE");
    expect(lines.every((l) => typeof l.sessionId === "string")).toBe(true);
  });

  it("run --otr sends an off-the-record message", async () => {
    expect(await runCli(argv("run", "--otr", "secret"), captureIo())).toBe(0);
    expect(fake.engine.received[0]?.mode).toBe(SessionMode.OTR);
    expect(fake.engine.sessions.size).toBe(0);
  });

  it("run --session continues a session by id prefix", async () => {
    const s = fake.engine.seed("Earlier", [{ role: "user", content: "hi" }]);
    expect(await runCli(argv("run", "--session", s.id.slice(0, 6), "again"), captureIo())).toBe(0);
    expect(fake.engine.received[0]?.sessionId).toBe(s.id);
  });

  it("run exits 1 on an ERROR event with a one-line message", async () => {
    const io = captureIo();
    expect(await runCli(argv("run", "fail"), io)).toBe(1);
    expect(io.err()).toContain(
      "error: the model server answered 503 three times; check OPENAI_BASE_URL (MODEL_UNAVAILABLE)",
    );
    expect(io.err()).toMatch(/\(session s\w+: continue with '.* run --session s\w+ "…"'/);
  });

  it("sessions list / show / search / export / rename / delete", async () => {
    const a = fake.engine.seed("Trip to Lisbon", [
      { role: "user", content: "plan a trip to Lisbon" },
      { role: "assistant", content: "Day 1: Alfama" },
    ]);
    fake.engine.seed("Taxes", [{ role: "user", content: "VAT rate?" }], Date.now() - 1000);

    let io = captureIo();
    expect(await runCli(argv("sessions", "list"), io)).toBe(0);
    expect(io.out()).toMatch(/^ID\s+UPDATED\s+MSGS\s+TITLE/);
    expect(io.out().indexOf("Trip to Lisbon")).toBeLessThan(io.out().indexOf("Taxes"));

    io = captureIo();
    expect(await runCli(argv("sessions", "list", "--json", "--filter", "tax"), io)).toBe(0);
    expect(JSON.parse(io.out())).toMatchObject({ total: 1, sessions: [{ title: "Taxes" }] });

    io = captureIo();
    expect(await runCli(argv("sessions", "show", a.id.slice(0, 8)), io)).toBe(0);
    expect(io.out()).toContain("# Trip to Lisbon");
    expect(io.out()).toContain("user: plan a trip to Lisbon");
    expect(io.out()).toContain("assistant: Day 1: Alfama");

    io = captureIo();
    expect(await runCli(argv("sessions", "search", "lisbon"), io)).toBe(0);
    expect(io.out()).toContain("trip to [Lisbon]");

    const out = join(dir, "trip.md");
    io = captureIo();
    expect(await runCli(argv("sessions", "export", a.id, "--out", out), io)).toBe(0);
    expect(readFileSync(out, "utf8")).toContain("# Trip to Lisbon");

    // An existing file is kept unless --force says to overwrite it.
    writeFileSync(out, "my notes\n");
    io = captureIo();
    expect(await runCli(argv("sessions", "export", a.id, "--out", out), io)).toBe(1);
    expect(io.err()).toContain(`not exported: ${out} already exists`);
    expect(io.err()).toContain("add --force to overwrite it");
    expect(readFileSync(out, "utf8")).toBe("my notes\n");
    expect(await runCli(argv("sessions", "export", a.id, "--out", out, "--force"), captureIo())).toBe(0);
    expect(readFileSync(out, "utf8")).toContain("# Trip to Lisbon");

    io = captureIo();
    const nowhere = join(dir, "no-such-dir", "trip.md");
    expect(await runCli(argv("sessions", "export", a.id, "--out", nowhere), io)).toBe(1);
    expect(io.err()).toContain(`cannot write ${nowhere}: the directory ${join(dir, "no-such-dir")} does not exist`);
    expect(io.err()).toContain("mkdir -p");
    expect(io.err()).not.toContain("ENOENT");
    io = captureIo();
    expect(await runCli(argv("sessions", "export", a.id, "--out", dir), io)).toBe(1);
    expect(io.err()).toContain("it is a directory");

    io = captureIo();
    expect(await runCli(argv("sessions", "export", a.id, "--format", "json"), io)).toBe(0);
    expect(JSON.parse(io.out())).toMatchObject({ session: { title: "Trip to Lisbon" } });

    expect(await runCli(argv("sessions", "rename", a.id, "Lisbon", "in", "May"), captureIo())).toBe(0);
    expect(fake.engine.sessions.get(a.id)?.info.title).toBe("Lisbon in May");

    io = captureIo();
    expect(await runCli(argv("sessions", "delete", a.id), io)).toBe(2);
    expect(io.err()).toContain("add --yes");
    expect(await runCli(argv("sessions", "delete", a.id, "--yes"), captureIo())).toBe(0);
    expect(fake.engine.sessions.has(a.id)).toBe(false);
  });

  it("an ambiguous or unknown id prefix says what matched", async () => {
    fake.engine.seed("One", []);
    fake.engine.seed("Two", []);
    let io = captureIo();
    expect(await runCli(argv("sessions", "show", "s"), io)).toBe(1);
    expect(io.err()).toContain("'s' matches 2 sessions");
    io = captureIo();
    expect(await runCli(argv("sessions", "show", "zzz"), io)).toBe(1);
    expect(io.err()).toContain("no stored session id starts with 'zzz'");
  });

  it("engine status shows health; engine stop shuts it down", async () => {
    let io = captureIo();
    expect(await runCli(argv("engine", "status"), io)).toBe(0);
    expect(io.out()).toContain(`pid ${holder.pid}`);
    expect(io.out()).toContain("Model     scripted-model");
    expect(io.out()).toMatch(/files\s+ready\s+4 tools/);
    io = captureIo();
    expect(await runCli(argv("engine", "status", "--json"), io)).toBe(0);
    expect(JSON.parse(io.out())).toMatchObject({
      running: true,
      model: "scripted-model",
      capabilities: [{ id: "files" }, { id: "shell" }],
    });
    io = captureIo();
    expect(await runCli(argv("engine", "stop"), io)).toBe(0);
    expect(io.out()).toContain(`Engine stopped (pid ${holder.pid})`);
  });
});

describe("without an Engine", () => {
  it("engine status says none runs (exit 3) and how to start one, with the --data-dir it was given", async () => {
    const dir = mkdtempSync(join(tmpdir(), "palisade-cli-"));
    try {
      const io = captureIo();
      expect(await runCli(["--data-dir", dir, "engine", "status"], io)).toBe(3);
      expect(io.out()).toContain(`No Engine is running for ${dir}`);
      expect(io.out()).toContain(`'palisade --data-dir ${dir} engine start'`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a stale engine.json (dead pid) counts as no Engine", async () => {
    const dir = mkdtempSync(join(tmpdir(), "palisade-cli-"));
    try {
      await writeEngineInfo(dir, { pid: 2 ** 22 + 12345, address: "unix:/nope", startedAt: "", version: "" });
      const io = captureIo();
      expect(await runCli(["--data-dir", dir, "engine", "status"], io)).toBe(3);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
