import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { render } from "ink-testing-library";
import { Markdown } from "../src/tui/markdown/Markdown.js";
import { ToolCard } from "../src/tui/components/ToolCard.js";
import { ApprovalDialog } from "../src/tui/components/ApprovalDialog.js";
import { InputBox } from "../src/tui/components/InputBox.js";
import { StatusLine } from "../src/tui/components/StatusLine.js";
import { Banner } from "../src/tui/components/Banner.js";
import { NoModelScreen } from "../src/tui/components/NoModelScreen.js";
import { SessionsBrowser } from "../src/tui/overlays/SessionsBrowser.js";
import { TranscriptView } from "../src/tui/overlays/TranscriptView.js";
import { layoutFor } from "../src/tui/overlays/transcript-layout.js";
import { SearchResults } from "../src/tui/overlays/SearchResults.js";
import {
  AgentsPanel,
  HelpPanel,
  Inspector,
  StatusPanel,
  SubAgentStrip,
  ToolsPanel,
} from "../src/tui/overlays/InfoPanels.js";
import { emptyEditor } from "../src/tui/state/editor.js";
import type { ChatState, ToolCardEntry } from "../src/tui/state/types.js";
import { fresh, T0 } from "./state.js";
import { parseConfig } from "@palisade/config";

const card = (over: Partial<ToolCardEntry> = {}): ToolCardEntry => ({
  kind: "tool",
  id: "t1",
  callId: "c1",
  toolName: "files__read_file",
  argumentsJson: JSON.stringify({ path: "docs/README.md", max_lines: 200 }),
  phase: "done",
  progress: "",
  artifacts: [],
  ...over,
});

const frame = (el: React.ReactElement): string => {
  const r = render(el);
  const out = r.lastFrame() ?? "";
  r.unmount();
  return out;
};

describe("Markdown", () => {
  it("renders headings, emphasis, lists, links and inline code without the markup", () => {
    const out = frame(
      <Markdown
        text={
          "# Plan\n\nThis is **bold** and *soft* with `code`.\n\n- one\n- two\n\n1. first\n2. second\n\nSee [the docs](https://example.com)."
        }
      />,
    );
    expect(out).toContain("Plan");
    expect(out).not.toContain("# Plan");
    expect(out).toContain("This is bold and soft with code.");
    expect(out).toContain("• one");
    expect(out).toContain("2. second");
    expect(out).toContain("the docs (https://example.com)");
  });

  it("renders fenced code in a box with its language, text intact", () => {
    const out = frame(<Markdown text={"```ts\nconst answer: number = 42;\n```"} />);
    expect(out).toContain("ts");
    expect(out).toContain("const answer: number = 42;");
    expect(out).toContain("╭");
    expect(out).not.toContain("```");
  });

  it("renders a fenced block in no language it can detect as plain text", () => {
    const out = frame(<Markdown text={"```\nm001w50 m001w51\nm001w52\n```"} />);
    expect(out).toContain("m001w50 m001w51");
    expect(out).toContain("m001w52");
  });

  it("renders tables as aligned columns", () => {
    const out = frame(<Markdown text={"| tool | calls |\n|---|---|\n| read | 3 |\n| shell | 12 |"} />);
    expect(out).toMatch(/tool\s+│ calls/);
    expect(out).toMatch(/shell │ 12/);
  });

  it("renders an unfinished fence while streaming", () => {
    const out = frame(<Markdown text={"Here:\n\n```py\nprint('hi')"} />);
    expect(out).toContain("print('hi')");
  });
});

