// Sub-agents: spawn → RegisterSubAgent latency (a sandboxed Node process starting, probing its
// sandbox and registering), and ten sub-agents working in parallel against one (each: 4 model
// calls with 3 tool calls through the Shield and a real capability). Baselines in the same run:
// a bare `node -e ""` start-to-exit, and the one-sub-agent turn. Run after `make build`:
// node bench/subagents.mjs
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startEngine } from "@palisade/engine";
import { defaultConfig } from "@palisade/config";
import { createClient } from "@palisade/protocol";
import { ClientService, PipelineEventType as T } from "@palisade/protocol/pipeline";
import { startScriptedServer } from "@palisade/testing";
import { printTable, summarize, writeResult } from "./lib/stats.mjs";

const ROUNDS_ONE = Number(process.env.BENCH_SUBAGENTS_ONE ?? 8);
const ROUNDS_TEN = Number(process.env.BENCH_SUBAGENTS_TEN ?? 3);
const MODEL_LATENCY_MS = 100;
const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, "..", "test", "subagents", "fixtures");
const now = () => Number(process.hrtime.bigint()) / 1e6;

// ---- baseline: a bare Node process start to exit
const nodeStart = [];
for (let i = 0; i < 10; i++) {
  const t0 = now();
  await new Promise((resolve) => spawn(process.execPath, ["-e", ""], { stdio: "ignore" }).on("exit", resolve));
  nodeStart.push(now() - t0);
}

// ---- the scripted model: main Agent spawns N, then waits for each; sub-agents note 3 times
const text = (m) => (typeof m?.content === "string" ? m.content : "");
const isSub = (req) => text(req.messages[0]).includes("a sub-agent working for");
const tools = (req) => req.messages.filter((m) => m.role === "tool");
function mainReply(req) {
  const n = Number(/\[bench (\d+)\]/.exec(text(req.messages.find((m) => m.role === "user")))?.[1] ?? 1);
  const results = tools(req);
  if (results.length === 0) return { toolCalls: [{ name: "load_tools", arguments: { groups: ["agents"] } }] };
  if (results.length === 1) {
    return {
      toolCalls: Array.from({ length: n }, (_, i) => ({
        name: "spawn_agent",
        arguments: { task: `[bench] part ${i + 1}`, tool_groups: ["lab"] },
      })),
    };
  }
  if (results.length === 1 + n) {
    const names = results.slice(1).map((m) => JSON.parse(text(m)).name);
    return { toolCalls: names.map((name) => ({ name: "agent_result", arguments: { name, timeout_s: 120 } })) };
  }
  return { content: "All parts are done." };
}
function subReply(req) {
  const done = tools(req).length;
  if (done < 3)
    return { toolCalls: [{ name: "lab__note", arguments: { text: `step ${done + 1}` } }], latencyMs: MODEL_LATENCY_MS };
  return { content: "Part finished: three notes recorded.", latencyMs: MODEL_LATENCY_MS };
}
const model = await startScriptedServer({
  rules: [
    { match: { when: isSub }, reply: subReply },
    { match: {}, reply: mainReply },
  ],
});

const dir = mkdtempSync(join(tmpdir(), "palisade-bench-subagents-"));
const config = defaultConfig();
config.model = { name: "scripted-model", baseUrl: model.baseURL, apiKey: "sk-bench", contextWindow: 128_000 };
config.capabilities = [
  ...["files", "shell", "http", "documents", "mail"].map((id) => ({ id, enabled: false })),
  {
    id: "lab",
    manifest: join(fixtures, "lab.yaml"),
    command: [process.execPath, join(fixtures, "lab.mjs")],
    credentials: { LAB_KEY: "bench-secret" },
  },
];
config.limits.subAgents = { maxConcurrent: 10, maxLlmCalls: 20, timeoutMs: 900_000 };
const engine = await startEngine({
  dataDir: join(dir, "data"),
  config,
  env: {},
  auditKeyFile: join(dir, "audit.key"),
  workspace: dir,
  log: () => undefined,
});
await engine.agentReady(30_000);

