import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { E2E_TEST_TIMEOUT_MS, Terminal, hasTmux, repoRoot } from "./tmux.js";
import type { WaitOptions } from "./tmux.js";
import { Store } from "@palisade/store";
import { messageText, startScriptedServer } from "@palisade/testing";
import type { ChatRequest, ScriptedReply, ScriptedServer } from "@palisade/testing";
import { longSession, messagesIn, overlappedRows } from "./long-session.js";

/**
 * The real `palisade chat` (compiled dist/) in a tmux pseudo-terminal against the real Engine,
 * Agent, Shield and built-in capabilities, with a scripted model server started here: the
 * transcript viewer on a stored 200-message session, a write_file diff in an approval, /save of
 * an artifact, and a sub-agent spawned without tool_groups reading a workspace file.
 * Needs `make build` and tmux.
 */
const root = repoRoot;
const main = join(root, "apps/cli/dist/main.js");

const session = `palisade-views-${process.pid}`;
const term = new Terminal(session, undefined, 300);
const tmux = (...args: string[]): string => term.tmux(...args);
const screen = (): string[] => term.screen();
const pane = (): string => term.pane();
const keys = (...k: string[]): void => term.keys(...k);
const waitFor = async (what: string, check: () => boolean): Promise<void> => void (await term.until(what, check));
const waitForPane = (text: string | RegExp, options?: WaitOptions): Promise<string> => term.waitForPane(text, options);
const waitIdle = (): Promise<void> => term.waitIdle();
const inTurn = { inTurn: true };

// ---------------------------------------------------------------- the scripted model

const NOTES_BEFORE = "# Notes\n\nold line about the plan\nkeep this line\n";
const NOTES_AFTER = "# Notes\n\nnew line about the plan\nkeep this line\nan added line\n";
const SUB_TASK = "Read README.md in the workspace and report its first line.";

const toolNames = (req: ChatRequest): string[] => (req.tools ?? []).map((t) => t.function.name);
const isSubAgent = (req: ChatRequest): boolean =>
  req.messages.some((m) => m.role === "system" && messageText(m).includes("a sub-agent working for"));

/** One tool call, loading `groups` first when the tool is not offered yet. */
function use(
  req: ChatRequest,
  tool: string,
  args: Record<string, unknown>,
  groups: string[],
  since: ChatRequest["messages"],
): ScriptedReply {
  const name = toolNames(req).find((n) => n === tool || n.endsWith(`__${tool}`));
  if (name) return { toolCalls: [{ name, arguments: args }] };
  if (!since.some((m) => m.tool_calls?.some((c) => c.function.name === "load_tools")))
    return { toolCalls: [{ name: "load_tools", arguments: { groups } }] };
  return { content: `no ${tool} tool was offered` };
}

function reply(req: ChatRequest): ScriptedReply {
  if (isSubAgent(req)) {
    const last = req.messages.at(-1);
    if (last?.role === "tool")
      return {
        content: `first line: ${(/"content":"([^"\\]*)/.exec(messageText(last))?.[1] ?? messageText(last)).slice(0, 80)} · my tools: ${toolNames(req).filter((n) => n.startsWith("files__")).length} files tools`,
      };
    return use(req, "read_file", { path: "README.md" }, ["files"], req.messages);
  }
  const lastUser = req.messages.map((m) => m.role).lastIndexOf("user");
  const text = messageText(req.messages[lastUser]);
  const since = req.messages.slice(lastUser + 1);
  const done =
    since.at(-1)?.role === "tool" && since.some((m) => m.tool_calls?.some((c) => c.function.name !== "load_tools"));
  if (/update the notes/.test(text))
    return done
      ? { content: `Updated notes.md: ${messageText(since.at(-1)).slice(0, 60)}` }
      : use(req, "write_file", { path: "notes.md", content: NOTES_AFTER }, ["files"], since);
  if (/make a pdf/.test(text))
    return done
      ? { content: "Your PDF is ready: views-report.pdf" }
      : use(
          req,
          "create_pdf",
          {
            filename: "views-report.pdf",
            title: "Views",
            sections: [{ heading: "Hello", content: "From the tmux test." }],
          },
          ["documents"],
          since,
        );
  if (/delegate/.test(text)) {
    if (done) return { content: `Sub-agent said: ${messageText(since.at(-1)).slice(0, 300)}` };
    // spawn_agent WITHOUT tool_groups: the sub-agent gets the groups loaded here (files)
    return use(req, "spawn_agent", { task: SUB_TASK, wait: true }, ["agents", "files"], since);
  }
  return { content: "ok" };
}

// ---------------------------------------------------------------- the stored long session