describe("ToolCard", () => {
  it.each([
    ["proposed", "checking"],
    ["awaiting-approval", "waiting for your approval"],
    ["running", "running"],
    ["done", "done"],
    ["failed", "failed"],
    ["blocked", "blocked by the Shield"],
    ["denied", "denied"],
    ["otr-blocked", "not allowed off the record"],
    ["cancelled", "cancelled"],
  ] as const)("%s says %s", (phase, label) => {
    const out = frame(<ToolCard card={card({ phase })} width={100} />);
    expect(out).toContain("files__read_file");
    expect(out).toContain("path=docs/README.md");
    expect(out).toContain(label);
  });

  it("the header is one line with a space after the icon, however long the arguments", () => {
    const waiting = card({
      toolName: "spawn_agent",
      phase: "awaiting-approval",
      argumentsJson: JSON.stringify({
        name: "researcher",
        task: "find the docs about the sandbox and read all of them",
      }),
    });
    for (const width of [100, 60, 40]) {
      const lines = frame(<ToolCard card={waiting} width={width} />).split("\n");
      expect(lines, `width ${width}`).toHaveLength(3);
      expect(lines[1], `width ${width}`).toContain("? spawn_agent ");
      expect(lines[1], `width ${width}`).toMatch(/waiting for your/);
    }
    expect(frame(<ToolCard card={waiting} width={100} />)).toContain("waiting for your approval");
    expect(frame(<ToolCard card={waiting} width={100} />)).toContain('name=researcher task="find the docs');
  });

  it("shows the verdict, approval, result, duration and artifacts", () => {
    const out = frame(
      <ToolCard
        card={card({
          verdict: { decision: "escalate", tier: 1, reason: "writes need a human", confidence: 0.8, ruleIds: [] },
          approval: { choice: "allow_session", by: "user" },
          resultSummary: "wrote 3 pages",
          durationMs: 1530,
          artifacts: [{ id: "a", filename: "report.pdf", mimeType: "application/pdf", sizeBytes: 2048 }],
        })}
        width={100}
      />,
    );
    expect(out).toContain("shield ESCALATE · tier 1 · writes need a human");
    expect(out).toContain("approval: allowed for this session");
    expect(out).toContain("→ wrote 3 pages");
    expect(out).toContain("1.5 s");
    expect(out).toContain("artifacts: report.pdf (2.0 kB)");
  });

  it("shows a file write's diff, a few lines and a count; expanded, all of it", () => {
    const preview = ["new file a.txt (12 lines)", ...Array.from({ length: 12 }, (_, i) => `+row ${i}`)].join("\n");
    const out = frame(<ToolCard card={card({ toolName: "files__write_file", preview })} width={100} />);
    expect(out).toContain("new file a.txt (12 lines)");
    expect(out).toContain("+row 6");
    expect(out).not.toContain("+row 7");
    expect(out).toContain("… 5 more lines");
    const all = frame(<ToolCard card={card({ toolName: "files__write_file", preview })} width={100} expanded />);
    expect(all).toContain("+row 11");
    expect(all).not.toContain("more lines");
  });

  it("shows the error of a failed call", () => {
    expect(frame(<ToolCard card={card({ phase: "failed", error: "ENOENT: no such file" })} width={100} />)).toContain(
      "error: ENOENT: no such file",
    );
  });

  it("shows the last progress lines while running", () => {
    const out = frame(<ToolCard card={card({ phase: "running", progress: "a\nb\nc\nd\n" })} width={100} />);
    expect(out).toContain("│ d");
    expect(out).not.toContain("│ a");
  });

  it("expanded, shows the full arguments and result", () => {
    const out = frame(<ToolCard card={card({ resultSummary: '{"lines":200}' })} width={100} expanded />);
    expect(out).toContain('"max_lines": 200');
    expect(out).toContain('"lines": 200');
  });
});