const spawnedAt = new Map();
const registered = new Map();
engine.tapSubAgents((what, m) => {
  if (what === "spawned") spawnedAt.set(m.name, now());
  if (what === "registerSubAgent") registered.set(m.name, now() - (spawnedAt.get(m.name) ?? NaN));
});
const client = createClient(ClientService, engine.address, { bearerToken: engine.bearerToken });

async function turn(n) {
  const t0 = now();
  let first = Infinity;
  let last = 0;
  const names = [];
  for await (const ev of client.sendMessage({ content: `[bench ${n}] split the work` }, { timeoutMs: 300_000 })) {
    if (ev.eventType === T.SUB_AGENT_SPAWNED) {
      first = Math.min(first, now());
      names.push(ev.subAgent.name);
    }
    if (ev.eventType === T.SUB_AGENT_COMPLETED) last = Math.max(last, now());
    if (ev.eventType === T.SUB_AGENT_FAILED)
      throw new Error(`sub-agent ${ev.subAgent.name} failed: ${ev.subAgent.error}`);
    if (ev.eventType === T.ERROR) throw new Error(`turn failed: ${ev.pipelineError.message}`);
  }
  return { turnMs: now() - t0, workMs: last - first, names };
}

const one = [];
const ten = [];
try {
  await turn(1); // warm-up
  for (let i = 0; i < ROUNDS_ONE; i++) one.push(await turn(1));
  for (let i = 0; i < ROUNDS_TEN; i++) ten.push(await turn(10));
} finally {
  client.close();
  await engine.stop(5000);
  await model.close();
  rmSync(dir, { recursive: true, force: true });
}

const reg = (runs) =>
  summarize(runs.flatMap((r) => r.names.map((n) => registered.get(n))).filter((v) => Number.isFinite(v)));
const regOne = reg(one);
const regTen = reg(ten);
const node = summarize(nodeStart);
const oneTurn = summarize(one.map((r) => r.turnMs));
const tenTurn = summarize(ten.map((r) => r.turnMs));
const oneWork = summarize(one.map((r) => r.workMs));
const tenWork = summarize(ten.map((r) => r.workMs));

printTable("spawn → RegisterSubAgent (ms)", [
  { case: 'bare `node -e ""` start→exit (floor)', n: node.n, p50: node.p50, p95: node.p95 },
  { case: "sub-agent, one at a time", n: regOne.n, p50: regOne.p50, p95: regOne.p95 },
  { case: "sub-agent, ten at once", n: regTen.n, p50: regTen.p50, p95: regTen.p95 },
]);
printTable("parallel sub-agents (ms, p50; each sub-agent: 4 model calls of 100 ms + 3 tool calls)", [
  { case: "1 sub-agent (baseline)", turn: oneTurn.p50, spawn_to_last_done: oneWork.p50 },
  { case: "10 sub-agents in parallel", turn: tenTurn.p50, spawn_to_last_done: tenWork.p50 },
  {
    case: "ratio 10 / 1 (1.0 = perfectly parallel, 10 = serial)",
    turn: tenTurn.p50 / oneTurn.p50,
    spawn_to_last_done: tenWork.p50 / oneWork.p50,
  },
]);
console.log(
  `\nmachine: ${cpus().length} cores, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")} (ten sub-agents are ten Node processes: on 2 cores their start-up is CPU-bound)`,
);
const file = writeResult("subagents", {
  cores: cpus().length,
  loadAverage: loadavg(),
  modelLatencyMs: MODEL_LATENCY_MS,
  nodeStartToExitMs: node,
  spawnToRegisteredMs: { oneAtATime: regOne, tenAtOnce: regTen },
  turnMs: { one: oneTurn, ten: tenTurn, ratio: tenTurn.p50 / oneTurn.p50 },
  spawnToLastCompletedMs: { one: oneWork, ten: tenWork, ratio: tenWork.p50 / oneWork.p50 },
});
console.log(`\nwrote ${file}`);
