// Engine benchmarks, each against a baseline measured in the same run:
//  1. tool-call overhead (proposal → result through Engine, Shield and a no-op capability) vs
//     one bidi echo + one unary call on the bridge — goal ≤ 1.5×; 2,200 calls in one turn, then
//     (1b) a turn per call: message → proposal → result → answer → commit → RESPONSE_COMPLETE,
//     against the same round trips with no work;
//  2. time to first token client → Engine → Agent → scripted model → back vs the openai SDK
//     calling the scripted server directly — goal ≤ +3 ms at p50;
//  3. 100 concurrent sessions (model latency 50 ms, one tool call per turn) vs one session — goal ≤ 2×;
//     with the same 100 turns made by the openai SDK straight at the model (no Palisade) as the
//     floor of this machine: the SDK and the scripted model alone already need their CPU; and the
//     same turns through every mandated hop with no work at any (bench/lib/relay-child.mjs);
//  4. cold start of Engine + Agent + built-in capabilities to ready.
// Processes as deployed: the scripted model (bench/lib/model-child.mjs) like a real endpoint, the
// Engine with its Agent (bench/lib/real-engine-child.mjs), the no-op capability of benchmark 1 in
// its own process (bench/lib/noop-capability.mjs, called by the Engine and by the baseline alike),
// and this process as the client. Automatic titles are off (an extra background model call per
// new session that no baseline makes).
// Run after `make build`: node bench/engine.mjs
import OpenAI from "openai";
import { createClient } from "@palisade/protocol";
import { AgentService, ClientService, PipelineEventType } from "@palisade/protocol/pipeline";
import { Capability } from "@palisade/protocol/capability";
import { printTable, summarize, writeResult } from "./lib/stats.mjs";
import { child } from "./lib/child.mjs";

const N_CALLS = Number(process.env.BENCH_TOOL_CALLS ?? 2000);
const N_TURNS = Number(process.env.BENCH_TOOL_TURNS ?? 300);
const N_TTFT = Number(process.env.BENCH_TTFT ?? 100);
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 100);
const hr = () => process.hrtime.bigint();

const ms = (t) => Number(process.hrtime.bigint() - t) / 1e6;

/**
 * Forks `bench/lib/<file>` with `args`. `message` is its first IPC message (an address, a result),
 * rejected if the process exits before sending one; `stop()` disconnects it and waits for its exit.
 */
/** The scripted model in a child process: { baseURL, close() }. */
async function startModel(script) {
  const model = child("model-child.mjs", [script]);
  return { baseURL: await model.first, close: model.stop };
}

/** The no-op capability (capability SDK) in its own process: { address, stop() }. */
async function startNoop() {
  const noop = child("noop-capability.mjs");
  const { address } = await noop.first;
  return { address, stop: noop.stop };
}

/** Runs `fn` n times at once; the wall time in ms. */
async function wall(fn, n) {
  const t = hr();
  await Promise.all(Array.from({ length: n }, fn));
  return ms(t);
}

/** Sends one message and reads the turn to its end, which must be RESPONSE_COMPLETE. */
async function completeTurn(client, content) {
  let last;
  for await (const ev of client.sendMessage({ content })) last = ev;
  if (last?.eventType !== PipelineEventType.RESPONSE_COMPLETE)
    throw new Error(`turn failed: ${last?.pipelineError?.message ?? "no RESPONSE_COMPLETE"}`);
}

