// A real installation for the sub-agent tests: the Engine (SQLite store, the Shield with its
// default policy, the capability host running fixtures/lab.mjs), the real sandboxed Agent and
// sub-agent processes, and the scripted OpenAI-compatible model.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createClient } from "@palisade/protocol";
import type { Client } from "@palisade/protocol";
import { ClientService, PipelineEventType } from "@palisade/protocol/pipeline";
import type { PipelineEvent } from "@palisade/protocol/pipeline";
import { startEngine } from "@palisade/engine";
import { defaultConfig } from "@palisade/config";
import type { RunningEngine, StartEngineOptions } from "@palisade/engine";
import type { EngineConfig } from "@palisade/config";
import { makeTempDir, startScriptedServer } from "@palisade/testing";
import type { ChatRequest, ScriptRule, ScriptedServer, TempDir } from "@palisade/testing";

const here = dirname(fileURLToPath(import.meta.url));
export const LAB_SECRET = "lab-secret-7f3a9c2e51d84b06";
export const MODEL_KEY = "sk-model-key-for-tests";

export interface Lab {
  engine: RunningEngine;
  client: Client<typeof ClientService>;
  model: ScriptedServer;
  dir: TempDir;
  events: PipelineEvent[];
  logs: string[];
  close(): Promise<void>;
}

function systemPrompt(req: ChatRequest): string {
  const first = req.messages[0];
  return first?.role === "system" && typeof first.content === "string" ? first.content : "";
}

/** Requests made by a sub-agent (its system prompt says so). */
export const fromSubAgent = (req: ChatRequest): boolean => systemPrompt(req).includes("a sub-agent working for");
export const fromAgent = (req: ChatRequest): boolean => !fromSubAgent(req);

/** The main Agent loads the `agents` group first whenever it is asked to do anything. */
export const loadAgentsRule: ScriptRule = {
  match: { role: "user", when: fromAgent },
  reply: { toolCalls: [{ name: "load_tools", arguments: { groups: ["agents"] } }] },
};

export async function startLab(
  rules: ScriptRule[],
  options: Partial<StartEngineOptions> = {},
  configure?: (config: EngineConfig) => void,
): Promise<Lab> {
  const dir = await makeTempDir("palisade-subagents-");
  const model = await startScriptedServer({ rules, fallback: { content: "(no scripted reply)" } });
  const config = defaultConfig();
  config.model = {
    ...config.model,
    name: "scripted-model",
    baseUrl: model.baseURL,
    apiKey: MODEL_KEY,
    contextWindow: 128_000,
  };
  config.capabilities = [
    ...["files", "shell", "http", "documents", "mail"].map((id) => ({ id, enabled: false })),
    {
      id: "lab",
      manifest: join(here, "fixtures", "lab.yaml"),
      command: [process.execPath, join(here, "fixtures", "lab.mjs")],
      protocol: "palisade",
      credentials: { LAB_KEY: LAB_SECRET },
    },
  ];
  config.limits.approvalTimeoutMs = 20_000;
  configure?.(config);
  const logs: string[] = [];
  const engine = await startEngine({
    dataDir: join(dir.path, "data"),
    config,
    env: {},
    auditKeyFile: join(dir.path, "audit.key"),
    workspace: dir.path,
    log: (l) => logs.push(l),
    ...options,
  });
  await engine.agentReady(60_000); // a bound for an Agent that never connects, not a measure
  const events: PipelineEvent[] = [];
  engine.onEvent((ev) => events.push(ev));
  const client = createClient(ClientService, engine.address, { bearerToken: engine.bearerToken });
  return {
    engine,
    client,
    model,
    dir,
    events,
    logs,
    async close() {
      client.close();
      await engine.stop(2000);
      await model.close();
      await dir.remove();
    },
  };
}

/** Sends a message and collects its events to the end of the turn. */
export async function ask(lab: Lab, content: string, sessionId = ""): Promise<PipelineEvent[]> {
  const out: PipelineEvent[] = [];
  for await (const ev of lab.client.sendMessage({ content, sessionId }, { timeoutMs: 60_000 })) out.push(ev);
  return out;
}

export const T = PipelineEventType;

export function subAgentEvents(events: readonly PipelineEvent[], type?: PipelineEventType): PipelineEvent[] {
  return events.filter((e) => e.subAgent !== undefined && (type === undefined || e.eventType === type));
}

/** The last message's text of a chat request. */
export function lastText(req: ChatRequest): string {
  const c = req.messages.at(-1)?.content;
  return typeof c === "string" ? c : "";
}
