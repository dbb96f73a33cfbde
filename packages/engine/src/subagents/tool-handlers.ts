// What spawn_agent, agent_status, agent_result, agent_message, cancel_agent and list_agents do.
// Arguments were validated against the schemas in tools.ts by the pipeline. Results are JSON
// the model reads; refusals (limits, unknown names or groups) are errors it can act on.
import type { InvokeOutcome } from "../ports.js";
import type { Turn } from "../history/turn.js";
import type { TurnEnv } from "../turns/env.js";
import { sessionModel } from "../history/sessions.js";
import { loadedGroupsOf } from "../calls/tool-defs.js";
import type { SubAgentLimits } from "./ports.js";
import type { SubAgentRun } from "./run.js";
import { AGENTS_GROUP, agentTool } from "./tools.js";
import type { AgentToolCall } from "./tools.js";

const DEFAULT_RESULT_WAIT_S = 30;

export interface SpawnRequest {
  parent: Turn;
  task: string;
  groups: string[];
  model: string;
  caller?: SubAgentRun;
}

/** The sub-agent runs the tools act on (the SubAgentManager). */
export interface AgentRuns {
  readonly env: TurnEnv;
  readonly limits: SubAgentLimits;
  currentTurn(sessionId: string): Turn | undefined;
  running(): SubAgentRun[];
  sessionRuns(sessionId: string): SubAgentRun[];
  find(name: string, sessionId: string): SubAgentRun | undefined;
  /** Capability groups (plus `agents` where nesting allows) a sub-agent at `depth` may get. */
  grantable(depth: number): string[];
  /** Starts a sub-agent; the caller has checked limits and groups. */
  spawn(req: SpawnRequest): SubAgentRun;
  message(run: SubAgentRun, text: string): void;
  cancel(run: SubAgentRun, reason: string): void;
}

const ok = (value: unknown): InvokeOutcome => ({ ok: true, content: JSON.stringify(value), artifacts: [] });
const refuse = (message: string): InvokeOutcome => ({ ok: false, content: message, artifacts: [], error: message });

function status(run: SubAgentRun): Record<string, unknown> {
  return {
    name: run.name,
    state: run.state,
    task: run.init.task,
    llm_calls: run.llmCalls,
    tool_calls: run.toolCalls,
    elapsed_s: Math.round(run.elapsedMs() / 100) / 10,
    ...(run.state === "completed" ? { result: run.result } : {}),
    ...(run.error ? { error: run.error } : {}),
  };
}

/** Resolves when the run ended (true) or the wait is over (false). */
function waitEnd(run: SubAgentRun, signal: AbortSignal, timeoutMs: number): Promise<boolean> {
  if (!run.running) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ended: boolean): void => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      resolve(ended);
    };
    const onAbort = (): void => done(false);
    const timer = setTimeout(() => done(false), timeoutMs);
    signal.addEventListener("abort", onAbort, { once: true });
    void run.ended.then(() => done(true));
  });
}

function stillRunning(run: SubAgentRun): InvokeOutcome {
  return ok({
    ...status(run),
    note: `${run.name} is still running; call agent_result again later, or agent_status to check on it.`,
  });
}

/**
 * The groups of a sub-agent spawned without `tool_groups`: what its caller may call, never more than
 * a sub-agent may get. The main Agent may call any capability tool without loading its group first,
 * so it passes on every capability group; `agents` only when it loaded that group itself. A
 * sub-agent passes on its own groups.
 */
function defaultGroups(m: AgentRuns, call: AgentToolCall, grantable: readonly string[]): string[] {
  if (call.caller) return call.caller.init.groups.filter((g) => grantable.includes(g));
  const loaded = loadedGroupsOf(m.env, call.sessionId);
  return grantable.filter((g) => g !== AGENTS_GROUP || loaded.has(g));
}

