import { join } from "node:path";
import { runAgent } from "@palisade/agent";
import { DEFAULT_MODEL_SETTINGS } from "@palisade/agent";
import type { AgentExit, ModelSettings, RunAgentOptions, SandboxProbe } from "@palisade/agent";
import { makeTempDir, startScriptedServer } from "@palisade/testing";
import type { ScriptedServer, ScriptedServerOptions, TempDir } from "@palisade/testing";
import { FakeEngine } from "./fake-engine.js";
import type { FakeEngineOptions } from "./fake-engine.js";

export const FAKE_PROBE: SandboxProbe = {
  canWriteFile: false,
  canSpawnProcess: false,
  canReadOutside: false,
  canStartWorker: false,
  permissionModel: true,
  networkIsolated: false,
  detail: "in-process test",
};

export interface Rig {
  dir: TempDir;
  model: ScriptedServer;
  engine: FakeEngine;
  exit: Promise<AgentExit>;
  logs: string[];
  stop(): Promise<AgentExit>;
}

/** A scripted model, a fake Engine on a unix socket, and the Agent running in this process. */
export async function startRig(
  engineOptions: FakeEngineOptions = {},
  modelOptions: ScriptedServerOptions = {},
  agent: Partial<RunAgentOptions> & {
    contextWindow?: number;
    modelSettings?: Partial<ModelSettings>;
    historyIdleMs?: number;
  } = {},
): Promise<Rig> {
  const dir = await makeTempDir("palisade-agent-");
  const model = await startScriptedServer(modelOptions);
  const engine = await new FakeEngine(engineOptions).start(join(dir.path, "engine.sock"));
  const controller = new AbortController();
  const logs: string[] = [];
  const exit = runAgent({
    config: {
      engineAddress: engine.address,
      token: "spawn-token",
      agentId: "test-agent",
      modelEndpoint: { baseURL: model.baseURL, apiKey: "sk-test" },
      model: "scripted-model",
      contextWindow: agent.contextWindow ?? 128_000,
      ...(agent.modelSettings ? { modelSettings: { ...DEFAULT_MODEL_SETTINGS, ...agent.modelSettings } } : {}),
      ...(agent.historyIdleMs !== undefined ? { historyIdleMs: agent.historyIdleMs } : {}),
    },
    retry: { baseDelayMs: 5, maxDelayMs: 20, maxTotalDelayMs: 2000 },
    sandbox: FAKE_PROBE,
    signal: controller.signal,
    log: (line) => logs.push(line),
    ...agent,
  });
  if (engineOptions.initial !== false) await engine.connected();
  let stopped: Promise<AgentExit> | undefined;
  const stop = (): Promise<AgentExit> =>
    (stopped ??= (async () => {
      controller.abort();
      const result = await exit;
      await engine.close();
      await model.close();
      await dir.remove();
      return result;
    })());
  return { dir, model, engine, exit, logs, stop };
}
