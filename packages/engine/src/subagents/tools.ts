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
      "(default: every tool group you may call) and reports a result. With wait=true this call returns the result; " +
      "otherwise it returns the sub-agent's name at once and you check on it with agent_status / agent_result.",
    {
      task: {
        type: "string",
        minLength: 1,
        description: "Everything the sub-agent needs to know: it does not see this conversation.",
      },
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
  spec(
    "agent_message",
    "Send a follow-up message to a running sub-agent; it reads it before its next model call.",
    {
      name,
      message: { type: "string", minLength: 1 },
    },
    ["name", "message"],
  ),
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
  /** The groups a sub-agent spawned at this depth may get (1: spawned by the main Agent). */
  grantable?(depth: number): string[];
}

/**
 * spawn_agent as offered to one caller: its description lists the tool groups that caller's
 * sub-agents can get, with the catalog's own descriptions, so a model knows what to ask for.
 */
export function spawnAgentFor(groups: readonly ToolGroupInfo[], grantable: readonly string[]): ToolSpec {
  const base = BY_NAME.get("spawn_agent") as ToolSpec;
  const offered = grantable.map((g) => {
    const info = groups.find((x) => x.name === g);
    return info?.description ? `${g} (${info.description})` : g;
  });
  const list =
    offered.length > 0
      ? ` Tool groups it can get: ${offered.join("; ")}.`
      : " No tool groups can be given to sub-agents here.";
  const params = base.parameters as { properties: Record<string, Record<string, unknown>> };
  return {
    ...base,
    description: `${base.description}${list}`,
    parameters: {
      ...base.parameters,
      properties: {
        ...params.properties,
        tool_groups: {
          ...params.properties["tool_groups"],
          description: `Tool groups it may use, from: ${grantable.join(", ") || "(none)"}. Default: every group you may call.`,
        },
      },
    },
  };
}

/** A ToolHost with the `agents` group added to the capabilities' tools. */
export class AgentToolsHost implements ToolHost {
  constructor(
    private readonly inner: ToolHost,
    private readonly handler: AgentToolHandler,
    private readonly caller?: SubAgentRun,
  ) {}

  catalog(): ToolSpec[] {
    return [...this.inner.catalog(), ...this.agentTools()];
  }

  groups(): ToolGroupInfo[] {
    return [
      ...this.inner.groups(),
      {
        name: AGENTS_GROUP,
        description: "spawn sub-agents for self-contained tasks and manage them",
        toolCount: AGENT_TOOLS.length,
      },
    ];
  }

  private agentTools(): readonly ToolSpec[] {
    if (!this.handler.grantable) return AGENT_TOOLS;
    const spawn = spawnAgentFor(this.groups(), this.handler.grantable((this.caller?.init.depth ?? 0) + 1));
    return AGENT_TOOLS.map((t) => (t.name === "spawn_agent" ? spawn : t));
  }

  resolve(toolName: string): { tool: ToolSpec } | { error: string } {
    const tool = agentTool(toolName);
    if (!tool) return this.inner.resolve(toolName);
    return { tool: this.agentTools().find((t) => t.name === tool.name) ?? tool };
  }

  invoke(
    tool: ToolSpec,
    args: unknown,
    opts: { sessionId: string; workspace: string; signal: AbortSignal; onChunk?: (text: string) => void },
  ): Promise<InvokeOutcome> {
    if (tool.capabilityId !== AGENTS_GROUP) return this.inner.invoke(tool, args, opts);
    const call: AgentToolCall = {
      sessionId: opts.sessionId,
      signal: opts.signal,
      ...(this.caller ? { caller: this.caller } : {}),
    };
    return this.handler.handle(tool.name, (args ?? {}) as Record<string, unknown>, call);
  }

  async whenStarted(
    groups: readonly string[],
    signal: AbortSignal,
    onWait?: (groups: string[]) => void,
  ): Promise<void> {
    await this.inner.whenStarted?.(groups, signal, onWait);
  }

  prompts(groups: readonly string[]): string[] {
    return this.inner.prompts(groups);
  }

  status() {
    return this.inner.status();
  }

  artifact(
    sessionId: string,
    artifactId: string,
  ): Promise<{ info: ArtifactInfo; data: AsyncIterable<Uint8Array> } | undefined> {
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
    return {
      error: `${r.tool.name} is not available to this sub-agent (its tool groups: ${groups}). Use only the tools you were given.`,
    };
  }
}
