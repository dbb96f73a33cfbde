// The `agents` tool group: engine-provided tools offered through the ToolHost, so a call to
// spawn_agent & co. is resolved, validated against its JSON Schema, judged by the Shield,
// approved, recorded and reported exactly like a capability tool.
import type { ArtifactInfo, InvokeOutcome, ToolGroupInfo, ToolHost, ToolSpec } from "../ports.js";
import type { SubAgentRun } from "./run.js";

export const AGENTS_GROUP = "agents";

const name = { type: "string", minLength: 1, description: "The sub-agent's name, as spawn_agent returned it." };

/** What each agent tool's arguments mean to the Shield: text in `task` / `message` reaches another model. */
const SEMANTICS: Record<string, Record<string, unknown>> = {
  spawn_agent: { kind: "spawn-agent", model_facing: ["task"], content: ["task"] },
  agent_message: { kind: "agent-message", model_facing: ["message"], content: ["message"] },
};

function spec(tool: string, description: string, properties: Record<string, unknown>, required: string[]): ToolSpec {
  return {
    name: tool,
    capabilityId: AGENTS_GROUP,
    description,
    parameters: { type: "object", properties, required, additionalProperties: false },
    policy: "allow",
    terminalOnSuccess: false,
    semantics: SEMANTICS[tool] ?? { kind: "agent-control" },
  };
}

export const AGENT_TOOLS: readonly ToolSpec[] = [
  spec(
    "spawn_agent",
    "Start a sub-agent on a self-contained task. It runs in its own sandboxed process with the tool groups you name " +
      "(default: the groups loaded in this conversation) and reports a result. With wait=true this call returns the result; " +
      "otherwise it returns the sub-agent's name at once and you check on it with agent_status / agent_result.",
    {
      task: { type: "string", minLength: 1, description: "Everything the sub-agent needs to know: it does not see this conversation." },
      tool_groups: { type: "array", items: { type: "string", minLength: 1 }, description: "Tool groups it may use." },
      model: { type: "string", minLength: 1, description: "Model for the sub-agent (default: this session's)." },
      wait: { type: "boolean", description: "Block until the sub-agent finishes (bounded by the tool timeout)." },
    },
    ["task"],
  ),
  spec("agent_status", "State, LLM calls, tool calls and elapsed time of a sub-agent.", { name }, ["name"]),
  spec(
    "agent_result",
    "Wait for a sub-agent to finish (up to timeout_s, default 30) and return its result or error.",
    { name, timeout_s: { type: "number", minimum: 0, maximum: 900, description: "Seconds to wait (default 30)." } },
    ["name"],
  ),
  spec("agent_message", "Send a follow-up message to a running sub-agent; it reads it before its next model call.", {
    name,
    message: { type: "string", minLength: 1 },
  }, ["name", "message"]),
  spec("cancel_agent", "Stop a running sub-agent.", { name }, ["name"]),
  spec("list_agents", "The sub-agents of this conversation with their states.", {}, []),
];

const BY_NAME = new Map(AGENT_TOOLS.map((t) => [t.name, t]));

export function agentTool(toolName: string): ToolSpec | undefined {
  return BY_NAME.get(toolName.startsWith(`${AGENTS_GROUP}__`) ? toolName.slice(AGENTS_GROUP.length + 2) : toolName);
}

export interface AgentToolCall {
  sessionId: string;
  /** The invoke's signal: the turn's, bounded by the tool timeout. */
  signal: AbortSignal;
  /** Set when a sub-agent (nesting) makes the call. */
  caller?: SubAgentRun;
}

export interface AgentToolHandler {
  handle(tool: string, args: Record<string, unknown>, call: AgentToolCall): Promise<InvokeOutcome>;
}

/** A ToolHost with the `agents` group added to the capabilities' tools. */
export class AgentToolsHost implements ToolHost {
  constructor(
    private readonly inner: ToolHost,
    private readonly handler: AgentToolHandler,
    private readonly caller?: SubAgentRun,
  ) {}

  catalog(): ToolSpec[] {
    return [...this.inner.catalog(), ...AGENT_TOOLS];
  }

  groups(): ToolGroupInfo[] {
    return [
      ...this.inner.groups(),
      { name: AGENTS_GROUP, description: "spawn sub-agents for self-contained tasks and manage them", toolCount: AGENT_TOOLS.length },
    ];
  }

  resolve(toolName: string): { tool: ToolSpec } | { error: string } {
    const tool = agentTool(toolName);
    return tool ? { tool } : this.inner.resolve(toolName);
  }

  invoke(tool: ToolSpec, args: unknown, opts: { sessionId: string; workspace: string; signal: AbortSignal; onChunk?: (text: string) => void }): Promise<InvokeOutcome> {
    if (tool.capabilityId !== AGENTS_GROUP) return this.inner.invoke(tool, args, opts);
    const call: AgentToolCall = { sessionId: opts.sessionId, signal: opts.signal, ...(this.caller ? { caller: this.caller } : {}) };
    return this.handler.handle(tool.name, (args ?? {}) as Record<string, unknown>, call);
  }

  prompts(groups: readonly string[]): string[] {
    return this.inner.prompts(groups);
  }

  status() {
    return this.inner.status();
  }

  artifact(sessionId: string, artifactId: string): Promise<{ info: ArtifactInfo; data: AsyncIterable<Uint8Array> } | undefined> {
    return this.inner.artifact(sessionId, artifactId);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** The tools one sub-agent may use: only those of its granted groups resolve. */
export class ScopedHost extends AgentToolsHost {
  constructor(
    inner: ToolHost,
    handler: AgentToolHandler,
    caller: SubAgentRun,
    private readonly granted: ReadonlySet<string>,
  ) {
    super(inner, handler, caller);
  }

  override catalog(): ToolSpec[] {
    return super.catalog().filter((t) => this.granted.has(t.capabilityId));
  }

  override groups(): ToolGroupInfo[] {
    return super.groups().filter((g) => this.granted.has(g.name));
  }

  override resolve(toolName: string): { tool: ToolSpec } | { error: string } {
    const r = super.resolve(toolName);
    if ("error" in r) return r;
    if (this.granted.has(r.tool.capabilityId)) return r;
    const groups = [...this.granted].join(", ") || "none";
    return { error: `${r.tool.name} is not available to this sub-agent (its tool groups: ${groups}). Use only the tools you were given.` };
  }
}
