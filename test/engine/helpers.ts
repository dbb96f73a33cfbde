// End-to-end harness: a real Engine (in this process, real gRPC on a unix socket), the real
// Agent process it spawns (sandboxed, compiled dist/), the built-in capabilities as processes,
// the real Shield and SQLite store, and the scripted OpenAI-compatible model server.
// Needs `make build` (the Agent and capabilities run from dist/).
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createClient } from "@palisade/protocol";
import type { Client } from "@palisade/protocol";
import { ClientService, PipelineEventType } from "@palisade/protocol/pipeline";
import type { PipelineEvent } from "@palisade/protocol/pipeline";
import { startScriptedServer } from "@palisade/testing";
import type { ScriptedServer, ScriptedServerOptions } from "@palisade/testing";
import { startEngine } from "@palisade/engine";
import { loadConfig } from "@palisade/config";
import type { RunningEngine, StartEngineOptions } from "@palisade/engine";

export const root = fileURLToPath(new URL("../..", import.meta.url));
export const fixtures = fileURLToPath(new URL("./fixtures", import.meta.url));

export const TEST_POLICY = `
version: 1
name: e2e
description: Policy of the engine end-to-end tests.
defaults:
  unknown_tool: ask
  tools:
    load_tools: allow
rules:
  - id: e2e-no-delete
    description: Deleting is refused in the tests.
    tools: [files__delete_file]
    decision: block
    reason: deleting files is not allowed here
  - id: e2e-ask-write
    description: Writing needs a human.
    tools: [files__write_file]
    decision: ask
`;

export function built(): string | undefined {
  const need = [
    "packages/agent/dist/main.js",
    "apps/capabilities/files/dist/main.js",
    "packages/capability-sdk/dist/index.js",
  ];
  const missing = need.filter((p) => !existsSync(join(root, p)));
  return missing.length > 0 ? `run make build first (missing ${missing.join(", ")})` : undefined;
}

export interface E2E {
  dir: string;
  dataDir: string;
  workspace: string;
  configPath: string;
  model: ScriptedServer;
  engine: RunningEngine;
  client: Client<typeof ClientService>;
  logs: string[];
  restart(): Promise<void>;
  close(): Promise<void>;
}

export interface E2EOptions {
  model?: ScriptedServerOptions;
  extraConfig?: string;
  approvalTimeoutS?: number;
  /** Built-in capabilities to leave out (http, documents and mail are unless `enable`d). */
  disable?: string[];
  /** Of http, documents and mail: the ones to keep. */
  enable?: string[];
  /** More `capabilities:` list items (YAML lines, indented by two), or a function of the workspace giving them. */
  capabilities?: string[] | ((paths: { dir: string; workspace: string }) => string[]);
  /** A bundled Shield policy by name (e.g. "default") instead of TEST_POLICY. */
  policy?: string;
  /**
   * Automatic session titles (default off here: the title call would take replies queued for
   * the Agent). More `history:` keys as YAML lines indented by two.
   */
  autoTitle?: boolean;
  history?: string[];
  /** More `model:` keys as YAML lines indented by two (e.g. "  idle_timeout_s: 2"). */
  modelConfig?: string[];
  /** A model server of someone else's at this URL instead of the scripted one (which still starts, idle). */
  baseURL?: string;
  /** More `limits:` keys as YAML lines indented by two (e.g. "  capability_idle_stop_s: 2"). */
  limits?: string[];
  /** Limits given to startEngine in code (those the config file has no key for). */
  engineLimits?: StartEngineOptions["limits"];
}

export async function startE2E(opts: E2EOptions = {}): Promise<E2E> {
  const dir = mkdtempSync(join(tmpdir(), "pal-e2e-"));
  const dataDir = join(dir, "data");
  const workspace = join(dir, "ws");
  mkdirSync(workspace);
  writeFileSync(join(workspace, "hello.txt"), "hello world\n");
  writeFileSync(join(workspace, "a.txt"), "alpha\n");
  writeFileSync(join(workspace, "b.txt"), "beta\n");
  writeFileSync(join(dir, "policy.yaml"), TEST_POLICY);
  const disabled = [
    ...["http", "documents", "mail"].filter((id) => !opts.enable?.includes(id)),
    ...(opts.disable ?? []),
  ];
  const model = await startScriptedServer(opts.model ?? {});
  mkdirSync(join(dir, "cfg"));
  const configPath = join(dir, "cfg", "config.yaml");
  writeFileSync(
    configPath,
    [
      "model:",
      `  base_url: ${opts.baseURL ?? model.baseURL}`,
      "  api_key: sk-test-not-secret",
      "  name: scripted-model",
      ...(opts.modelConfig ?? []),
      "shield:",
      opts.policy ? `  policy: ${opts.policy}` : `  policy_file: ${join(dir, "policy.yaml")}`,
      "capabilities:",
      ...disabled.map((id) => `  - { id: ${id}, enabled: false }`),
      ...(typeof opts.capabilities === "function" ? opts.capabilities({ dir, workspace }) : (opts.capabilities ?? [])),
      "limits:",
      `  approval_timeout_s: ${opts.approvalTimeoutS ?? 300}`,
      ...(opts.limits ?? []),
      `workspace: ${workspace}`,
      "history:",
      `  auto_title: ${String(opts.autoTitle ?? false)}`,
      ...(opts.history ?? []),
      opts.extraConfig ?? "",
    ].join("\n"),
    { mode: 0o600 }, // it holds model.api_key
  );
  const logs: string[] = [];
  const boot = async (): Promise<{ engine: RunningEngine; client: Client<typeof ClientService> }> => {
    const config = await loadConfig(configPath, {});
    const engine = await startEngine({
      dataDir,
      config,
      env: {},
      log: (l) => logs.push(l),
      ...(opts.engineLimits ? { limits: opts.engineLimits } : {}),
    });
    await engine.agentReady(60_000); // a bound for an Agent that never connects, not a measure
    return { engine, client: createClient(ClientService, engine.address, { bearerToken: engine.bearerToken }) };
  };
  let cur = await boot();
  const h: E2E = {
    dir,
    dataDir,
    workspace,
    configPath,
    model,
    get engine() {
      return cur.engine;
    },
    get client() {
      return cur.client;
    },
    logs,
    async restart() {
      cur.client.close();
      await cur.engine.stop(2000);
      cur = await boot();
    },
    async close() {
      cur.client.close();
      await cur.engine.stop(2000);
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return h;
}

export async function collect(stream: AsyncIterable<PipelineEvent>): Promise<PipelineEvent[]> {
  const out: PipelineEvent[] = [];
  for await (const ev of stream) out.push(ev);
  return out;
}

export const kind = (e: PipelineEvent): string => PipelineEventType[e.eventType] ?? String(e.eventType);

export function final(evs: PipelineEvent[]): PipelineEvent {
  const last = evs.at(-1);
  if (!last) throw new Error("no events");
  return last;
}

/** The `load_tools` call every scripted conversation starts with. */
export const loadFiles = { toolCalls: [{ name: "load_tools", arguments: { groups: ["files"] } }] };
