// Engine benchmarks (issue 6), each against a baseline measured in the same run:
//  1. tool-call overhead (proposal → result through Engine, Shield and a no-op capability) vs
//     one bidi echo + one unary call on the bridge — goal ≤ 1.5×;
//  2. time to first token client → Engine → Agent → scripted model → back vs the openai SDK
//     calling the scripted server directly — goal ≤ +3 ms at p50;
//  3. 100 concurrent sessions (model latency 50 ms, one tool call per turn) vs one session — goal ≤ 2×;
//  4. cold start of Engine + Agent + built-in capabilities to ready.
// Run after `make build`: node bench/engine.mjs
import { fork } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { createClient } from "@palisade/protocol";
import { AgentService, ClientService, PipelineEventType } from "@palisade/protocol/pipeline";
import { Capability } from "@palisade/protocol/capability";
import { startScriptedServer } from "@palisade/testing";
import { defaultConfig, startEngine } from "@palisade/engine";
import { printTable, summarize, writeResult } from "./lib/stats.mjs";

const N_CALLS = Number(process.env.BENCH_TOOL_CALLS ?? 2000);
const N_TTFT = Number(process.env.BENCH_TTFT ?? 100);
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 100);
const hr = () => process.hrtime.bigint();
const ms = (t) => Number(process.hrtime.bigint() - t) / 1e6;

// ---------------------------------------------------------------- 1. tool-call overhead
async function toolCallOverhead() {
  const child = fork(new URL("./lib/engine-child.mjs", import.meta.url), { stdio: ["ignore", "ignore", "inherit", "ipc"] });
  const addrs = await new Promise((r) => child.once("message", r));
  // Baseline: one bidi echo + one unary Invoke, cross-process.
  const bAgent = createClient(AgentService, addrs.baseline);
  const bCap = createClient(Capability, addrs.baseline);
  const call = bAgent.runSession();
  const it = call[Symbol.asyncIterator]();
  const args = new TextEncoder().encode("{}");
  const floor = [];
  for (let i = 0; i < N_CALLS + 200; i++) {
    const t = hr();
    await call.send({ event: { case: "toolProposal", value: { callId: String(i), toolName: "noop", argumentsJson: "{}" } } });
    await it.next();
    await bCap.invoke({ toolName: "noop", argsJson: args });
    if (i >= 200) floor.push(ms(t));
  }
  call.end();
  // Engine: the benchmark is the Agent.
  const client = createClient(ClientService, addrs.engine);
  const agent = createClient(AgentService, addrs.engine).runSession();
  const dirs = agent[Symbol.asyncIterator]();
  await agent.send({ event: { case: "ready", value: { agentId: "bench", token: "bench", sandbox: { permissionModel: true } } } });
  const next = async (kind) => {
    for (;;) {
      const d = (await dirs.next()).value;
      if (d.directive.case === kind) return d.directive.value;
    }
  };
  await next("initialToolDefs");
  const turn = client.sendMessage({ content: "bench" });
  const reading = (async () => {
    for await (const _ of turn);
  })();
  const p = await next("process");
  const engineSamples = [];
  for (let i = 0; i < N_CALLS + 200; i++) {
    const t = hr();
    await agent.send({ event: { case: "toolProposal", value: { sessionId: p.sessionId, messageId: p.messageId, callId: `c${i}`, toolName: "noop__noop", argumentsJson: "{}" } } });
    const r = await next("toolResult");
    if (r.isError) throw new Error(`tool call failed: ${r.content}`);
    if (i >= 200) engineSamples.push(ms(t));
  }
  await agent.send({ event: { case: "responseComplete", value: { sessionId: p.sessionId, messageId: p.messageId, content: "done" } } });
  await reading;
  agent.end();
  client.close();
  child.disconnect();
  return { engine: summarize(engineSamples), floor: summarize(floor) };
}

