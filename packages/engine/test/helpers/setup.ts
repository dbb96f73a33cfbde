// Starts a real Engine (gRPC on a unix socket in a temp dir) with an external, test-driven Agent.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@palisade/protocol";
import type { Client } from "@palisade/protocol";
import { ClientService } from "@palisade/protocol/pipeline";
import type { PipelineEvent } from "@palisade/protocol/pipeline";
import { startEngine } from "../../src/index.js";
import { MemoryStore, PolicyShield } from "../../src/testing.js";
import { defaultConfig } from "@palisade/config";
import type { RunningEngine, StartEngineOptions } from "../../src/index.js";
import { FakeHost } from "./fake-host.js";
import { ScriptedAgent } from "./scripted-agent.js";

export interface Harness {
  engine: RunningEngine;
  client: Client<typeof ClientService>;
  agent: ScriptedAgent;
  store: MemoryStore;
  host: FakeHost;
  dir: string;
  logs: string[];
  close(): Promise<void>;
}

export const AGENT_TOKEN = "test-token-0123456789";

export async function startHarness(opts: Partial<StartEngineOptions> = {}, connectAgent = true): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), "pal-eng-"));
  const store = new MemoryStore();
  const host = new FakeHost();
  const logs: string[] = [];
  const config = defaultConfig();
  config.model.baseUrl = "http://127.0.0.1:1/v1";
  const engine = await startEngine({
    dataDir: dir,
    config,
    env: {},
    workspace: dir,
    store,
    host,
    shield: new PolicyShield(),
    agent: { external: { token: AGENT_TOKEN } },
    log: (l) => logs.push(l),
    ...opts,
  });
  const client = createClient(ClientService, engine.address, { bearerToken: engine.bearerToken });
  const agent = connectAgent ? new ScriptedAgent(engine.address, AGENT_TOKEN) : (undefined as unknown as ScriptedAgent);
  if (connectAgent) await agent.next("initialToolDefs");
  return {
    engine,
    client,
    agent,
    store,
    host,
    dir,
    logs,
    async close() {
      client.close();
      agent?.close();
      await engine.stop(500);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Collects a SendMessage stream to its end. */
export async function collect(stream: AsyncIterable<PipelineEvent>): Promise<PipelineEvent[]> {
  const out: PipelineEvent[] = [];
  for await (const ev of stream) out.push(ev);
  return out;
}