// ---------------------------------------------------------------- 1. tool-call overhead
async function toolCallOverhead() {
  const noop = await startNoop();
  const engine = child("engine-child.mjs", [noop.address]);
  const addrs = await engine.first;
  // Baseline: one bidi echo (a bare echo server) + one unary Invoke of the same no-op capability
  // process the Engine calls, cross-process.
  const bAgent = createClient(AgentService, addrs.baseline);
  const bCap = createClient(Capability, noop.address);
  const call = bAgent.runSession();
  const it = call[Symbol.asyncIterator]();
  const args = new TextEncoder().encode("{}");
  const floorCall = async (i) => {
    await call.send({
      event: { case: "toolProposal", value: { callId: String(i), toolName: "noop", argumentsJson: "{}" } },
    });
    await it.next();
    const r = await bCap.invoke({ toolName: "noop", argsJson: args });
    if (r.error) throw new Error(`baseline call failed: ${r.error}`);
  };
  // Engine: the benchmark is the Agent; a client in its own process sends the message and watches
  // the turn, as the chat does.
  const agent = createClient(AgentService, addrs.engine, { bearerToken: "bench" }).runSession();
  const dirs = agent[Symbol.asyncIterator]();
  await agent.send({
    event: { case: "ready", value: { agentId: "bench", sandbox: { permissionModel: true, networkIsolated: true } } },
  });
  const next = async (kind) => {
    for (;;) {
      const d = (await dirs.next()).value;
      if (d.directive.case === kind) return d.directive.value;
    }
  };
  await next("initialToolDefs");
  const watcher = child("watch-client.mjs", [addrs.engine, addrs.token]);
  const p = await next("process");
  const engineCall = async (i) => {
    await agent.send({
      event: {
        case: "toolProposal",
        value: {
          sessionId: p.sessionId,
          messageId: p.messageId,
          callId: `c${i}`,
          toolName: "noop__noop",
          argumentsJson: "{}",
        },
      },
    });
    const r = await next("toolResult");
    if (r.isError) throw new Error(`tool call failed: ${r.content}`);
  };
  // Blocks of 50 calls alternate between the two, so both see the same machine (a busy
  // moment, a frequency change) rather than one measured minutes after the other.
  const floor = [];
  const engineSamples = [];
  const BLOCK = 50;
  for (let i = 0; i < N_CALLS + 200; i += BLOCK) {
    for (const [fn, out] of [
      [floorCall, floor],
      [engineCall, engineSamples],
    ]) {
      for (let j = i; j < i + BLOCK; j++) {
        const t = hr();
        await fn(j);
        if (j >= 200) out.push(ms(t));
      }
    }
  }
  await agent.send({
    event: { case: "responseComplete", value: { sessionId: p.sessionId, messageId: p.messageId, content: "done" } },
  });
  const { events } = await watcher.first;
  if (events < N_CALLS) throw new Error(`the watching client saw ${events} events for ${N_CALLS + 200} tool calls`);

  // A turn per call, as a user meets it: the message, the Agent's one proposal, the result, the
  // answer, the turn's commit (SQLite, fsync, audit) and RESPONSE_COMPLETE back to the client (this
  // process), in one session. Floor: the same round trips with no work at any hop — three bidi
  // echoes (client ↔ Engine, Engine ↔ Agent twice) and one Invoke of the same no-op capability.
  const user = createClient(ClientService, addrs.engine, { bearerToken: addrs.token });
  let sessionId = "";
  const engineTurn = async (i) => {
    const drained = (async () => {
      let last;
      for await (const ev of user.sendMessage({ content: "bench", sessionId })) last = ev;
      return last;
    })();
    const proc = await next("process");
    sessionId = proc.sessionId;
    await agent.send({
      event: {
        case: "toolProposal",
        value: {
          sessionId: proc.sessionId,
          messageId: proc.messageId,
          callId: `t${i}`,
          toolName: "noop__noop",
          argumentsJson: "{}",
        },
      },
    });
    const r = await next("toolResult");
    if (r.isError) throw new Error(`tool call failed: ${r.content}`);
    await agent.send({
      event: {
        case: "responseComplete",
        value: { sessionId: proc.sessionId, messageId: proc.messageId, content: "done" },
      },
    });
    const last = await drained;
    if (last?.eventType !== PipelineEventType.RESPONSE_COMPLETE)
      throw new Error(`turn ${i} failed: ${last?.pipelineError?.message ?? "no RESPONSE_COMPLETE"}`);
  };
  const floorTurn = async (i) => {
    for (let hop = 0; hop < 3; hop++) {
      await call.send({
        event: { case: "toolProposal", value: { callId: `${i}.${hop}`, toolName: "noop", argumentsJson: "{}" } },
      });
      await it.next();
    }
    const r = await bCap.invoke({ toolName: "noop", argsJson: args });
    if (r.error) throw new Error(`baseline call failed: ${r.error}`);
  };
  const turnFloor = [];
  const turnSamples = [];
  for (let i = 0; i < N_TURNS + 20; i += 10) {
    for (const [fn, out] of [
      [floorTurn, turnFloor],
      [engineTurn, turnSamples],
    ]) {
      for (let j = i; j < i + 10; j++) {
        const t = hr();
        await fn(j);
        if (j >= 20) out.push(ms(t));
      }
    }
  }
  call.end();
  user.close();
  agent.end();
  bCap.close();
  await Promise.all([engine.stop(), noop.stop()]);
  return {
    engine: summarize(engineSamples),
    floor: summarize(floor),
    turn: summarize(turnSamples),
    turnFloor: summarize(turnFloor),
  };
}

