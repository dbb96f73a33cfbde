// One sub-agent, start to finish: register with the per-spawn token (sending the sandbox probe),
// run the Agent's own LLM loop (runTurn) on the task with the tools the Engine granted, send
// every tool call to SubAgentExecuteTool, poll between model calls, and report the outcome.
import { AgentFailure, createModelCaller, probeSandbox, runTurn } from "@palisade/agent";
import type { CallModel, ModelUsage, SandboxProbe, ToolSpec, TurnPorts } from "@palisade/agent";
import { create } from "@bufbuild/protobuf";
import { RpcError, createClient } from "@palisade/protocol";
import { ContextMessageSchema, SubAgentService } from "@palisade/protocol/pipeline";
import type { ContextMessage, SubAgentRegisterResponse } from "@palisade/protocol/pipeline";
import type { SubAgentConfig } from "./config.js";
import { Conversation } from "./conversation.js";
import type { Poll } from "./conversation.js";
import { toContextMessages } from "./transcript.js";

export const DEFAULT_MAX_LLM_CALLS = 20;
/** A tool call may wait for a human approval; the Engine's wall clock bounds the whole run. */
const TOOL_CALL_DEADLINE_MS = 3_600_000;

export interface RunSubAgentOptions {
  config: SubAgentConfig;
  /** Default: the openai SDK through the Engine's model gateway. */
  callModel?: CallModel;
  /** Default: probe now. */
  sandbox?: SandboxProbe;
  /** Stops the run (SIGTERM from the Engine): nothing more is reported. */
  signal?: AbortSignal;
  log?: (line: string) => void;
}

export interface SubAgentExit {
  /** 0 completed, 1 reported failure, 2 refused or lost the Engine, 3 cancelled. */
  code: number;
  reason: string;
}

type Client = ReturnType<typeof createClient<typeof SubAgentService>>;

const why = (err: unknown): string =>
  err instanceof RpcError ? `${err.codeName}: ${err.message}` : err instanceof Error ? err.message : String(err);

function toolSpecs(reg: SubAgentRegisterResponse): ToolSpec[] {
  return reg.tools.map((t) => ({
    name: t.name,
    description: t.description,
    parametersJson: t.parametersJson,
    group: t.group,
    terminalOnSuccess: false,
  }));
}

function ports(client: Client, name: string, conversation: Conversation): TurnPorts {
  const used = new Set<string>();
  let n = 0;
  return {
    callModel: conversation.callModel,
    // No token stream exists on SubAgentService; progress goes out with each poll.
    emitToken: () => undefined,
    proposeTool: async (call, signal) => {
      try {
        const r = await client.subAgentExecuteTool(
          { callId: call.callId, toolName: call.name, argumentsJson: call.argumentsJson },
          { signal, timeoutMs: TOOL_CALL_DEADLINE_MS },
        );
        return { content: r.content, isError: r.isError, terminal: false };
      } catch (err) {
        if (signal.aborted) throw new AgentFailure("CANCELLED", "the sub-agent was cancelled");
        throw new AgentFailure("INTERNAL", `SubAgentExecuteTool(${call.name}) failed: ${why(err)}`, { cause: err });
      }
    },
    loadTools: async (groups) => ({ tools: [], unknownGroups: groups, loadedGroups: [] }),
    flushMemory: () => undefined,
    // Call ids are seen by the parent session's clients: keep them apart from the Agent's.
    reserveCallId: (proposed) => {
      let id = `${name}.${proposed || String(++n)}`;
      while (used.has(id)) id = `${name}.${proposed}.${String(++n)}`;
      used.add(id);
      return id;
    },
  };
}

