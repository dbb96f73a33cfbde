import { execFileSync, spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { E2E_TEST_TIMEOUT_MS, Terminal, hasTmux, repoRoot } from "./tmux.js";
import type { WaitOptions } from "./tmux.js";

/**
 * The real `palisade chat` (compiled dist/) in a tmux pseudo-terminal, driven with send-keys
 * and read with capture-pane. By default against the real Engine, Agent, Shield and built-in
 * capabilities with the scripted demo model (`palisade chat --demo`); with
 * PALISADE_E2E_ENGINE=fake against the fake ClientService process (faster, for UI work).
 * Needs `make build` and tmux.
 */
const here = dirname(fileURLToPath(import.meta.url));
const root = repoRoot;
const main = join(root, "apps/cli/dist/main.js");
const real = process.env.PALISADE_E2E_ENGINE !== "fake";

const session = `palisade-e2e-${process.pid}`;
const term = new Terminal(session, undefined, 200);
const tmux = (...args: string[]): string => term.tmux(...args);
const pane = (): string => term.pane();
const keys = (...k: string[]): void => term.keys(...k);
const waitForPane = (text: string | RegExp, options?: WaitOptions): Promise<string> => term.waitForPane(text, options);
const waitIdle = (): Promise<void> => term.waitIdle();
const inTurn = { inTurn: true };

describe.skipIf(!hasTmux || !existsSync(main))(
  `palisade chat in tmux (${real ? "real Engine, --demo" : "fake ClientService"})`,
  () => {
    let dir: string;
    let fake: ChildProcess | undefined;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "pal-e2e-"));
      const ws = join(dir, "ws");
      execFileSync("mkdir", ["-p", ws]);
      copyFileSync(join(root, "README.md"), join(ws, "README.md"));
      if (!real) {
        fake = spawn(process.execPath, ["--import", "tsx", join(here, "fake/fake-engine-main.ts"), dir], {
          stdio: "ignore",
          cwd: root,
        });
        while (!existsSync(join(dir, "engine.json"))) await new Promise((r) => setTimeout(r, 100));
      }
      // `env -u CI`: CI=1 (set by .ci/run) makes ink skip intermediate frames; a person's terminal has no CI.
      const chat = `env -u CI node ${main} --data-dir ${dir} --config ${join(dir, "none.yaml")} chat${real ? " --demo" : ""}; echo CHAT-EXITED rc=$?; sleep 120`;
      tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "40", "-c", ws, chat);
      await waitForPane("● connected");
    }, E2E_TEST_TIMEOUT_MS);

    afterAll(() => {
      try {
        tmux("kill-session", "-t", session);
      } catch {
        // already gone
      }
      fake?.kill();
      if (real) {
        try {
          execFileSync(process.execPath, [main, "--data-dir", join(dir, "demo"), "engine", "stop"], {
            stdio: "ignore",
          });
        } catch {
          // not running
        }
      }
      rmSync(dir, { recursive: true, force: true });
    }, E2E_TEST_TIMEOUT_MS);

    it(
      "a streamed answer appears",
      async () => {
        keys("hello", "Enter");
        await waitForPane(real ? "Palisade offline demo" : "What I found", inTurn);
        await waitIdle();
        expect(pane()).toMatch(/[1-9][\d.k]* in · [1-9][\d.k]* out/);
      },
      E2E_TEST_TIMEOUT_MS,
    );

    it(
      "an approval is granted with y and the result card shows",
      async () => {
        keys(real ? "run a command" : "please approve rm", "Enter");
        await waitForPane("Approval needed", inTurn);
        keys("y");
        const p = await waitForPane(real ? /shell__execute_command.*done/ : "exit 0 · removed 2 files", inTurn);
        expect(p).toContain("approval: allowed once");
        await waitIdle();
      },
      E2E_TEST_TIMEOUT_MS,
    );

    it(
      "/sessions lists the conversation and r resumes it",
      async () => {
        keys("/sessions", "Enter");
        // The frame appears while the list is still loading ("Sessions (0 of 0) … loading…"): wait
        // for the loaded list itself, not the first frame.
        const list = await waitForPane(
          real ? /Sessions \([1-9]\d* of \d+\)[\s\S]*msgs/ : /Sessions \(\d+ of \d+\)[\s\S]*Trip to Lisbon/,
        );
        expect(list).toMatch(real ? /msgs/ : /Trip to Lisbon/);
        if (!real) {
          keys("Lisbon");
          await waitForPane(/search “Lisbon” · \d+ hits[\s\S]*Trip to Lisbon/);
        }
        keys("Enter");
        await waitForPane(real ? "Transcript ·" : "Transcript · Trip to Lisbon");
        keys("r");
        await waitForPane("resumed");
        await waitIdle();
      },
      E2E_TEST_TIMEOUT_MS,
    );

    it(
      "Esc cancels a slow turn",
      async () => {
        keys(real ? "tell me a long story" : "be slow", "Enter");
        await waitForPane(real ? "Chapter 1." : "word2", inTurn);
        keys("Escape");
        await waitForPane(/turn cancelled|cancelled/);
        await waitIdle();
      },
      E2E_TEST_TIMEOUT_MS,
    );

    // The demo model streams `reasoning_content` deltas; the Engine relays them live as THOUGHT.
    it.skipIf(!real)(
      "a streamed thought from a reasoning delta shows before the answer",
      async () => {
        keys("think it over", "Enter");
        const p = await waitForPane(/✻ The user wants to see me think\.[\s\S]*Done thinking/, inTurn);
        expect(p.indexOf("✻ The user wants")).toBeLessThan(p.indexOf("Done thinking"));
        await waitIdle();
      },
      E2E_TEST_TIMEOUT_MS,
    );

    // The demo's sub-agent scenario needs the real Engine (it spawns a sub-agent process).
    it.skipIf(!real)(
      "a sub-agent runs live in the strip and its result comes back",
      async () => {
        keys("use a sub-agent", "Enter");
        const live = await waitForPane(/◆ \S+ running · \d+ llm[\s\S]*\/agents for their transcripts/, inTurn);
        // The call that started it is on screen with it, still running.
        expect(live).toMatch(/spawn_agent .*running/);
        const p = await waitForPane(/The sub-agent \(\S+\) reported:\s*│ README\.md starts with: # Palisade/, inTurn);
        expect(p).toMatch(/spawn_agent .*done/);
        await waitIdle();
      },
      E2E_TEST_TIMEOUT_MS,
    );

    // The PDF comes from the real documents capability; /save downloads it through the Engine.
    it.skipIf(!real)(
      "a PDF the demo announces is saved with /save",
      async () => {
        keys("make a pdf", "Enter");
        await waitForPane("Your PDF is ready", inTurn);
        await waitIdle();
        keys("/save", "Enter");
        const p = await waitForPane(/saved \S*demo-report\.pdf/);
        const file = /saved (\S*demo-report\.pdf)/.exec(p)?.[1] ?? "";
        expect(file.startsWith(join(dir, "ws"))).toBe(true);
        expect(readFileSync(file).subarray(0, 5).toString()).toBe("%PDF-");
      },
      E2E_TEST_TIMEOUT_MS,
    );

    // 1.5 MB through the terminal (tmux pastes it as the user's terminal would, in chunks).
    it(
      "a 1.5 MB paste shows as a placeholder; the Engine's limit refuses it with what to do; the chat goes on",
      async () => {
        const file = join(dir, "paste.txt");
        writeFileSync(
          file,
          Array.from(
            { length: 20_000 },
            (_, i) => `line ${String(i).padStart(5, "0")} of the pasted log: ${"x".repeat(48)}`,
          ).join("\n"),
        );
        tmux("load-buffer", "-b", "big", file);
        tmux("paste-buffer", "-d", "-b", "big", "-t", session);
        await waitForPane("[pasted text #1: 20,000 lines, 1.5 MB]");
        keys("Enter");
        const p = await waitForPane(
          /not sent: this message is 1\.5 MB, over the Engine's limit of 1\.0 MB per message/,
        );
        expect(p.replace(/\s+/g, " ")).toContain(
          "Save the text as a file in the workspace and ask about that file instead",
        );
        // The text is back in the input box (inside its border); Ctrl+U clears it and the next message is answered.
        const inBox = (): boolean =>
          term.screen().some((r) => r.startsWith("│ › [pasted text #1: 20,000 lines, 1.5 MB]"));
        await term.until("the paste back in the input box", inBox);
        keys("C-u");
        await term.until("the input box emptied", () => !inBox());
        keys("hello again", "Enter");
        await waitForPane(/hello again[\s\S]*Palisade offline demo/, inTurn);
        await waitIdle();
      },
      E2E_TEST_TIMEOUT_MS,
    );

    it(
      "/quit leaves the chat",
      async () => {
        keys("/quit", "Enter");
        await waitForPane("CHAT-EXITED rc=0");
      },
      E2E_TEST_TIMEOUT_MS,
    );
  },
);