// ---------------------------------------------------------------- shared: Engine with the real Agent
async function realEngine(model, extra = {}) {
  const dir = mkdtempSync(join(tmpdir(), "pal-bench-"));
  mkdirSync(join(dir, "ws"));
  writeFileSync(join(dir, "ws", "x.txt"), "x\n");
  const config = defaultConfig();
  config.model = { baseUrl: model.baseURL, apiKey: "sk-bench", name: "scripted-model", contextWindow: 128000 };
  config.capabilities = extra.capabilities ?? ["http", "documents", "mail"].map((id) => ({ id, enabled: false }));
  const t = hr();
  const engine = await startEngine({ dataDir: join(dir, "data"), config, env: {}, workspace: join(dir, "ws"), log: () => {} });
  await engine.agentReady(30_000);
  const readyMs = ms(t);
  const client = createClient(ClientService, engine.address);
  return {
    engine,
    client,
    readyMs,
    async close() {
      client.close();
      await engine.stop(2000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------- 2. time to first token
async function timeToFirstToken() {
  const model = await startScriptedServer({ fallback: { content: "hello there friend" } });
  const openai = new OpenAI({ baseURL: model.baseURL, apiKey: "sk-bench", maxRetries: 0 });
  const direct = [];
  for (let i = 0; i < N_TTFT + 10; i++) {
    const t = hr();
    const stream = await openai.chat.completions.create({ model: "scripted-model", stream: true, messages: [{ role: "user", content: "hi" }] });
    let first;
    for await (const chunk of stream) if (first === undefined && chunk.choices[0]?.delta?.content) first = ms(t);
    if (i >= 10) direct.push(first);
  }
  const e = await realEngine(model);
  const via = [];
  let sessionId = "";
  for (let i = 0; i < N_TTFT + 10; i++) {
    const t = hr();
    let first;
    for await (const ev of e.client.sendMessage({ content: "hi", sessionId })) {
      sessionId = ev.sessionId;
      if (first === undefined && ev.eventType === PipelineEventType.LLM_TOKEN) first = ms(t);
    }
    if (i >= 10) via.push(first);
    if (i % 20 === 19) sessionId = ""; // keep the history short
  }
  await e.close();
  await model.close();
  return { engine: summarize(via), direct: summarize(direct) };
}

// ---------------------------------------------------------------- 3. concurrent sessions
async function concurrentSessions() {
  const model = await startScriptedServer({
    latencyMs: 50,
    rules: [
      { match: { role: "user" }, reply: { toolCalls: [{ name: "load_tools", arguments: { groups: ["files"] } }] } },
      { match: { toolResult: /Loaded|files/ , when: (r) => !r.messages.some((m) => m.role === "tool" && String(m.content).includes("x\\n")) && !r.messages.some((m) => (m.tool_calls ?? []).some((c) => c.function.name === "files__read_file")) }, reply: { toolCalls: [{ name: "files__read_file", arguments: { path: "x.txt" } }] } },
    ],
    fallback: { content: "done" },
  });
  const e = await realEngine(model);
  const turn = async () => {
    let last;
    for await (const ev of e.client.sendMessage({ content: "go" })) last = ev;
    if (last.eventType !== PipelineEventType.RESPONSE_COMPLETE) throw new Error(`turn failed: ${last.pipelineError?.message}`);
  };
  await turn(); // warm-up
  let t = hr();
  await turn();
  const one = ms(t);
  t = hr();
  await Promise.all(Array.from({ length: SESSIONS }, turn));
  const many = ms(t);
  await e.close();
  await model.close();
  return { one, many };
}

// ---------------------------------------------------------------- 4. cold start
async function coldStart() {
  const model = await startScriptedServer({ fallback: { content: "ok" } });
  const samples = [];
  for (let i = 0; i < 3; i++) {
    const e = await realEngine(model, { capabilities: [] });
    samples.push(e.readyMs);
    await e.close();
  }
  await model.close();
  return summarize(samples);
}

const overhead = await toolCallOverhead();
const ttft = await timeToFirstToken();
const conc = await concurrentSessions();
const cold = await coldStart();

const rows = [
  { benchmark: "1. tool call p50 (ms)", palisade: overhead.engine.p50, baseline: overhead.floor.p50, ratio: overhead.engine.p50 / overhead.floor.p50, goal: "≤ 1.5×" },
  { benchmark: "1. tool call p99 (ms)", palisade: overhead.engine.p99, baseline: overhead.floor.p99, ratio: overhead.engine.p99 / overhead.floor.p99, goal: "" },
  { benchmark: "2. first token p50 (ms)", palisade: ttft.engine.p50, baseline: ttft.direct.p50, ratio: ttft.engine.p50 - ttft.direct.p50, goal: "≤ +3 ms (ratio col = delta)" },
  { benchmark: "2. first token p99 (ms)", palisade: ttft.engine.p99, baseline: ttft.direct.p99, ratio: ttft.engine.p99 - ttft.direct.p99, goal: "" },
  { benchmark: `3. ${SESSIONS} sessions wall (ms)`, palisade: conc.many, baseline: conc.one, ratio: conc.many / conc.one, goal: "≤ 2×" },
  { benchmark: "4. cold start to ready p50 (ms)", palisade: cold.p50, baseline: 0, ratio: 0, goal: "Engine + Agent + files, shell" },
];
printTable("Engine benchmarks (baseline measured in the same run)", rows);
console.log(`wrote ${writeResult("engine", { rows, overhead, ttft, concurrent: conc, coldStart: cold })}`);
process.exit(0);