function storeLongSession(dataDir: string, workspace: string): void {
  mkdirSync(dataDir, { recursive: true });
  const store = Store.open(join(dataDir, "palisade.db"));
  try {
    const t0 = Date.now() - 3_600_000;
    store.createSession({
      id: "ses_long-views-0001",
      title: "Long session",
      titleSource: "user",
      createdAt: t0,
      model: "scripted-views",
      workspace,
    });
    const msgs = longSession(200);
    store.commitTurn("ses_long-views-0001", {
      messages: msgs.map((m, i) => ({ id: `msg_long_${i}`, role: m.role, content: m.content, createdAt: t0 + i })),
      toolCalls: msgs.flatMap((m, i) =>
        m.toolCalls.map((c) => ({
          ...c,
          messageId: `msg_long_${i}`,
          verdict: {
            decision: "allow" as const,
            tier: 0,
            confidence: 1,
            reason: "read-workspace",
            ruleIds: ["read-workspace"],
            evaluationUs: 5,
          },
          isError: false,
          durationMs: 3,
          createdAt: t0 + i,
          completedAt: t0 + i,
        })),
      ),
    });
  } finally {
    store.close();
  }
}

// ---------------------------------------------------------------- the tests

describe.skipIf(!hasTmux || !existsSync(main))(
  "palisade chat in tmux: transcript viewer, diffs, /save, sub-agents (real Engine, scripted model)",
  () => {
    let dir: string;
    let ws: string;
    let model: ScriptedServer;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "pal-views-"));
      ws = join(dir, "ws");
      mkdirSync(ws);
      writeFileSync(join(ws, "README.md"), "# Palisade views test\n\nA workspace file.\n");
      writeFileSync(join(ws, "notes.md"), NOTES_BEFORE);
      storeLongSession(join(dir, "data"), ws);
      model = await startScriptedServer({ fallback: reply, tokenDelayMs: 2 });
      // Writes ask (no write-workspace rule); reads and PDFs in the workspace are allowed.
      writeFileSync(
        join(dir, "policy.yaml"),
        [
          "version: 1",
          "name: views",
          "rules:",
          "  - id: read-workspace",
          "    tools: [files__read_file, files__list_directory]",
          '    paths: ["${workspace}", "${workspace}/**"]',
          "    decision: allow",
        ].join("\n"),
      );
      writeFileSync(
        join(dir, "config.yaml"),
        [
          "model:",
          `  base_url: ${model.baseURL}`,
          "  name: scripted-views",
          "shield:",
          `  policy_file: ${join(dir, "policy.yaml")}`,
          "capabilities:",
          "  - { id: http, enabled: false }",
          "  - { id: mail, enabled: false }",
          "limits:",
          "  approval_timeout_s: 300",
        ].join("\n"),
      );
      // `env -u CI`: CI=1 makes ink skip intermediate frames; a person's terminal has no CI.
      const chat = `env -u CI node ${main} --data-dir ${join(dir, "data")} --config ${join(dir, "config.yaml")} chat; echo CHAT-EXITED rc=$?; sleep 120`;
      tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "40", "-c", ws, chat);
      await waitForPane("● connected");
    }, E2E_TEST_TIMEOUT_MS);

    afterAll(async () => {
      try {
        tmux("kill-session", "-t", session);
      } catch {
        // already gone
      }
      try {
        execFileSync(process.execPath, [main, "--data-dir", join(dir, "data"), "engine", "stop"], { stdio: "ignore" });
      } catch {
        // not running
      }
      await model?.close();
      rmSync(dir, { recursive: true, force: true });
    }, E2E_TEST_TIMEOUT_MS);

    /** The rows inside the transcript frame (between its top and bottom border), if the whole frame is on screen. */
    function framed(): string[] | undefined {
      const rows = screen();
      const top = rows.findIndex((r) => r.startsWith("╭") && r.trimEnd().endsWith("╮") && r.trimEnd().length === 120);
      const bottom = rows.findIndex((r, i) => i > top && r.startsWith("╰") && r.trimEnd().length === 120);
      return top >= 0 && bottom > top ? rows.slice(top + 1, bottom) : undefined;
    }

    function frameRows(): string[] {
      const rows = framed();
      expect(rows, screen().join("\n")).toBeDefined();
      return rows ?? [];
    }

    function expectClean(): Set<number> {
      const rows = frameRows();
      expect(overlappedRows(rows)).toEqual([]);
      // every row of the frame is one row of it: a side border at both ends, nothing drawn past them
      for (const r of rows) expect(r.trimEnd(), r).toMatch(/^│.*│$/);
      expect(rows.filter((r) => r.includes("Transcript · Long session"))).toHaveLength(1);
      return messagesIn(rows);
    }

    it(
      "the transcript viewer shows a 200-message session at 40 and at 12 rows without overlapped lines, from its last to its first message",
      async () => {
        keys("/sessions", "Enter");
        await waitForPane(/Sessions \(1 of 1\)[\s\S]*Long session/);
        keys("Enter");
        await waitForPane("Transcript · Long session");
        await waitFor("the last message", () => pane().includes("m199w"));
        expect(expectClean().has(199)).toBe(true);
        // scroll through the middle a page at a time: each page is checked once it is drawn
        for (let i = 0; i < 6; i++) {
          const before = screen();
          keys("PPage");
          await term.changedFrom(before);
          expectClean();
        }
        // Home loads the older pages (50 messages each) until the first message is on screen
        await waitFor("the first message", () => {
          keys("Home");
          return screen().some((r) => r.includes("m000w0 "));
        });
        await term.settled();
        expect(expectClean().has(0)).toBe(true);
        keys("End");
        await waitFor("the last message again", () => messagesIn(framed() ?? []).has(199));
        await term.settled();
        expectClean();
        // a small terminal: 12 rows
        tmux("resize-window", "-t", session, "-x", "120", "-y", "12");
        await waitFor("the viewer at 12 rows", () => screen().length <= 12 && (framed()?.length ?? 99) <= 9);
        await term.settled();
        expectClean();
        // Up and PPage move the view; Home may already be at the top of what is loaded, so its
        // frame is checked once the screen stopped changing.
        for (const k of ["Up", "Up", "PPage"]) {
          const before = screen();
          keys(k);
          await term.changedFrom(before);
          expectClean();
        }
        for (let i = 0; i < 5; i++) {
          keys("Home");
          await term.settled();
          expectClean();
        }
        await waitFor("the first message at 12 rows", () => {
          if (!messagesIn(framed() ?? []).has(0)) keys("Home");
          return messagesIn(framed() ?? []).has(0);
        });
        tmux("resize-window", "-t", session, "-x", "120", "-y", "40");
        await waitFor("40 rows again", () => (framed()?.length ?? 0) > 30);
        keys("Escape");
        await waitForPane(/Sessions \(1 of 1\)/);
        keys("Escape");
        await waitFor("the chat", () => !screen().some((r) => r.includes("Sessions (")));
      },
      E2E_TEST_TIMEOUT_MS,
    );

    it(
      "a write_file over an existing file shows its diff and what `a` covers in the approval",
      async () => {
        keys("update the notes", "Enter");
        const p = await waitForPane("Approval needed", inTurn);
        expect(p).toContain("--- a/notes.md");
        expect(p).toContain("+++ b/notes.md");
        expect(p).toContain("-old line about the plan");
        expect(p).toContain("+new line about the plan");
        expect(p).toContain("+an added line");
        expect(p).toContain("a allow for the rest of this session: files__write_file: paths under ./");
        expect(p).not.toContain('"content"');
        keys("y");
        await waitForPane("Updated notes.md", inTurn);
        await waitIdle();
        expect(readFileSync(join(ws, "notes.md"), "utf8")).toBe(NOTES_AFTER);
      },
      E2E_TEST_TIMEOUT_MS,
    );

    it(
      "/save saves the PDF a tool made in this session",
      async () => {
        keys("make a pdf", "Enter");
        await waitForPane("Your PDF is ready", inTurn);
        await waitIdle();
        keys("/save", "Enter");
        const p = await waitForPane(/saved \S*views-report\.pdf/);
        const file = /saved (\S*views-report\.pdf)/.exec(p)?.[1] ?? "";
        expect(file).toBe(join(ws, "views-report.pdf"));
        expect(readFileSync(file).subarray(0, 5).toString()).toBe("%PDF-");
      },
      E2E_TEST_TIMEOUT_MS,
    );

    it(
      "a sub-agent spawned without tool_groups gets the files tools and reads a workspace file",
      async () => {
        keys("delegate reading the readme", "Enter");
        // the sub-agent reports README.md's first line and how many files tools it was given
        await waitForPane(
          /Sub-agent said: [\s\S]*first line: # Palisade views test · my tools: [1-9]\d* files\s+tools/,
          inTurn,
        );
        await waitIdle();
        expect(pane()).toMatch(/spawn_agent .*done/);
        expect(screen().join("\n")).toMatch(/◇ \S+ completed · \d+ llm · 1 tools/);
        // its own transcript (/agents, Enter) has the read_file call, run for it by the Engine
        keys("/agents", "Enter");
        await waitForPane(/Sub-agents \(1\)/);
        keys("Enter");
        await waitForPane(/files__read_file \[\S+\] +path=README\.md/);
        keys("Escape");
        await waitFor("the chat", () => !screen().some((r) => r.includes("Sub-agents (")));
        // the spawn_agent call the model made had no tool_groups
        const spawn = model
          .chatRequests()
          .flatMap((r) => r.messages)
          .flatMap((m) => m.tool_calls ?? [])
          .find((c) => c.function.name === "spawn_agent");
        expect(JSON.parse(spawn?.function.arguments ?? "{}")).toEqual({ task: SUB_TASK, wait: true });
      },
      E2E_TEST_TIMEOUT_MS,
    );

    it(
      "an @file mention attaches the workspace file to the message the model gets",
      async () => {
        keys("what does @README.md say", "Enter");
        await waitForPane(/attached @README\.md \(\d+ B\)/, inTurn);
        await waitIdle();
        const asked = model
          .chatRequests()
          .flatMap((r) => r.messages)
          .filter((m) => m.role === "user")
          .map((m) => messageText(m));
        expect(
          asked.some(
            (t) =>
              t.startsWith("what does @README.md say") &&
              t.includes('<file path="README.md">\n# Palisade views test\n'),
          ),
        ).toBe(true);
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
