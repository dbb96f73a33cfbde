// SubAgentService: the RPCs a sub-agent process calls. Every call carries the per-spawn token in
// its metadata, checked in constant time before the request is read; a token only ever speaks for
// its own run. (The requests' own `token` field is not a credential and is ignored.)
import { Code, RpcError } from "@palisade/protocol";
import type { CallContext, ServiceImpl } from "@palisade/protocol";
import type { ClientService, SubAgentService } from "@palisade/protocol/pipeline";
import { sandboxViolations } from "../agent/link.js";
import { checkSpawnedProcess } from "../agent/verify.js";
import type { SubAgentManager } from "./manager.js";
import { subAgentSystemPrompt } from "./prompt.js";
import { SubAgentRun } from "./run.js";

/** The run the call's metadata token named (RpcServer ran SubAgentManager.authorize before the body was read). */
function authenticated(ctx: CallContext): SubAgentRun {
  const run = ctx.principal;
  if (!(run instanceof SubAgentRun))
    throw new RpcError(Code.UNAUTHENTICATED, "SubAgentService call was not authorized");
  return run;
}

function mustRun(run: SubAgentRun, rpc: string): void {
  if (!run.registered) throw new RpcError(Code.FAILED_PRECONDITION, `${rpc} before RegisterSubAgent: register first`);
  if (!run.running)
    throw new RpcError(
      Code.FAILED_PRECONDITION,
      `sub-agent ${run.name} has ${run.state}${run.error ? ` (${run.error})` : ""}; stop working`,
    );
}

export function subAgentServiceImpl(m: SubAgentManager): ServiceImpl<typeof SubAgentService> {
  const answer = <T>(rpc: string, message: T): T => {
    m.observe(rpc, message);
    return message;
  };
  return {
    async registerSubAgent(req, ctx) {
      const run = authenticated(ctx);
      if (run.registered)
        throw new RpcError(
          Code.FAILED_PRECONDITION,
          `sub-agent ${run.name} is already registered; a token is good for one process`,
        );
      if (!run.running)
        throw new RpcError(
          Code.FAILED_PRECONDITION,
          `sub-agent ${run.name} has ${run.state} before registering${run.error ? ` (${run.error})` : ""}`,
        );
      const env = m.env;
      const violations = sandboxViolations(req.sandbox);
      if (violations.length > 0 && !env.config.agent.allowUnsandboxed) {
        const reason = `refusing an unconfined sub-agent: ${violations.join("; ")}`;
        m.fail(run, reason);
        throw new RpcError(
          Code.PERMISSION_DENIED,
          `${reason}. Run on Node >= 22.12 (permission model) where unprivileged user and network namespaces work, or set agent.allow_unsandboxed: true (or --allow-unsandboxed).`,
        );
      }
      // The token must come from the process it was given to (or one under it), as /proc shows.
      const spawned = run.child?.pid;
      const check = spawned === undefined ? undefined : checkSpawnedProcess(spawned, req.pid);
      if (check?.ok && check.facts && req.sandbox?.networkIsolated && !check.facts.ownNamespaces.includes("net")) {
        const reason = "its sandbox report says its network is isolated, but it shares the Engine's network namespace";
        m.fail(run, reason);
        throw new RpcError(Code.PERMISSION_DENIED, reason);
      }
      if (check && !check.ok) {
        const reason = `a RegisterSubAgent with its token did not come from its process: ${check.reason}`;
        m.fail(run, reason);
        throw new RpcError(Code.PERMISSION_DENIED, reason);
      }
      run.registered = true;
      const host = m.scopedHost(run);
      const tools = host.catalog();
      return answer("registerSubAgent", {
        name: run.name,
        task: run.init.task,
        tools: tools.map((t) => ({
          name: t.name,
          description: t.description,
          parametersJson: JSON.stringify(t.parameters),
          group: t.capabilityId,
        })),
        systemPrompt: subAgentSystemPrompt({
          name: run.name,
          agentName: env.config.agent.name,
          workspace: run.init.turn.session.workspace,
          maxLlmCalls: m.limits.maxLlmCalls,
          toolNames: tools.map((t) => t.name),
          capabilityPrompts: host.prompts(run.init.groups),
        }),
        model: run.init.model,
        provider: "openai",
        // The sub-agent calls the model through the Engine's gateway: no key, no endpoint for it.
        apiKeyEnv: "",
        baseUrl: "",
        maxLlmCalls: m.limits.maxLlmCalls,
      });
    },

    async subAgentExecuteTool(req, ctx) {
      const run = authenticated(ctx);
      mustRun(run, "SubAgentExecuteTool");
      if (!req.callId || !req.toolName) throw new RpcError(Code.INVALID_ARGUMENT, "call_id and tool_name are required");
      const pipeline = m.pipeline(run);
      if (!pipeline) throw new RpcError(Code.FAILED_PRECONDITION, `sub-agent ${run.name} has no pipeline`);
      // The call runs to its end even if the process goes away: the run's own signal stops it.
      const result = await pipeline.execute({
        callId: req.callId,
        toolName: req.toolName,
        argumentsJson: req.argumentsJson,
      });
      m.progress(run, { toolCall: true });
      return answer("subAgentExecuteTool", result);
    },

    async subAgentComplete(req, ctx) {
      const run = authenticated(ctx);
      if (run.running) m.complete(run, req.result, req.llmCalls);
      return answer("subAgentComplete", {});
    },

    async subAgentFailed(req, ctx) {
      const run = authenticated(ctx);
      if (run.running) {
        if (req.llmCalls > run.llmCalls) run.llmCalls = req.llmCalls;
        m.fail(run, `it reported a failure: ${req.error || "no reason given"}`);
      }
      return answer("subAgentFailed", {});
    },

    async subAgentPollMessage(req, ctx) {
      const run = authenticated(ctx);
      if (run.running && !run.init.turn.otr && !(await m.env.store.getSession(run.sessionId)))
        m.cancel(run, "its conversation was deleted");
      if (!run.running) return answer("subAgentPollMessage", { messages: [], cancelled: true });
      m.progress(run, { llmCalls: req.llmCalls });
      return answer("subAgentPollMessage", { messages: run.inbox.splice(0), cancelled: false });
    },
  };
}

/** ClientService.ListSubAgents: live and stored sub-agents of a session. */
export function listSubAgentsRpc(m: SubAgentManager): ServiceImpl<typeof ClientService>["listSubAgents"] {
  return async (req) => {
    if (!req.sessionId) throw new RpcError(Code.INVALID_ARGUMENT, "session_id is required");
    const runs = await m.list(req.sessionId);
    const now = Date.now();
    return {
      agents: runs.map((r) => ({
        name: r.name,
        task: r.task,
        state: r.state,
        llmCalls: r.llmCalls,
        toolCalls: r.toolCalls,
        elapsedMs: BigInt((r.endedAt || now) - r.startedAt),
        resultExcerpt: r.result.length > 500 ? `${r.result.slice(0, 500)}…` : r.result,
        error: r.error,
      })),
    };
  };
}
