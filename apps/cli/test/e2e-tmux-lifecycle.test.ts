import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { E2E_TEST_TIMEOUT_MS, Terminal, hasTmux, repoRoot } from "./tmux.js";
import { messageText, startScriptedServer } from "@palisade/testing";
import type { ScriptedServer } from "@palisade/testing";
import { processesMentioning } from "./procs.js";

/**
 * The Engine's lifecycle as a new user meets it, in a real terminal (tmux, a shell typing the
 * commands): an invalid config shown in the chat, an Engine started with one model while the
 * shell now exports another (notice, restart, new model used), and the setup screen's Engine
 * gone after the user quits it. Real Engine, Agent and scripted model server (each answer names
 * the model it was called with). Needs `make build` and tmux.
 */
const root = repoRoot;
const palisade = join(root, "bin", "palisade");
const built = existsSync(join(root, "apps/cli/dist/main.js"));

// A tmux server of its own: other tests' sessions and environments never mix with this one.
const server = `palisade-lifecycle-${process.pid}`;
const session = "life";
const term = new Terminal(session, server, 300, true);
const tmux = (...args: string[]): string => term.tmux(...args);
const keys = (...k: string[]): void => term.keys(...k);
/** Types a shell command line and runs it. */
const shell = (line: string): void => {
  keys("-l", line);
  keys("Enter");
};
const waitForPane = (text: string | RegExp | ((pane: string) => boolean)): Promise<string> => term.waitForPane(text);

/** Back at the shell prompt (a chat a failed test left open exits on Ctrl+C twice), on a fresh screen and scrollback. */
async function clearPane(): Promise<void> {
  await term.until("the shell prompt", () => {
    if (term.statusLine().trimEnd() === "$") return true;
    keys("C-c");
    return false;
  });
  shell("clear");
  await term.until("a cleared screen", () => term.screen().join("").trim() === "$");
  tmux("clear-history", "-t", session);
}

function sh(cmd: string, env: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile("bash", ["-c", cmd], { env: { PATH: process.env.PATH ?? "", ...env } }, (error, out, err) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out, err });
    });
  });
}