describe("ApprovalDialog", () => {
  const approval = {
    approvalId: "ap1",
    sessionId: "s",
    callId: "c1",
    toolName: "shell__exec",
    argumentsJson: JSON.stringify({ command: "rm -r build" }),
    reason: "deleting files needs your approval",
    tier: 1,
    ruleIds: ["destructive.rm"],
    deadlineMs: T0 + 42_000,
    grantScope: "shell__exec: commands rm; paths under build/",
    preview: "",
  };

  it("shows what will run, why, the countdown, the keys and the queue", () => {
    const out = frame(<ApprovalDialog approval={approval} queued={2} now={T0} width={100} />);
    expect(out).toContain("Approval needed");
    expect(out).toContain("shell__exec");
    expect(out).toContain('"command": "rm -r build"');
    expect(out).toContain("deleting files needs your approval");
    expect(out).toContain("destructive.rm");
    expect(out).toContain("denied automatically in 42s");
    expect(out).toContain("y allow once · n deny · r deny with a reason");
    expect(out).toContain("2 more waiting");
    // what `a` covers comes from the Engine's Shield, word for word
    expect(out).toContain("a allow for the rest of this session: shell__exec: commands rm; paths under build/");
  });

  it("a file write shows its diff (colored, cut with a count) instead of the whole new content", () => {
    const diff = [
      "--- a/notes.md",
      "+++ b/notes.md",
      "@@ -1,3 +1,30 @@",
      " keep",
      "-old line",
      ...Array.from({ length: 30 }, (_, i) => `+new line ${i}`),
    ].join("\n");
    const write = {
      ...approval,
      toolName: "files__write_file",
      argumentsJson: JSON.stringify({ path: "notes.md", content: "keep\nnew line 0\n…" }),
      preview: diff,
      grantScope: "files__write_file: paths under ./",
    };
    const out = frame(<ApprovalDialog approval={write} queued={0} now={T0} width={100} />);
    expect(out).toContain("path=notes.md");
    expect(out).not.toContain('"content"');
    expect(out).toMatch(
      /--- a\/notes\.md[\s\S]*\+\+\+ b\/notes\.md[\s\S]*@@ -1,3 \+1,30 @@[\s\S]* keep[\s\S]*-old line[\s\S]*\+new line 0/,
    );
    expect(out).toContain("+new line 10");
    expect(out).not.toContain("+new line 11");
    expect(out).toContain("… 19 more lines");
    expect(out).toContain("a allow for the rest of this session: files__write_file: paths under ./");
  });

  it("while a deny reason is typed, shows it and the keys", () => {
    const out = frame(<ApprovalDialog approval={approval} denyReason="not on main" queued={0} now={T0} width={100} />);
    expect(out).toContain("why deny? not on main");
    expect(out).toContain("Enter deny (the model is told why) · Esc back");
  });

  it("counts down", () => {
    expect(frame(<ApprovalDialog approval={approval} queued={0} now={T0 + 40_500} width={100} />)).toContain("in 2s");
  });
});

describe("InputBox", () => {
  it("shows a placeholder when empty", () => {
    expect(frame(<InputBox editor={emptyEditor()} active width={100} />)).toContain("/help for commands");
  });

  it("shows every line of a multi-line draft", () => {
    const out = frame(<InputBox editor={{ ...emptyEditor(), text: "first\nsecond", cursor: 3 }} active width={100} />);
    expect(out).toContain("› first");
    expect(out).toContain("  second");
  });

  it("lists completion candidates with their help", () => {
    const out = frame(
      <InputBox
        editor={{ ...emptyEditor(), text: "/se", cursor: 3, completions: ["sessions", "search"] }}
        active
        width={100}
      />,
    );
    expect(out).toContain("/sessions");
    expect(out).toContain("/search <query>");
  });
});

describe("StatusLine", () => {
  it("shows model, title, OTR badge, tokens and connection", () => {
    const out = frame(
      <StatusLine
        state={fresh({
          model: "gpt-4o-mini",
          sessionTitle: "Tax plans",
          otr: true,
          tokens: { input: 12_300, output: 456 },
        })}
      />,
    );
    expect(out).toContain("gpt-4o-mini");
    expect(out).toContain("Tax plans");
    expect(out).toContain("OTR");
    expect(out).toContain("12.3k in · 456 out");
    expect(out).toContain("● connected");
  });

  it.each([
    ["reconnecting", "reconnecting"],
    ["offline", "offline"],
  ] as const)("shows %s", (connection, text) => {
    expect(frame(<StatusLine state={fresh({ connection })} />)).toContain(text);
  });

  it("shows a running turn with its elapsed time and the demo badge", () => {
    const out = frame(
      <StatusLine
        state={fresh({
          demo: true,
          now: T0 + 3200,
          turn: { messageId: "m", clientMessageId: "c", startedAt: T0, cancelling: false, sawText: false },
        })}
      />,
    );
    expect(out).toContain("working 3s · Esc cancels");
    expect(out).toContain("DEMO · scripted model");
  });
});