function spawn(
  m: AgentRuns,
  args: Record<string, unknown>,
  call: AgentToolCall,
): Promise<InvokeOutcome> | InvokeOutcome {
  const parent = call.caller ? call.caller.init.turn : m.currentTurn(call.sessionId);
  if (!parent) return refuse("spawn_agent can only be used while answering a message of this conversation.");
  const depth = (call.caller?.init.depth ?? 0) + 1;
  const running = m.running();
  if (running.length >= m.limits.maxConcurrent) {
    return refuse(
      `Refused: ${String(running.length)} sub-agents are already running, the limit (limits.sub_agents.max_concurrent = ${String(m.limits.maxConcurrent)}). ` +
        `Running: ${running.map((r) => r.name).join(", ")}. Wait for one with agent_result or stop one with cancel_agent, then spawn again.`,
    );
  }
  const grantable = m.grantable(depth);
  const requested = Array.isArray(args.tool_groups)
    ? [...new Set(args.tool_groups as string[])]
    : defaultGroups(m, call, grantable);
  if (requested.includes(AGENTS_GROUP) && !grantable.includes(AGENTS_GROUP)) {
    return refuse(
      `Sub-agents cannot get the "${AGENTS_GROUP}" group (nesting depth limit ${String(m.limits.maxDepth)}). Ask for other groups: ${grantable.join(", ") || "none exist"}.`,
    );
  }
  const unknown = requested.filter((g) => !grantable.includes(g));
  if (unknown.length > 0)
    return refuse(`Unknown tool groups: ${unknown.join(", ")}. Available: ${grantable.join(", ") || "none"}.`);

  const model =
    typeof args.model === "string" && args.model ? args.model : sessionModel(parent.session, m.env.config.model.name);
  const run = m.spawn({
    parent,
    task: String(args.task),
    groups: requested,
    model,
    ...(call.caller ? { caller: call.caller } : {}),
  });
  if (args.wait !== true) {
    return ok({
      name: run.name,
      state: run.state,
      tool_groups: requested,
      note: `Started ${run.name}. Use agent_status or agent_result with name "${run.name}".`,
    });
  }
  return waitEnd(run, call.signal, m.limits.timeoutMs).then((ended) => (ended ? ok(status(run)) : stillRunning(run)));
}

export async function handleAgentTool(
  m: AgentRuns,
  tool: string,
  args: Record<string, unknown>,
  call: AgentToolCall,
): Promise<InvokeOutcome> {
  const name = agentTool(tool)?.name ?? tool;
  if (name === "spawn_agent") return spawn(m, args, call);
  if (name === "list_agents") return ok({ agents: m.sessionRuns(call.sessionId).map(status) });

  const run = m.find(String(args.name), call.sessionId);
  if (!run) {
    const known = m.sessionRuns(call.sessionId).map((r) => r.name);
    return refuse(
      `No sub-agent named ${JSON.stringify(args.name)} in this conversation. ${known.length > 0 ? `Known: ${known.join(", ")}.` : "None was spawned yet."}`,
    );
  }
  switch (name) {
    case "agent_status":
      return ok(status(run));
    case "agent_result": {
      const seconds = typeof args.timeout_s === "number" ? args.timeout_s : DEFAULT_RESULT_WAIT_S;
      return (await waitEnd(run, call.signal, seconds * 1000)) ? ok(status(run)) : stillRunning(run);
    }
    case "agent_message":
      if (!run.running)
        return refuse(
          `${run.name} is ${run.state}; it can no longer receive messages. Spawn a new sub-agent if more work is needed.`,
        );
      m.message(run, String(args.message));
      return ok({
        name: run.name,
        state: run.state,
        note: `Delivered to ${run.name}'s inbox; it reads it before its next model call.`,
      });
    case "cancel_agent":
      if (!run.running) return ok({ ...status(run), note: `${run.name} had already ended.` });
      m.cancel(run, "cancelled by the agent (cancel_agent)");
      return ok(status(run));
    default:
      return refuse(`Unknown agents tool ${tool}.`);
  }
}
