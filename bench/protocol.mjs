// Unary round trip and bidi one-way throughput through the bridge, next to raw grpc-js calls with
// the same channel options (the floor), against servers in a separate process. Raw grpc-js with
// its default options is printed as a reference only: its per-RPC retry buffer makes a long
// one-way stream quadratic, so it collapses and is no floor. Run: node bench/protocol.mjs
import { fork } from "node:child_process";
import { create } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { createClient, toServiceDefinition } from "@palisade/protocol";
import { AgentEventSchema, AgentService } from "@palisade/protocol/pipeline";
import { Capability, InvokeRequestSchema } from "@palisade/protocol/capability";
import { printTable, summarize, writeResult } from "./lib/stats.mjs";

const UNARY = Number(process.env.BENCH_UNARY ?? 5000);
const BIDI = Number(process.env.BENCH_BIDI ?? 100_000);

const child = fork(new URL("./lib/protocol-server.mjs", import.meta.url));
const addrs = await new Promise((r) => child.once("message", r));

async function timeUnary(call) {
  for (let i = 0; i < 500; i++) await call(); // warm-up
  const samples = [];
  for (let i = 0; i < UNARY; i++) {
    const t = process.hrtime.bigint();
    await call();
    samples.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return summarize(samples);
}

const args = new TextEncoder().encode('{"x":1}');
const bridgedCap = createClient(Capability, addrs.bridged);
const bridgedUnary = await timeUnary(() => bridgedCap.invoke({ toolName: "t", argsJson: args }));

const capDef = toServiceDefinition(Capability);
// The bridge's channel options on a bare grpc-js client (the retry-buffer fix, channelz off).
const FLOOR_OPTIONS = { "grpc.per_rpc_retry_buffer_size": 16384, "grpc.enable_channelz": 0 };
const rawClient = new grpc.Client(addrs.raw, grpc.credentials.createInsecure(), FLOOR_OPTIONS);
const rawReq = create(InvokeRequestSchema, { toolName: "t", argsJson: args });
const rawUnary = await timeUnary(
  () =>
    new Promise((res, rej) =>
      rawClient.makeUnaryRequest(
        capDef.invoke.path,
        capDef.invoke.requestSerialize,
        capDef.invoke.responseDeserialize,
        rawReq,
        (e, r) => (e ? rej(e) : res(r)),
      ),
    ),
);

async function bidiBridged() {
  const client = createClient(AgentService, addrs.bridged);
  const t = process.hrtime.bigint();
  const call = client.runSession();
  for (let i = 0; i < BIDI; i++)
    await call.send({ event: { case: "llmTokenEmitted", value: { sessionId: "s", messageId: "m", text: "tok" } } });
  call.end();
  let got = "";
  for await (const d of call) got = d.directive.value.reason;
  const s = Number(process.hrtime.bigint() - t) / 1e9;
  client.close();
  if (Number(got) !== BIDI) throw new Error(`bridged bidi lost messages: ${got}/${BIDI}`);
  return BIDI / s;
}

async function bidiRaw(options) {
  const def = toServiceDefinition(AgentService).runSession;
  const client = new grpc.Client(addrs.raw, grpc.credentials.createInsecure(), options);
  const t = process.hrtime.bigint();
  const call = client.makeBidiStreamRequest(def.path, def.requestSerialize, def.responseDeserialize);
  const done = new Promise((res, rej) => {
    let got = "";
    call.on("data", (d) => (got = d.directive.value.reason));
    call.on("end", () => res(got));
    call.on("error", rej);
  });
  const msg = create(AgentEventSchema, {
    event: { case: "llmTokenEmitted", value: { sessionId: "s", messageId: "m", text: "tok" } },
  });
  for (let i = 0; i < BIDI; i++) {
    if (!call.write(msg)) await new Promise((r) => call.once("drain", r));
  }
  call.end();
  const got = await done;
  const s = Number(process.hrtime.bigint() - t) / 1e9;
  client.close();
  return { rate: BIDI / s, complete: Number(got) === BIDI };
}

const bridgedRate = await bidiBridged();
const raw = await bidiRaw(FLOOR_OPTIONS);
const rawDefault = await bidiRaw({});

const rows = [
  {
    metric: "unary p50 (ms)",
    bridge: bridgedUnary.p50,
    raw_grpc_js: rawUnary.p50,
    ratio: bridgedUnary.p50 / rawUnary.p50,
  },
  {
    metric: "unary p99 (ms)",
    bridge: bridgedUnary.p99,
    raw_grpc_js: rawUnary.p99,
    ratio: bridgedUnary.p99 / rawUnary.p99,
  },
  {
    metric: `bidi one-way msgs/s (${BIDI})`,
    bridge: Math.round(bridgedRate),
    raw_grpc_js: Math.round(raw.rate),
    ratio: bridgedRate / raw.rate,
  },
  {
    metric: "reference, not a floor: bidi msgs/s, grpc-js default options (collapses)",
    bridge: Math.round(bridgedRate),
    raw_grpc_js: Math.round(rawDefault.rate),
    ratio: bridgedRate / rawDefault.rate,
  },
];
printTable(
  "gRPC bridge vs raw @grpc/grpc-js with the same channel options (floor), TCP loopback, server in another process",
  rows,
);
if (!raw.complete || !rawDefault.complete) console.log("note: a raw grpc-js bidi stream did not deliver every message");
console.log(`wrote ${writeResult("protocol", { rows, unary: { bridge: bridgedUnary, raw: rawUnary } })}`);
bridgedCap.close();
rawClient.close();
child.disconnect();