describe("Banner", () => {
  it("is one line even for a multi-line message", () => {
    const out = frame(
      <Banner banner={{ level: "error", text: "the Engine is not reachable\n    at Object.<anonymous>" }} width={80} />,
    );
    expect(out).toContain("✗ the Engine is not reachable");
    expect(out).not.toContain("at Object");
  });
});

describe("NoModelScreen", () => {
  it("explains OpenAI, Ollama, OpenAI-compatible servers and the config file, and offers the demo", () => {
    const out = frame(<NoModelScreen configFile="/home/u/.config/palisade/config.yaml" demoAvailable />);
    for (const s of [
      "OPENAI_API_KEY",
      "OPENAI_BASE_URL",
      "PALISADE_MODEL",
      "Ollama",
      "http://localhost:11434/v1",
      "vLLM",
      "/home/u/.config/palisade/config.yaml",
      "base_url:",
      "palisade chat --demo",
      "d start the offline demo",
    ]) {
      expect(out).toContain(s);
    }
  });

  it("shows a config snippet that, copied as printed, is a valid config naming the model", () => {
    const out = frame(<NoModelScreen configFile="/c.yaml" demoAvailable />);
    const lines = out.split("\n");
    const start = lines.findIndex((l) => l.trim() === "model:");
    const snippet = lines.slice(start, start + 4).join("\n");
    const config = parseConfig(snippet, { file: "/c.yaml" });
    expect(config.model.name).toBe("gpt-4o-mini");
    expect(config.model.baseUrl).toBe("https://api.openai.com/v1");
  });

  it("gives the same Ollama steps as README.md: pull the model, the /v1 base URL, that model's name, no key", () => {
    const out = frame(<NoModelScreen configFile="/c.yaml" demoAvailable />);
    const readme = readFileSync(join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "README.md"), "utf8");
    const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf("## Configure a model")))?.[1] ?? "";
    const ollama = block
      .slice(block.indexOf("ollama pull"))
      .split("\n")
      .map((l) => l.replace(/#.*$/, "").trim())
      .filter(Boolean);
    expect(ollama).toEqual([
      "ollama pull llama3.1",
      "export OPENAI_BASE_URL=http://localhost:11434/v1",
      "export PALISADE_MODEL=llama3.1",
    ]);
    const screen = out.slice(out.indexOf("Ollama"), out.indexOf("Any OpenAI-compatible"));
    for (const step of ollama) expect(screen).toContain(step);
    expect(screen).toContain("no key needed");
    expect(screen).not.toContain("OPENAI_API_KEY");
  });
});

