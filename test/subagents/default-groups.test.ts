// spawn_agent without tool_groups: the sub-agent gets the groups its parent may call (never
// `agents` while nesting is off), and the tool's description lists the groups it can ask for.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { messageText } from "@palisade/testing";
import type { ChatRequest, ScriptRule, ScriptedReply } from "@palisade/testing";
import type { ToolHost } from "@palisade/engine";
import { AgentToolsHost } from "../../packages/engine/src/subagents/tools.js";
import { T, ask, fromAgent, fromSubAgent, startLab, subAgentEvents } from "./harness.js";
import type { Lab } from "./harness.js";

const turnTools = (req: ChatRequest): number =>
  req.messages.slice(req.messages.findLastIndex((m) => m.role === "user")).filter((m) => m.role === "tool").length;
const call = (name: string, args: Record<string, unknown>): ScriptedReply => ({
  toolCalls: [{ name, arguments: args }],
});
const toolNames = (req: ChatRequest): string[] => (req.tools ?? []).map((t) => t.function.name);

const rules: ScriptRule[] = [
  {
    match: { when: fromAgent },
    reply: (req) => {
      const n = turnTools(req);
      if (n === 0) return call("load_tools", { groups: ["agents", "lab"] });
      if (n === 1) return call("spawn_agent", { task: "[dflt] record a note", wait: true });
      return { content: `done: ${messageText(req.messages.at(-1)).slice(0, 300)}` };
    },
  },
  {
    match: { when: fromSubAgent },
    reply: (req) =>
      req.messages.some((m) => m.role === "tool")
        ? { content: `my tools: ${toolNames(req).join(" ")}` }
        : call("lab__note", { text: "from the sub-agent" }),
  },
];

describe("spawn_agent without tool_groups", () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab(rules, {
      limits: { subAgents: { maxConcurrent: 10, maxLlmCalls: 20, timeoutMs: 30_000, maxDepth: 1 } },
    });
  });
  afterAll(async () => lab?.close());

  it("gives the sub-agent the groups its parent may call but not agents, and the description lists the groups", async () => {
    const events = await ask(lab, "[dflt] delegate a note");
    const spawned = events.find((e) => e.actionCompleted?.toolName === "spawn_agent")?.actionCompleted;
    expect(spawned?.success, spawned?.error).toBe(true);
    const completed = subAgentEvents(events, T.SUB_AGENT_COMPLETED)[0]?.subAgent;
    expect(completed?.state).toBe("completed");
    // The sub-agent used a tool of the parent's loaded group, through the Shield and the capability.
    const note = events.find((e) => e.actionCompleted?.toolName === "lab__note")?.actionCompleted;
    expect(note).toMatchObject({ success: true, subAgentName: completed?.name });
    // Its model saw the lab tools and none of the agents tools.
    const subRequests = lab.model.chatRequests().filter(fromSubAgent);
    const tools = new Set(subRequests.flatMap(toolNames));
    expect(tools.has("lab__note")).toBe(true);
    expect([...tools].filter((t) => /spawn_agent|agent_|list_agents|cancel_agent/.test(t))).toEqual([]);
    expect(completed?.resultExcerpt).toContain("lab__note");

    // The main Agent's spawn_agent lists what a sub-agent can get here: lab, not agents (nesting is off).
    const spawnDef = lab.model
      .chatRequests()
      .filter(fromAgent)
      .flatMap((r) => r.tools ?? [])
      .find((t) => t.function.name === "spawn_agent");
    expect(spawnDef?.function.description).toMatch(/Tool groups it can get: lab\b/);
    expect(spawnDef?.function.description).not.toMatch(/agents \(/);
  });
});

describe("spawn_agent's description", () => {
  const inner = {
    catalog: () => [],
    groups: () => [
      { name: "files", description: "read and write workspace files", toolCount: 5 },
      { name: "shell", description: "run commands", toolCount: 1 },
    ],
    resolve: () => ({ error: "none" }),
  } as unknown as ToolHost;

  it("is generated from the catalog's groups and the nesting limit", () => {
    const handler = (depthLimit: number) => ({
      handle: () => Promise.reject(new Error("not called")),
      grantable: (depth: number) => (depth < depthLimit ? ["files", "shell", "agents"] : ["files", "shell"]),
    });
    const flat = new AgentToolsHost(inner, handler(1)).catalog().find((t) => t.name === "spawn_agent");
    expect(flat?.description).toContain(
      "Tool groups it can get: files (read and write workspace files); shell (run commands).",
    );
    expect(flat?.description).not.toContain("agents (");
    expect(JSON.stringify(flat?.parameters)).toContain("from: files, shell.");
    const nested = new AgentToolsHost(inner, handler(2)).catalog().find((t) => t.name === "spawn_agent");
    expect(nested?.description).toContain("agents (spawn sub-agents for self-contained tasks and manage them)");
    // resolving the tool by name gives the same definition the model was shown
    expect(new AgentToolsHost(inner, handler(1)).resolve("spawn_agent")).toEqual({ tool: flat });
  });
});

describe("spawn_agent without tool_groups, nothing loaded", () => {
  // The parent may call any tool without loading its group first, so a delegated task gets the
  // groups the parent may call: here the files capability, in its real sandbox.
  const rules: ScriptRule[] = [
    {
      match: { when: fromAgent },
      reply: (req) =>
        turnTools(req) === 0
          ? call("spawn_agent", { task: "[read] summarize data.txt", wait: true })
          : { content: `done: ${messageText(req.messages.at(-1)).slice(0, 300)}` },
    },
    {
      match: { when: fromSubAgent },
      reply: (req) =>
        req.messages.some((m) => m.role === "tool")
          ? { content: `summary: ${messageText(req.messages.at(-1)).slice(0, 200)}` }
          : call("files__read_file", { path: "data.txt" }),
    },
  ];
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab(
      rules,
      { limits: { subAgents: { maxConcurrent: 10, maxLlmCalls: 20, timeoutMs: 30_000, maxDepth: 1 } } },
      (config) => {
        config.capabilities = config.capabilities.map((c) => (c.id === "files" ? { id: "files" } : c));
      },
    );
    await writeFile(join(lab.dir.path, "data.txt"), "the quarterly numbers rose by 7 percent\n");
  });
  afterAll(async () => lab?.close());

  it("gives the sub-agent the groups its parent may call, and it reads a workspace file", async () => {
    const events = await ask(lab, "[read] delegate a summary");
    const read = events.find((e) => e.actionCompleted?.toolName === "files__read_file")?.actionCompleted;
    expect(read?.success, read?.error).toBe(true);
    const completed = subAgentEvents(events, T.SUB_AGENT_COMPLETED)[0]?.subAgent;
    expect(completed?.state).toBe("completed");
    expect(completed?.resultExcerpt).toContain("quarterly numbers rose by 7 percent");
    // Never the agents group while nesting is off.
    const tools = new Set(lab.model.chatRequests().filter(fromSubAgent).flatMap(toolNames));
    expect([...tools].filter((t) => /spawn_agent|agent_|list_agents|cancel_agent/.test(t))).toEqual([]);
  });
});
