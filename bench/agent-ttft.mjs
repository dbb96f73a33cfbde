// Time to first token through the sandboxed Agent (ProcessRequest → first LLMTokenEmitted, the
// Agent a real child process under the permission model) against the openai SDK calling the same
// scripted model server directly (request → first content delta). The Agent reaches the model as
// it does in the Engine: through the model gateway's unix socket. Also the Agent's cold start
// (spawn → AgentReady). Run after `make build`: node bench/agent-ttft.mjs
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { agentLaunchSpec } from "@palisade/agent";
import { ModelGateway } from "@palisade/engine";
import { AsyncQueue, RpcServer } from "@palisade/protocol";
import { AgentService } from "@palisade/protocol/pipeline";
import { reply, startScriptedServer } from "@palisade/testing";
import { printTable, summarize, writeResult } from "./lib/stats.mjs";

const N = Number(process.env.BENCH_TTFT_N ?? 300);
const WARMUP = 30;
const now = () => Number(process.hrtime.bigint()) / 1e6;

const model = await startScriptedServer({ fallback: reply.text("Hello there, this is the scripted model answering.") });
const dir = mkdtempSync(join(tmpdir(), "palisade-bench-ttft-"));

// A minimal Engine: AgentService on a unix socket, first-token and completion waiters by message id.
let out;
let onReady;
const ready = new Promise((r) => (onReady = r));
const waiters = new Map();
const server = new RpcServer().add(AgentService, {
  runSession(requests) {
    out = new AsyncQueue();
    void (async () => {
      for await (const ev of requests) {
        const e = ev.event;
        if (e.case === "ready") {
          out.push({ directive: { case: "initialToolDefs", value: { tools: [] } } });
          onReady(e.value);
        } else if (e.case === "llmTokenEmitted" || e.case === "responseComplete" || e.case === "agentError") {
          const w = waiters.get(e.value.messageId);
          if (!w) continue;
          if (e.case === "llmTokenEmitted" && w.first === undefined) w.first = now();
          if (e.case !== "llmTokenEmitted") {
            waiters.delete(e.value.messageId);
            if (e.case === "agentError") w.reject(new Error(e.value.message));
            else w.resolve(w);
          }
        }
      }
    })();
    return out;
  },
});
const address = await server.listen(`unix:${join(dir, "engine.sock")}`);
const gateway = new ModelGateway({
  authorize: (credential) => (credential === "bench" ? { kind: "agent" } : undefined),
  model: () => ({ baseUrl: model.baseURL, apiKey: "x", name: "scripted-model" }),
  env: {},
  log: (line) => console.error(line),
});
await gateway.listen(join(dir, "gateway.sock"));

const spec = agentLaunchSpec({
  engineAddress: address,
  model: "scripted-model",
  modelGateway: gateway.path,
  sandbox: process.env.BENCH_NO_SANDBOX !== "1",
});
const spawnedAt = now();
// As the Engine does: the spawn token on stdin, the pipe held open.
const child = spawn(spec.command, spec.args, { env: spec.env, stdio: ["pipe", "ignore", "inherit"] });
child.stdin.write("bench\n");
const readyInfo = await ready;
const coldStartMs = now() - spawnedAt;
const sandboxed = process.env.BENCH_NO_SANDBOX !== "1";
if (sandboxed && (readyInfo.sandbox.canWriteFile || readyInfo.sandbox.canSpawnProcess))
  throw new Error("the Agent is not sandboxed");

let seq = 0;
async function agentTurn() {
  const messageId = `m${++seq}`;
  const w = { first: undefined };
  const done = new Promise((resolve, reject) => Object.assign(w, { resolve, reject }));
  waiters.set(messageId, w);
  const t = now();
  out.push({ directive: { case: "process", value: { sessionId: "bench", messageId, content: "hi" } } });
  await done;
  return w.first - t;
}

const sdk = new OpenAI({ baseURL: model.baseURL, apiKey: "x", maxRetries: 0 });
async function directTurn() {
  const t = now();
  let first;
  const stream = await sdk.chat.completions.create({
    model: "scripted-model",
    messages: [{ role: "user", content: "hi" }],
    stream: true,
    stream_options: { include_usage: true },
  });
  for await (const c of stream) if (first === undefined && c.choices[0]?.delta.content) first = now();
  return first - t;
}

async function measure(fn) {
  for (let i = 0; i < WARMUP; i++) await fn();
  const samples = [];
  for (let i = 0; i < N; i++) samples.push(await fn());
  return summarize(samples);
}

// Interleave the two so machine noise hits both alike.
const direct1 = await measure(directTurn);
const agent = await measure(agentTurn);
const direct2 = await measure(directTurn);
const direct = direct1.p50 <= direct2.p50 ? direct1 : direct2;

const rows = [
  { path: "openai SDK → scripted model (baseline)", ...direct },
  { path: "ProcessRequest → sandboxed Agent → model → LLMTokenEmitted", ...agent },
];
printTable(`Time to first token, ms (n=${N})`, rows);
const overheadP50 = agent.p50 - direct.p50;
console.log(
  `Agent overhead at p50: +${overheadP50.toFixed(3)} ms; cold start (spawn → AgentReady): ${coldStartMs.toFixed(0)} ms`,
);
const file = writeResult("agent-ttft", { n: N, direct, agent, overheadP50Ms: overheadP50, coldStartMs });
console.log(`wrote ${file}`);

out.push({ directive: { case: "shutdown", value: { reason: "bench done" } } });
await new Promise((r) => child.once("exit", r));
await server.close(500);
await gateway.close();
await model.close();
rmSync(dir, { recursive: true, force: true });
