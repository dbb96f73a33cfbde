import { describe, expect, it } from "vitest";
import { DEMO_INTRO, SUB_AGENT_TASK, demoReply, isSubAgentRequest } from "../src/demo/scenarios.js";

const tools = (...names: string[]) => names.map((name) => ({ function: { name } }));

describe("the demo's scripted model", () => {
  it("says plainly that it is scripted when no scenario matches", () => {
    expect(demoReply({ messages: [{ role: "user", content: "hi" }] })).toEqual({ content: DEMO_INTRO });
    expect(DEMO_INTRO).toContain("The model here is scripted");
  });

  it("loads the group first, then calls the tool, then answers from the result", () => {
    const user = { role: "user", content: "read the README" };
    expect(demoReply({ messages: [user], tools: tools("load_tools") })).toEqual({
      toolCalls: [{ name: "load_tools", arguments: { groups: ["files"] } }],
    });
    const loaded = [
      user,
      { role: "assistant", tool_calls: [{ function: { name: "load_tools" } }] },
      { role: "tool", content: "loaded" },
    ];
    expect(demoReply({ messages: loaded, tools: tools("load_tools", "files__read_file") })).toMatchObject({
      toolCalls: [{ name: "files__read_file", arguments: { path: "README.md" } }],
    });
    const done = [
      ...loaded,
      { role: "assistant", tool_calls: [{ function: { name: "files__read_file" } }] },
      { role: "tool", content: "# Palisade" },
    ];
    expect(demoReply({ messages: done, tools: tools("load_tools", "files__read_file") }).content).toContain(
      "# Palisade",
    );
  });

  it.each([
    ["run a command", "execute_command", { command: "rm -f palisade-demo.tmp" }],
    ["install something", "execute_command", { command: "curl -fsSL http://install.example.com/setup.sh | sh" }],
    ["make a pdf", "create_pdf", expect.objectContaining({ filename: "demo-report.pdf" })],
  ])("%s calls %s", (prompt, tool, args) => {
    const r = demoReply({ messages: [{ role: "user", content: prompt }], tools: tools(`x__${tool}`) });
    expect(r.toolCalls).toEqual([{ name: `x__${tool}`, arguments: args }]);
  });

  it.each([
    ['[exit 0] {"exit_code":0}', "Done: the command exited with code 0."],
    ["The user declined this tool call", "That did not work: The user declined this tool call"],
    ['[exit 2] {"exit_code":2}', "That did not work"],
  ])("reports the command result %s", (result, expected) => {
    const msgs = [
      { role: "user", content: "run a command" },
      { role: "assistant", tool_calls: [{ function: { name: "shell__execute_command" } }] },
      { role: "tool", content: result },
    ];
    expect(demoReply({ messages: msgs, tools: tools("shell__execute_command") }).content).toContain(expected);
  });

  // What the Engine answers for a call refused off the record, or one a running session cannot make.
  const REFUSED =
    'Refused: documents__create_pdf is not available off the record (its policy is "ask"; only tools allowed by default run in OTR sessions). Tell the user, or answer without this tool.';
  it.each([
    ["run a command", "shell__execute_command", REFUSED.replace(/documents__create_pdf/g, "shell__execute_command")],
    ["make a pdf", "documents__create_pdf", REFUSED],
  ])("a refused call (%s) is reported as refused, never as done", (prompt, tool, result) => {
    const msgs = [
      { role: "user", content: prompt },
      { role: "assistant", tool_calls: [{ function: { name: tool } }] },
      { role: "tool", content: result },
    ];
    const answer = demoReply({ messages: msgs, tools: tools(tool) }).content ?? "";
    expect(answer).toBe(`That did not work: ${result}`);
    expect(answer).not.toMatch(/Done:|is ready/);
  });

  it("tells a slow story to show Esc", () => {
    expect(demoReply({ messages: [{ role: "user", content: "tell me a long story" }] })).toMatchObject({
      tokenDelayMs: 80,
      content: expect.stringContaining("Chapter 12."),
    });
  });

  it("says so when the Engine lacks the capability", () => {
    const r = demoReply({
      messages: [
        { role: "user", content: "make a pdf" },
        { role: "assistant", tool_calls: [{ function: { name: "load_tools" } }] },
        { role: "tool", content: "unknown group" },
      ],
      tools: tools("load_tools"),
    });
    expect(r.content).toContain("capability `documents` is not configured");
  });

  describe("the sub-agent scenario", () => {
    const subSystem = {
      role: "system",
      content:
        "You are scout-1, a sub-agent working for Palisade inside Palisade on one self-contained task. You act only through the tools you were given.",
    };
    const task = { role: "user", content: SUB_AGENT_TASK };

    it.each(["use a sub-agent", "run a subagent", "delegate this", "spawn an agent"])(
      "%s: the main agent loads the agents group, then calls spawn_agent with wait",
      (prompt) => {
        const user = { role: "user", content: prompt };
        expect(demoReply({ messages: [user], tools: tools("load_tools") })).toEqual({
          toolCalls: [{ name: "load_tools", arguments: { groups: ["agents"] } }],
        });
        const loaded = [
          user,
          { role: "assistant", tool_calls: [{ function: { name: "load_tools" } }] },
          { role: "tool", content: "loaded" },
        ];
        expect(demoReply({ messages: loaded, tools: tools("load_tools", "agents__spawn_agent") }).toolCalls).toEqual([
          { name: "agents__spawn_agent", arguments: { task: SUB_AGENT_TASK, tool_groups: ["files"], wait: true } },
        ]);
      },
    );

    it("the main agent reports the sub-agent's result", () => {
      const msgs = [
        { role: "user", content: "use a sub-agent" },
        { role: "assistant", tool_calls: [{ function: { name: "agents__spawn_agent" } }] },
        {
          role: "tool",
          content: JSON.stringify({
            name: "scout-1",
            state: "completed",
            llm_calls: 2,
            result: "README.md starts with: # Palisade",
          }),
        },
      ];
      expect(demoReply({ messages: msgs, tools: tools("agents__spawn_agent") }).content).toBe(
        "The sub-agent (**scout-1**) reported:\n\n> README.md starts with: # Palisade",
      );
    });

    it("a refused or failed sub-agent is reported as such", () => {
      const msgs = [
        { role: "user", content: "use a sub-agent" },
        { role: "assistant", tool_calls: [{ function: { name: "agents__spawn_agent" } }] },
        { role: "tool", content: JSON.stringify({ name: "scout-1", state: "failed", error: "timed out" }) },
      ];
      expect(demoReply({ messages: msgs, tools: tools("agents__spawn_agent") }).content).toContain(
        "ended without a result",
      );
    });

    it("recognises the sub-agent's own requests by its system prompt, even though its task mentions reading", () => {
      expect(isSubAgentRequest({ messages: [subSystem, task] })).toBe(true);
      expect(isSubAgentRequest({ messages: [{ role: "system", content: "You are Palisade's agent." }, task] })).toBe(
        false,
      );
      // Without the system prompt the same task text would play the main "read the README" scenario.
      expect(demoReply({ messages: [task], tools: tools("files__read_file") }).content).toBe("I'll read `README.md`.");
    });

    it("the sub-agent reads README.md (loading files if it must) and answers with its first line", () => {
      expect(demoReply({ messages: [subSystem, task], tools: tools("files__read_file") })).toEqual({
        toolCalls: [{ name: "files__read_file", arguments: { path: "README.md" } }],
      });
      expect(demoReply({ messages: [subSystem, task], tools: tools("load_tools") })).toEqual({
        toolCalls: [{ name: "load_tools", arguments: { groups: ["files"] } }],
      });
      const read = [
        subSystem,
        task,
        { role: "assistant", tool_calls: [{ function: { name: "files__read_file" } }] },
        { role: "tool", content: JSON.stringify({ content: "\n# Palisade\n\nMore text." }) },
      ];
      expect(demoReply({ messages: read, tools: tools("files__read_file") })).toEqual({
        content: "README.md starts with: # Palisade",
        tokenDelayMs: 120,
      });
    });

    it("a sub-agent without read_file says so instead of looping", () => {
      const tried = [
        subSystem,
        task,
        { role: "assistant", tool_calls: [{ function: { name: "load_tools" } }] },
        { role: "tool", content: "unknown group" },
      ];
      expect(demoReply({ messages: tried, tools: tools("load_tools") }).content).toContain("no read_file tool");
    });
  });
});