// ---------------------------------------------------------------- shared: Engine with the real Agent
/** An Engine (real Agent, built-ins) in its own process, as deployed; the client is this process. */
async function realEngine(model, extra = {}) {
  const engine = child("real-engine-child.mjs", [model.baseURL, extra.capabilities ?? "files-shell"]);
  const { address, token, readyMs } = await engine.first;
  const client = createClient(ClientService, address, { bearerToken: token });
  return {
    client,
    readyMs,
    close: () => {
      client.close();
      return engine.stop();
    },
  };
}

// ---------------------------------------------------------------- 2. time to first token
/**
 * A transport floor (bench/lib/relay-child.mjs): the relay and its agent in `agentArgs`' role.
 * Messages sent before the agent has connected wait in the relay for it.
 */
async function startRelay(relayArgs, agentArgs) {
  const relay = child("relay-child.mjs", ["engine", ...relayArgs]);
  const address = await relay.first;
  const agent = child("relay-child.mjs", [agentArgs[0], address, ...agentArgs.slice(1)]);
  const client = createClient(ClientService, address);
  return {
    client,
    stop: async () => {
      client.close();
      await Promise.all([agent.stop(), relay.stop()]);
    },
  };
}

/** Client → relay → echoing agent → relay → client on the bridge, no work at any hop (ms samples). */
async function transportFloor() {
  const relay = await startRelay([], ["echo-agent"]);
  const out = [];
  for (let i = 0; i < N_TTFT + 10; i++) {
    const t = hr();
    let first;
    for await (const ev of relay.client.sendMessage({ content: "hi" }))
      if (first === undefined && ev.eventType === PipelineEventType.LLM_TOKEN) first = ms(t);
    if (i >= 10) out.push(first);
  }
  await relay.stop();
  return out;
}

async function timeToFirstToken() {
  const model = await startModel("answer");
  // The baseline is the SDK as a user would make it (default fetch). The Agent's own hop to the
  // model (the Engine's gateway) is measured alone by bench/gateway.mjs.
  const directWith = async (openai) => {
    const out = [];
    for (let i = 0; i < N_TTFT + 10; i++) {
      const t = hr();
      const stream = await openai.chat.completions.create({
        model: "scripted-model",
        stream: true,
        messages: [{ role: "user", content: "hi" }],
      });
      let first;
      for await (const chunk of stream) if (first === undefined && chunk.choices[0]?.delta?.content) first = ms(t);
      if (i >= 10) out.push(first);
    }
    return out;
  };
  const direct = await directWith(new OpenAI({ baseURL: model.baseURL, apiKey: "sk-bench", maxRetries: 0 }));
  const floor = await transportFloor();
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
  return { engine: summarize(via), direct: summarize(direct), transport: summarize(floor) };
}

// ---------------------------------------------------------------- 3. concurrent sessions
async function concurrentSessions() {
  const model = await startModel("session");
  // Floor: the same turns (three model calls: load_tools, read_file, answer) made by the openai
  // SDK straight at the model, with the results Palisade would send back.
  const openai = new OpenAI({ baseURL: model.baseURL, apiKey: "sk-bench", maxRetries: 0 });
  const call = async (messages) => {
    const stream = await openai.chat.completions.create({ model: "scripted-model", stream: true, messages });
    for await (const _ of stream);
  };
  const user = { role: "user", content: "go" };
  const loadCall = {
    role: "assistant",
    tool_calls: [{ id: "c1", type: "function", function: { name: "load_tools", arguments: '{"groups":["files"]}' } }],
  };
  const readCall = {
    role: "assistant",
    tool_calls: [{ id: "c2", type: "function", function: { name: "files__read_file", arguments: '{"path":"x.txt"}' } }],
  };
  const directTurn = async () => {
    await call([user]);
    await call([user, loadCall, { role: "tool", tool_call_id: "c1", content: "Loaded 1 tools: files__read_file." }]);
    await call([
      user,
      loadCall,
      { role: "tool", tool_call_id: "c1", content: "Loaded 1 tools: files__read_file." },
      readCall,
      { role: "tool", tool_call_id: "c2", content: "x\n" },
    ]);
  };
  const e = await realEngine(model);
  const turn = () => completeTurn(e.client, "go");
  // Warm-up of both paths alike (JIT, keep-alive sockets), then each measured alone and 100 at once.
  await wall(directTurn, SESSIONS);
  await wall(turn, SESSIONS);
  const directOne = await wall(directTurn, 1);
  const directMany = await wall(directTurn, SESSIONS);
  const one = await wall(turn, 1);
  const many = await wall(turn, SESSIONS);
  await e.close();
  const hops = await hopsFloor(model);
  await model.close();
  return { one, many, directOne, directMany, ...hops };
}