export async function runSubAgent(options: RunSubAgentOptions): Promise<SubAgentExit> {
  const { config } = options;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const sandbox = options.sandbox ?? (await probeSandbox());
  // The spawn token is every call's credential (metadata), checked before the Engine reads the request.
  const client = createClient(SubAgentService, config.engineAddress, { bearerToken: config.token });
  try {
    let reg: SubAgentRegisterResponse;
    try {
      reg = await client.registerSubAgent({ sandbox, pid: process.pid }, { timeoutMs: 15_000 });
    } catch (err) {
      return { code: 2, reason: `RegisterSubAgent at ${config.engineAddress} failed (${why(err)})` };
    }
    const callModel =
      options.callModel ??
      createModelCaller({
        endpoint: { gateway: config.modelGateway, credential: config.token },
        ...(config.modelSettings ? { settings: config.modelSettings } : {}),
        log,
      });
    return await work(client, reg, callModel, options);
  } finally {
    client.close();
  }
}

async function work(
  client: Client,
  reg: SubAgentRegisterResponse,
  callModel: CallModel,
  options: RunSubAgentOptions,
): Promise<SubAgentExit> {
  const controller = new AbortController();
  const stop = (): void => controller.abort(new AgentFailure("CANCELLED", "the sub-agent was stopped"));
  options.signal?.addEventListener("abort", stop, { once: true });
  if (options.signal?.aborted) stop();

  const max = reg.maxLlmCalls > 0 ? reg.maxLlmCalls : DEFAULT_MAX_LLM_CALLS;
  const usage: ModelUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0 };
  let spent = 0;
  const poll: Poll = async (llmCalls) => {
    const r = await client.subAgentPollMessage({ llmCalls }, { signal: controller.signal, timeoutMs: 15_000 });
    return { messages: [...r.messages], cancelled: r.cancelled };
  };
  const failed = async (error: string): Promise<SubAgentExit> => {
    await client.subAgentFailed({ error, llmCalls: spent }, { timeoutMs: 15_000 });
    return { code: 1, reason: error };
  };

  let content = reg.task;
  let history: ContextMessage[] = [];
  try {
    for (;;) {
      const remaining = max - spent;
      if (remaining <= 0)
        return await failed(`reached its limit of ${String(max)} LLM calls before finishing the task`);
      const conversation = new Conversation(callModel, poll, spent, stop);
      const result = await runTurn(
        {
          sessionId: "",
          messageId: reg.name,
          content,
          history,
          systemPrompt: reg.systemPrompt,
          model: reg.model,
          tools: toolSpecs(reg),
          groups: [],
          maxToolRounds: remaining,
          contextWindow: options.config.contextWindow,
        },
        ports(client, reg.name, conversation),
        controller.signal,
      );
      spent += result.llmCalls;
      usage.inputTokens += result.usage.inputTokens;
      usage.outputTokens += result.usage.outputTokens;
      usage.cacheReadTokens += result.usage.cacheReadTokens;
      if (result.stopReason === "round_limit") {
        return await failed(
          `reached its limit of ${String(max)} LLM calls without a final answer (last tool results were not answered)`,
        );
      }
      // A follow-up may have arrived during the final model call: answer it before finishing.
      const after = await poll(spent);
      if (after.cancelled) return { code: 3, reason: "cancelled by the Engine" };
      if (after.messages.length === 0) {
        await client.subAgentComplete({ result: result.content, usage, llmCalls: spent }, { timeoutMs: 15_000 });
        return { code: 0, reason: "completed" };
      }
      history = [
        ...toContextMessages(conversation.transcript()),
        create(ContextMessageSchema, { role: "assistant", content: result.content }),
      ];
      content = after.messages.join("\n\n");
    }
  } catch (err) {
    if (controller.signal.aborted) return { code: 3, reason: "cancelled" };
    const message = err instanceof AgentFailure ? `${err.code}: ${err.message}` : `unexpected failure: ${why(err)}`;
    try {
      return await failed(message);
    } catch (reportErr) {
      return { code: 2, reason: `${message}; reporting it to the Engine failed too (${why(reportErr)})` };
    }
  } finally {
    options.signal?.removeEventListener("abort", stop);
  }
}
