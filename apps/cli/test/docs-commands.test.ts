// Every command line README.md and docs/*.md show in ```sh blocks, run as a new user would type
// it: through bin/palisade, against an isolated data directory and config (the scripted model of
// @palisade/testing), placeholders filled. A line fails on "unknown command", "not available",
// an unknown option, a misplaced argument or a crash. A new doc example is covered by writing it.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { echoReply, startScriptedServer } from "@palisade/testing";
import type { ScriptedServer } from "@palisade/testing";

const repo = join(import.meta.dirname, "..", "..", "..");
const bin = join(repo, "bin");
const built = existsSync(join(repo, "apps", "cli", "dist", "main.js"));

/** `palisade …` lines of the ```sh blocks of a Markdown file (comments and continuations handled). */
export function docCommands(markdown: string): string[] {
  const out: string[] = [];
  let inSh = false;
  let pending = "";
  for (const raw of markdown.split("\n")) {
    if (/^```/.test(raw)) {
      inSh = !inSh && /^```(sh|bash|shell)\s*$/.test(raw);
      continue;
    }
    if (!inSh) continue;
    const line = pending + raw;
    if (line.endsWith("\\")) {
      pending = `${line.slice(0, -1)} `;
      continue;
    }
    pending = "";
    const code = stripComment(line).trim();
    if (/(^|\|\s*)palisade(\s|$)/.test(code)) out.push(code);
  }
  return out;
}

/** Drops a trailing `# comment` that is outside quotes. */
function stripComment(line: string): string {
  let quote = "";
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] as string;
    if (quote) {
      if (ch === quote) quote = "";
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === "#" && (i === 0 || /\s/.test(line[i - 1] as string))) return line.slice(0, i);
  }
  return line;
}

const docs = [
  join(repo, "README.md"),
  ...readdirSync(join(repo, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => join(repo, "docs", f)),
];
const lines = docs.flatMap((file) =>
  docCommands(readFileSync(file, "utf8")).map((cmd) => ({ file: file.slice(repo.length + 1), cmd })),
);

/** What a doc line must never produce. */
const BROKEN = [
  /unknown command/i,
  /not available/i,
  /unknown option/i,
  /unexpected argument/i,
  /needs <\w+>/,
  /set PALISADE_DEBUG=1/,
  /\n\s+at .+:\d+:\d+/,
  /TypeError|ReferenceError|SyntaxError: /,
];

describe.skipIf(!built)("every command line in README.md and docs/*.md", () => {
  let model: ScriptedServer;
  let root: string;
  let dataDir: string;
  let config: string;
  let work: string;
  let sessionId = "";

  const run = (
    cmd: string,
    timeout = 120_000,
  ): Promise<{ code: number | null; signal: string | null; out: string; err: string }> =>
    new Promise((resolve) => {
      execFile(
        "bash",
        ["-c", cmd],
        { cwd: work, timeout, env: { PATH: `${bin}:${process.env.PATH ?? ""}`, HOME: root, TERM: "dumb", CI: "1" } },
        (error, stdout, stderr) => {
          const e = error as (Error & { code?: number; signal?: string }) | null;
          resolve({
            code: e ? (typeof e.code === "number" ? e.code : null) : 0,
            signal: e?.signal ?? null,
            out: stdout,
            err: stderr,
          });
        },
      );
    });

  /** Isolated: --data-dir and --config right after the command word; placeholders filled. */
  const prepare = (cmd: string): string =>
    cmd
      .replace(/(^|\|\s*)palisade(?=\s|$)/g, `$1palisade --data-dir ${dataDir} --config ${config}`)
      .replace(/<id>|\bID\b/g, sessionId)
      .replace(/<user>/g, "alice");

  beforeAll(async () => {
    model = await startScriptedServer({ fallback: echoReply, tokenDelayMs: 0 });
    root = mkdtempSync(join(tmpdir(), "pdoc-"));
    dataDir = join(root, "d");
    work = join(root, "w");
    mkdirSync(work);
    writeFileSync(join(work, "README.md"), "# A project\n\nIt does things.\n");
    writeFileSync(join(work, "notes.md"), "- one\n-  two\n");
    config = join(root, "config.yaml");
    writeFileSync(config, `model:\n  base_url: ${model.url}/v1\n  name: scripted-model\n`);
    const first = await run(`palisade --data-dir ${dataDir} --config ${config} run "hello from the docs test"`);
    expect(first.code, first.err).toBe(0);
    sessionId = /\(session (ses_[\w-]+)/.exec(first.err)?.[1] ?? "";
    expect(sessionId).not.toBe("");
  }, 180_000);

  afterAll(async () => {
    await run(`palisade --data-dir ${dataDir} engine stop`, 30_000);
    await model?.close();
    rmSync(root, { recursive: true, force: true });
  }, 60_000);

  it("finds the command lines (README, history, capabilities, configuration)", () => {
    const files = new Set(lines.map((l) => l.file));
    for (const f of ["README.md", "docs/history.md", "docs/capabilities.md", "docs/configuration.md"])
      expect(files).toContain(f);
    expect(lines.length).toBeGreaterThan(20);
  });

  it.each(lines.map((l) => [`${l.file}: ${l.cmd}`, l.cmd]))(
    "%s",
    async (_name, cmd) => {
      const r = await run(prepare(cmd));
      const text = `${r.out}\n${r.err}`;
      for (const bad of BROKEN) expect(text, `'${cmd}' printed ${bad}:\n${text}`).not.toMatch(bad);
      expect(r.signal, `'${cmd}' was killed:\n${text}`).toBeNull();
      // 0 ok, 1 failure reported, 2 usage (e.g. chat without a terminal), 3 a Shield decision or no Engine.
      expect([0, 1, 2, 3], `'${cmd}' exited ${String(r.code)}:\n${text}`).toContain(r.code);
    },
    180_000,
  );
});