/**
 * The same turns through every hop the design mandates and nothing else (bench/lib/relay-child.mjs):
 * client → relay → Agent (SDK → model ×3, two tool proposals, one Capability.Invoke) → client.
 */
async function hopsFloor(model) {
  const noop = await startNoop();
  const relay = await startRelay([noop.address], ["agent", model.baseURL]);
  const turn = () => completeTurn(relay.client, "go");
  await wall(turn, SESSIONS);
  const hopsOne = await wall(turn, 1);
  const hopsMany = await wall(turn, SESSIONS);
  await Promise.all([relay.stop(), noop.stop()]);
  return { hopsOne, hopsMany };
}

// ---------------------------------------------------------------- 4. cold start
async function coldStart() {
  const model = await startModel("answer");
  const samples = [];
  for (let i = 0; i < 3; i++) {
    const e = await realEngine(model, { capabilities: "all" });
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
  {
    benchmark: "1. tool call p50 (ms)",
    palisade: overhead.engine.p50,
    baseline: overhead.floor.p50,
    ratio: overhead.engine.p50 / overhead.floor.p50,
    goal: "≤ 1.5×",
  },
  {
    benchmark: "1. tool call p99 (ms)",
    palisade: overhead.engine.p99,
    baseline: overhead.floor.p99,
    ratio: overhead.engine.p99 / overhead.floor.p99,
    goal: "",
  },
  {
    benchmark: `1b. a turn per call p50 (ms, ${N_TURNS} turns)`,
    palisade: overhead.turn.p50,
    baseline: overhead.turnFloor.p50,
    ratio: overhead.turn.p50 / overhead.turnFloor.p50,
    goal: "(floor: same round trips, no work)",
  },
  {
    benchmark: "1b. a turn per call p99 (ms)",
    palisade: overhead.turn.p99,
    baseline: overhead.turnFloor.p99,
    ratio: overhead.turn.p99 / overhead.turnFloor.p99,
    goal: "",
  },
  {
    benchmark: "2. first token p50 (ms)",
    palisade: ttft.engine.p50,
    baseline: ttft.direct.p50,
    ratio: ttft.engine.p50 - ttft.direct.p50,
    goal: "≤ +3 ms (ratio col = delta)",
  },
  {
    benchmark: "2. first token p99 (ms)",
    palisade: ttft.engine.p99,
    baseline: ttft.direct.p99,
    ratio: ttft.engine.p99 - ttft.direct.p99,
    goal: "",
  },
  {
    benchmark: "2. transport floor: 4 hops, no work (ms)",
    palisade: ttft.transport.p50,
    baseline: 0,
    ratio: 0,
    goal: "client→Engine→Agent→Engine→client",
  },
  {
    benchmark: `3. ${SESSIONS} sessions wall (ms)`,
    palisade: conc.many,
    baseline: conc.one,
    ratio: conc.many / conc.one,
    goal: "≤ 2× (vs one session)",
  },
  {
    benchmark: `3. floor: ${SESSIONS} direct SDK turns (ms)`,
    palisade: conc.directMany,
    baseline: conc.directOne,
    ratio: conc.directMany / conc.directOne,
    goal: "same turns, no Palisade",
  },
  {
    benchmark: `3. ${SESSIONS} sessions vs floor (ms)`,
    palisade: conc.many,
    baseline: conc.directMany,
    ratio: conc.many / conc.directMany,
    goal: "",
  },
  {
    benchmark: `3. floor: ${SESSIONS} turns, mandated hops only (ms)`,
    palisade: conc.hopsMany,
    baseline: conc.hopsOne,
    ratio: conc.hopsMany / conc.hopsOne,
    goal: "gRPC + SDK, no work",
  },
  {
    benchmark: "4. cold start to ready p50 (ms)",
    palisade: cold.p50,
    baseline: 0,
    ratio: 0,
    goal: "Engine + Agent + all built-ins",
  },
];
printTable("Engine benchmarks (baseline measured in the same run)", rows);
console.log(`wrote ${writeResult("engine", { rows, overhead, ttft, concurrent: conc, coldStart: cold })}`);
process.exit(0);
