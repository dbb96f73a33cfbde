import { createClient, RpcError } from "@palisade/protocol";
import { AgentService } from "@palisade/protocol/pipeline";
import type { AgentConfig } from "./config.js";
import { createModelCaller, preloadModelSdk } from "./llm.js";
import type { CallModel } from "./model.js";
import type { RetryPolicy } from "./retry.js";
import { AgentRuntime } from "./runtime.js";
import type { AgentEventInit } from "./runtime.js";
import type { HistoryCacheOptions } from "./history-cache.js";
import { probeSandbox } from "./sandbox.js";
import type { SandboxProbe } from "./sandbox.js";

export const AGENT_VERSION = "0.1.0";
export const INITIAL_TOOL_DEFS_TIMEOUT_MS = 10_000;

export interface RunAgentOptions {
  config: AgentConfig;
  /** Default: the openai SDK against config.modelEndpoint with `retry`. */
  callModel?: CallModel;
  retry?: Partial<RetryPolicy>;
  /** Default 10 s. */
  initialToolDefsTimeoutMs?: number;
  /** Default: probe now. */
  sandbox?: SandboxProbe;
  /** Stops the Agent (turns are cancelled and reported) as if the Engine sent a shutdown. */
  signal?: AbortSignal;
  log?: (line: string) => void;
  /** Bounds of the conversations kept between turns (default: config.historyIdleMs or 5 min idle, 64 MiB). */
  historyCache?: HistoryCacheOptions;
}

export interface AgentExit {
  /** Process exit code: 0 after a shutdown, 1 when the Engine went away, 3 without InitialToolDefs. */
  code: number;
  reason: string;
}

/**
 * Connects to the Engine with its spawn token, announces itself with AgentReady (sandbox report), waits for
 * InitialToolDefs and serves directives until shutdown or the stream ends.
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentExit> {
  const { config } = options;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const sandbox = options.sandbox ?? (await probeSandbox());
  const callModel =
    options.callModel ??
    createModelCaller({
      endpoint: config.modelEndpoint,
      retry: options.retry ?? {},
      ...(config.modelSettings ? { settings: config.modelSettings } : {}),
      log,
    });
  // The spawn token is the call's credential (metadata), checked before the Engine reads a message.
  const client = createClient(AgentService, config.engineAddress, { bearerToken: config.token });
  const call = client.runSession();

  // One writer: events leave in the order they were produced.
  let chain = Promise.resolve();
  const send = (event: AgentEventInit): void => {
    chain = chain
      .then(() => call.send(event))
      .catch((err: unknown) => log(`palisade-agent: could not send an event: ${String(err)}`));
  };
  const historyCache =
    options.historyCache ?? (config.historyIdleMs !== undefined ? { idleMs: config.historyIdleMs } : undefined);
  const runtime = new AgentRuntime({
    model: config.model,
    contextWindow: config.contextWindow,
    callModel,
    send,
    log,
    ...(historyCache ? { historyCache } : {}),
  });
  const finish = async (exit: AgentExit, cancelReason: string): Promise<AgentExit> => {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
    await runtime.stop(cancelReason);
    await chain;
    call.end();
    client.close();
    return exit;
  };

  let timedOut = false;
  const waitMs = options.initialToolDefsTimeoutMs ?? INITIAL_TOOL_DEFS_TIMEOUT_MS;
  const timer = setTimeout(() => {
    if (runtime.ready) return;
    timedOut = true;
    call.cancel();
  }, waitMs);
  let stopped = false;
  const onAbort = (): void => {
    stopped = true;
    call.cancel();
  };
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.signal?.aborted) onAbort();

  send({
    event: {
      case: "ready",
      value: { agentId: config.agentId, sandbox, pid: process.pid, version: AGENT_VERSION },
    },
  });

  // Load the model SDK while the Engine gets ready to send work.
  if (!options.callModel)
    preloadModelSdk().catch((err: unknown) => log(`palisade-agent: cannot load the openai SDK: ${String(err)}`));

  const noDefs = (): AgentExit => ({
    code: 3,
    reason: `no InitialToolDefs from the Engine at ${config.engineAddress} within ${String(waitMs / 1000)} s after AgentReady; the Engine must send InitialToolDefs first (is it a Palisade Engine of the same version?)`,
  });
  try {
    for await (const directive of call) {
      if (runtime.handle(directive) === "shutdown") {
        const reason = directive.directive.case === "shutdown" ? directive.directive.value.reason : "";
        return await finish(
          { code: 0, reason: `shut down by the Engine${reason ? `: ${reason}` : ""}` },
          "the Agent is shutting down",
        );
      }
    }
    if (timedOut) return await finish(noDefs(), "no InitialToolDefs");
    return await finish(
      { code: 1, reason: `the Engine at ${config.engineAddress} closed the stream` },
      "the Engine closed the stream",
    );
  } catch (err) {
    if (timedOut) return await finish(noDefs(), "no InitialToolDefs");
    if (stopped) return await finish({ code: 0, reason: "stopped" }, "the Agent is shutting down");
    const why = err instanceof RpcError ? `${err.codeName}: ${err.message}` : String(err);
    return await finish(
      { code: 1, reason: `lost the Engine at ${config.engineAddress} (${why})` },
      "the Agent lost its Engine",
    );
  }
}