describe("overlays", () => {
  const sessions = [
    { id: "aaaa1111", title: "Tax plans", messageCount: 12, updatedAtUnixMs: BigInt(T0 - 120_000) },
    { id: "bbbb2222", title: "Trip to Lisbon", messageCount: 4, updatedAtUnixMs: BigInt(T0 - 3 * 86_400_000) },
  ] as never[];

  it("sessions browser lists title, last activity, message count and id", () => {
    const out = frame(
      <SessionsBrowser
        o={{
          kind: "sessions",
          filter: "",
          items: sessions,
          total: 30,
          hits: [],
          hitTotal: 0,
          selected: 1,
          loading: false,
        }}
        now={T0}
        width={100}
        height={20}
      />,
    );
    expect(out).toContain("Sessions (2 of 30)");
    expect(out).toMatch(/Tax plans\s+2 min ago\s+12 msgs\s+aaaa1111/);
    expect(out).toMatch(/› Trip to Lisbon\s+3 d ago/);
    expect(out).toContain("28 more");
  });

  it("sessions browser says when a search finds nothing", () => {
    const out = frame(
      <SessionsBrowser
        o={{
          kind: "sessions",
          filter: "zzz",
          items: sessions,
          total: 2,
          hits: [],
          hitTotal: 0,
          selected: 0,
          loading: false,
        }}
        now={T0}
        width={100}
        height={20}
      />,
    );
    expect(out).toContain("search: zzz");
    expect(out).toContain("nothing found for “zzz”");
    expect(out).not.toContain("Tax plans");
  });

  it("sessions browser shows search hits under their session, the selected one marked", () => {
    const hit = (sessionId: string, title: string, messageId: string, snippet: string) =>
      ({
        sessionId,
        sessionTitle: title,
        messageId,
        callId: "",
        role: "user",
        snippet,
        rank: 1,
        createdAtUnixMs: BigInt(T0 - 120_000),
        seq: 1n,
      }) as never;
    const hits = [
      hit("aaaa1111", "Tax plans", "m1", "the [tax] rate"),
      hit("aaaa1111", "Tax plans", "m2", "a [tax] form"),
      hit("bbbb2222", "Trip to Lisbon", "m3", "airport [tax]"),
    ];
    const out = frame(
      <SessionsBrowser
        o={{ kind: "sessions", filter: "tax", items: [], total: 0, hits, hitTotal: 3, selected: 1, loading: false }}
        now={T0}
        width={100}
        height={30}
      />,
    );
    expect(out).toContain("search “tax” · 3 hits");
    expect(out.match(/Tax plans {2}aaaa1111/g)).toHaveLength(1);
    expect(out).toMatch(
      /Tax plans {2}aaaa1111[\s\S]*the tax rate[\s\S]*› {3}user · 2 min ago[\s\S]*a tax form[\s\S]*Trip to Lisbon {2}bbbb2222[\s\S]*airport tax/,
    );
  });

  it("transcript renders messages and tool calls like the live chat", () => {
    const messages = [
      { id: "m1", role: "user", content: "read the readme", toolCalls: [] },
      {
        id: "m2",
        role: "assistant",
        content: "It has **3** sections.",
        toolCalls: [
          {
            callId: "c1",
            toolName: "files__read_file",
            argumentsJson: '{"path":"README.md"}',
            verdict: { decision: 1, tier: 0, reason: "reads allowed", confidence: 1, ruleIds: [] },
            approval: "",
            result: "40 lines",
            isError: false,
            durationMs: 5n,
            artifacts: [],
          },
        ],
      },
    ] as never[];
    const out = frame(
      <TranscriptView
        o={{
          kind: "transcript",
          sessionId: "s1",
          session: { title: "Readme" } as never,
          messages,
          nextCursor: "x",
          top: 0,
          offset: 0,
          loading: false,
          layout: layoutFor(messages, undefined, 100, 30),
        }}
        columns={100}
        rows={30}
      />,
    );
    expect(out).toContain("Transcript · Readme");
    expect(out).toContain("› read the readme");
    expect(out).toContain("files__read_file");
    expect(out).toContain("shield ALLOW · tier 0 · reads allowed");
    expect(out).toContain("It has 3 sections.");
    expect(out).toContain("↑ older messages");
    expect(out).toContain("r resume");
  });

  it("search results highlight the matched words", () => {
    const hits = [
      {
        sessionId: "s1",
        sessionTitle: "Taxes",
        messageId: "m1",
        callId: "",
        role: "user",
        snippet: "what is the [VAT] rate",
        rank: 1,
        createdAtUnixMs: BigInt(T0),
        seq: 1n,
      },
    ] as never[];
    const out = frame(
      <SearchResults
        o={{ kind: "search", query: "vat", hits, total: 1, selected: 0, loading: false }}
        now={T0}
        width={100}
        height={20}
      />,
    );
    expect(out).toContain("Search “vat” · 1 hit");
    expect(out).not.toContain("1 hits");
    expect(out).toContain("what is the VAT rate");
    expect(out).toContain("Taxes · user");
  });

  it("a tool-call hit names its tool", () => {
    const hits = [
      {
        sessionId: "s1",
        sessionTitle: "Taxes",
        messageId: "m1",
        callId: "call_7",
        toolName: "files__read_file",
        role: "tool",
        snippet: "[VAT] table",
        rank: 1,
        createdAtUnixMs: BigInt(T0),
        seq: 1n,
      },
    ] as never[];
    const out = frame(
      <SearchResults
        o={{ kind: "search", query: "vat", hits, total: 1, selected: 0, loading: false }}
        now={T0}
        width={100}
        height={20}
      />,
    );
    expect(out).toContain("Taxes · tool call files__read_file");
  });

  it("help lists every slash command and the keys", () => {
    const out = frame(<HelpPanel width={100} />);
    for (const c of [
      "/new",
      "/otr",
      "/sessions",
      "/resume <id-prefix>",
      "/model",
      "/status",
      "/tools",
      "/export [md|json] [file]",
      "/delete",
      "/clear",
      "/quit",
      "/search <query>",
      "/agents",
      "Ctrl+C",
      "Esc",
    ]) {
      expect(out).toContain(c);
    }
  });

  it("status shows the Engine, Shield and capability health", () => {
    const status = {
      version: "0.1.0",
      uptimeMs: 65_000n,
      dataDir: "/d",
      modelConfigured: true,
      model: "gpt-test",
      baseUrl: "http://x/v1",
      agentConnected: true,
      agentId: "agent-1",
      agentRestarts: 0,
      shieldState: "ready",
      policyName: "default",
      activeSessions: 1,
      totalSessions: 9,
      actionsToday: 4,
      runningSubAgents: 0,
      capabilities: [
        {
          id: "files",
          state: "ready",
          message: "",
          launch: "command",
          toolCount: 5,
          process: "started",
          pid: 4242,
          restarts: 1,
          instances: [{ workspace: "/other", state: "stopped", process: "stopped", pid: 0, message: "" }],
        },
        {
          id: "mail",
          state: "failed",
          message: "SMTP_PASSWORD missing",
          launch: "command",
          toolCount: 0,
          process: "stopped",
          pid: 0,
          restarts: 3,
          instances: [],
        },
      ],
    } as never;
    const out = frame(<StatusPanel o={{ kind: "status", selected: 0, loading: false, status }} width={100} />);
    expect(out).toContain("up 1m 5s");
    expect(out).toContain("gpt-test · http://x/v1");
    expect(out).toContain("policy default");
    expect(out).toMatch(/files\s+ready\s+5 tools/);
    expect(out).toContain("SMTP_PASSWORD missing");
    expect(out).toContain("process: started (pid 4242) · 1 restart");
    expect(out).toContain("for workspace /other: stopped (starts on its next call)");
    expect(out).toContain("process: stopped (starts on its next call) · 3 restarts");
  });

  it("tools list shows the active policy's decision, the rules that change it for some calls, and the description", () => {
    const tools = [
      {
        def: { name: "files__read_file", description: "Read a text file" },
        capabilityId: "files",
        policy: "allow",
        policyRules: [],
      },
      {
        def: { name: "files__write_file", description: "Write a file" },
        capabilityId: "files",
        policy: "ask",
        policyRules: [
          {
            ruleId: "write-workspace",
            decision: "allow",
            description: "Creating and editing files inside the workspace.",
          },
        ],
      },
      {
        def: { name: "shell__exec", description: "Run a command" },
        capabilityId: "shell",
        policy: "ask",
        policyRules: [],
      },
    ] as never[];
    const out = frame(<ToolsPanel o={{ kind: "tools", selected: 1, loading: false, tools }} width={120} height={20} />);
    expect(out).toMatch(/allow\s+files__read_file\s+Read a text file/);
    expect(out).toMatch(/ask\s+files__write_file\s+\(allow by write-workspace\)\s+Write a file/);
    expect(out).toMatch(/ask\s+shell__exec/);
    expect(out).toContain("files__write_file: ask unless a rule of the active policy matches the call:");
    expect(out).toMatch(/allow\s+write-workspace: Creating and editing files inside the workspace\./);
  });

  it("agents panel lists sub-agents and shows the selected one's transcript", () => {
    const state = fresh({
      subAgents: [
        {
          name: "ada",
          task: "summarize logs",
          state: "completed",
          llmCalls: 3,
          toolCalls: 2,
          elapsedMs: 2500,
          resultExcerpt: "3 errors",
          error: "",
          entries: [
            {
              kind: "assistant",
              id: "x",
              text: "Reading the logs",
              streaming: false,
              continuation: false,
              subAgent: "ada",
            },
          ],
        },
      ],
    });
    const out = frame(
      <AgentsPanel
        state={state}
        o={{ kind: "agents", selected: 0, loading: false, expanded: true }}
        width={100}
        height={30}
      />,
    );
    expect(out).toMatch(/completed\s+ada\s+3 llm · 2 tools · 2.5 s/);
    expect(out).toContain("Reading the logs");
    expect(out).toContain("result: 3 errors");
  });

  it("the sub-agent strip shows running agents live", () => {
    const state = fresh({
      subAgents: [
        {
          name: "bob",
          task: "scan the repo",
          state: "running",
          llmCalls: 1,
          toolCalls: 0,
          elapsedMs: 800,
          resultExcerpt: "",
          error: "",
          entries: [],
        },
      ],
    });
    const out = frame(<SubAgentStrip state={state} />);
    expect(out).toContain("◆ bob running · 1 llm · 0 tools · 800 ms · scan the repo");
  });

  it("the sub-agent strip's time runs on while the agent runs, and stops when it ends", async () => {
    const { EventFactory } = await import("./fake/events.js");
    const { at, ev, run, sent } = await import("./state.js");
    const e = new EventFactory("s-1", "m-1");
    const strip = (st: ChatState): string => frame(<SubAgentStrip state={st} />);
    const spawned = run(sent("go").state, [ev(e.accepted()), ev(e.subAgent("spawned", "bob", "scan the repo"))]).state;
    expect(strip(spawned)).toContain("◆ bob running · 0 llm · 0 tools · 0 ms");
    const later = run(spawned, [at(T0 + 4_200)]).state;
    expect(strip(later)).toContain("◆ bob running · 0 llm · 0 tools · 4.2 s");
    // the Engine's figure is the reference; the chat counts on from it
    const reported = run(later, [
      ev(e.subAgent("progress", "bob", "scan the repo", { llmCalls: 1, elapsedMs: 4_000 })),
    ]).state;
    expect(strip(run(reported, [at(T0 + 6_200)]).state)).toContain("◆ bob running · 1 llm · 0 tools · 6.0 s");
    const ended = run(reported, [
      ev(e.subAgent("completed", "bob", "scan the repo", { llmCalls: 2, elapsedMs: 5_000 })),
      at(T0 + 60_000),
    ]).state;
    expect(strip(ended)).toContain("◇ bob completed · 2 llm · 0 tools · 5.0 s");
  });

  it("inspector shows the selected call expanded", () => {
    const state = fresh({ committed: [card({ resultSummary: "ok" })] });
    const out = frame(
      <Inspector state={state} o={{ kind: "inspector", selected: 0, loading: false }} width={100} height={30} />,
    );
    expect(out).toContain("Tool calls (1) · 1/1");
    expect(out).toContain('"path": "docs/README.md"');
  });
});