describe.skipIf(!hasTmux || !built)("the Engine's lifecycle in a terminal (tmux, real Engine)", () => {
  let dir: string;
  let model: ScriptedServer;
  let config: string;

  beforeAll(async () => {
    model = await startScriptedServer({
      fallback: (req) => {
        const last = [...req.messages].reverse().find((m) => m.role === "user");
        return { content: `answer from model=${req.model} to ${messageText(last).slice(0, 20)}`, tokenDelayMs: 0 };
      },
    });
    dir = mkdtempSync(join(tmpdir(), "pal-life-"));
    mkdirSync(join(dir, "ws"));
    config = join(dir, "config.yaml");
    writeFileSync(config, `model:\n  base_url: ${model.baseURL}\n`);
    // A person's shell: only what they exported (no CI: it makes ink skip frames).
    const path = `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`;
    const start = `env -i PATH=${path} HOME=${dir} TERM=xterm-256color PS1='$ ' bash --norc --noprofile`;
    tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "45", "-c", join(dir, "ws"), start);
    await waitForPane("$");
  }, E2E_TEST_TIMEOUT_MS);

  afterAll(async () => {
    try {
      tmux("kill-server");
    } catch {
      // already gone
    }
    for (const d of ["d-env", "d-bad", "d-setup", "d-interrupt"])
      await sh(`${palisade} --data-dir ${join(dir, d)} engine stop`, { HOME: dir });
    for (const p of processesMentioning(dir)) process.kill(p.pid, "SIGKILL");
    await model?.close();
    rmSync(dir, { recursive: true, force: true });
  }, E2E_TEST_TIMEOUT_MS);

  it(
    "an invalid config is shown in the chat as the path-precise list, and no Engine starts",
    async () => {
      const bad = join(dir, "bad.yaml");
      writeFileSync(bad, "model:\n  base_url: localhost:11434\nshield:\n  polcy: strict\n");
      await clearPane();
      shell(`${palisade} --data-dir ${join(dir, "d-bad")} --config ${bad} chat; echo CHAT-EXITED rc=$?`);
      const p = await waitForPane("CHAT-EXITED rc=1");
      expect(p).toContain("invalid configuration (2 problems):");
      expect(p).toContain(`${bad}: model.base_url: must start with http:// or https://, got "localhost:11434"`);
      expect(p).toContain(`${bad}: shield.polcy: unknown key`);
      expect(p).toContain(`fix ${bad}`);
      expect(p).not.toContain("no model configured");
      expect(existsSync(join(dir, "d-bad", "engine.json"))).toBe(false);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    "a model exported after the Engine started: the chat says so with the restart command; after the restart the new model answers",
    async () => {
      const data = join(dir, "d-env");
      const p = `${palisade} --data-dir ${data} --config ${config}`;
      const started = await sh(`${p} engine start`, { HOME: dir, PALISADE_MODEL: "model-one" });
      expect(started.code, started.err).toBe(0);

      await clearPane();
      shell("export PALISADE_MODEL=model-two");
      shell(`${p} chat; echo CHAT-EXITED rc=$?`);
      await waitForPane("● connected");
      const notice = await waitForPane("Or type /restart here.");
      expect(notice).toContain("⚠ The running Engine started with a different setup than this one:");
      expect(notice).toContain("model: model-one → model-two");
      expect(notice).toContain(`${p} engine restart`);
      // Until the restart, the Engine's model answers.
      keys("hello one", "Enter");
      await waitForPane("answer from model=model-one to hello one");
      keys("/quit", "Enter");
      await waitForPane("CHAT-EXITED rc=0");

      // The exact command the notice gave, typed in the same shell.
      await clearPane();
      shell(`${p} engine restart`);
      await waitForPane(/Engine started: pid \d+, model model-two at http/);

      await clearPane();
      shell(`${p} chat; echo CHAT-EXITED rc=$?`);
      await waitForPane("● connected");
      keys("hello two", "Enter");
      const after = await waitForPane("answer from model=model-two to hello two");
      expect(after).not.toContain("different setup");

      // The config file edited while the chat is open: the notice appears; /restart applies it here.
      writeFileSync(config, `model:\n  base_url: ${model.baseURL}\nhistory:\n  auto_title: false\n`);
      const edited = await waitForPane(/config file content: sha256 [0-9a-f]{12} → sha256 [0-9a-f]{12}/);
      expect(edited).toContain("Or type /restart here.");
      keys("/restart", "Enter");
      await waitForPane(/Engine restarted: pid \d+, model model-two/);
      await waitForPane((text) => !text.includes("Or type /restart here."));
      keys("hello three", "Enter");
      await waitForPane("answer from model=model-two to hello three");
      keys("/quit", "Enter");
      await waitForPane("CHAT-EXITED rc=0");
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    "quitting the setup screen (no model configured) leaves no Engine behind",
    async () => {
      const data = join(dir, "d-setup");
      await clearPane();
      shell("unset PALISADE_MODEL");
      shell(`${palisade} --data-dir ${data} --config ${join(dir, "none.yaml")} chat; echo CHAT-EXITED rc=$?`);
      const setup = await waitForPane("no model configured");
      const pid = Number(/starting the Engine… \(pid (\d+)/.exec(setup)?.[1]);
      expect(pid).toBeGreaterThan(0);
      keys("q");
      await waitForPane("CHAT-EXITED rc=0");
      expect(existsSync(`/proc/${pid}`)).toBe(false);
      expect(processesMentioning(data)).toEqual([]);
      expect(existsSync(join(data, "engine.json"))).toBe(false);
      // Not even a stale socket or token use: the log says it stopped.
      expect(readFileSync(join(data, "engine.log"), "utf8")).toMatch(/ stopped\n/);
    },
    E2E_TEST_TIMEOUT_MS,
  );
  it(
    "Ctrl+C while the Engine starts (before any screen) stops the Engine it spawned",
    async () => {
      const data = join(dir, "d-interrupt");
      await clearPane();
      shell(`${palisade} --data-dir ${data} --config ${config} chat; echo CHAT-EXITED rc=$?`);
      const starting = await waitForPane(/starting the Engine… \(pid \d+/);
      const pid = Number(/starting the Engine… \(pid (\d+)/.exec(starting)?.[1]);
      keys("C-c");
      const p = await waitForPane("CHAT-EXITED rc=130");
      expect(p).toContain(`cancelled while waiting for the Engine to start; stopped it (pid ${pid})`);
      expect(existsSync(`/proc/${pid}`)).toBe(false);
      expect(processesMentioning(data)).toEqual([]);
      expect(existsSync(join(data, "engine.json"))).toBe(false);
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
