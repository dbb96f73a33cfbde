// The added cost per model call of the Engine's model gateway: the openai SDK as the Agent makes
// it (undici over the gateway's unix socket, the gateway in its own process forwarding to the
// model) against the same SDK calling the scripted model directly (default fetch), in one run,
// calls interleaved. Each sample is one streamed call, request to last chunk. The model runs in
// its own process. Goal: <= 1 ms added at p50. Run after `make build`: node bench/gateway.mjs
import { loadavg } from "node:os";
import OpenAI from "openai";
import { sdkTransport } from "@palisade/agent";
import { printTable, summarize, writeResult } from "./lib/stats.mjs";
import { child } from "./lib/child.mjs";

const N = Number(process.env.BENCH_GATEWAY_N ?? 1000);
const WARMUP = 50;

const model = child("model-child.mjs", ["answer"]);
const baseURL = await model.first;
const gw = child("gateway-child.mjs", [baseURL]);
const socket = await gw.first;

const direct = new OpenAI({ baseURL, apiKey: "sk-bench", maxRetries: 0 });
const t = await sdkTransport({ gateway: socket, credential: "bench-credential" });
const via = new OpenAI({ baseURL: t.baseURL, apiKey: t.apiKey, fetch: t.fetch, maxRetries: 0 });

const call = async (client) => {
  const start = process.hrtime.bigint();
  const stream = await client.chat.completions.create({
    model: "scripted-model",
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: "user", content: "hi" }],
  });
  let text = "";
  for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
  if (text !== "hello there friend") throw new Error(`unexpected answer ${JSON.stringify(text)}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
};

const d = [];
const g = [];
for (let i = 0; i < N + WARMUP; i++) {
  // Alternate which goes first, so neither always runs on a warmer loop.
  const [a, b] = i % 2 === 0 ? [await call(direct), await call(via)] : [await call(via), await call(direct)].reverse();
  if (i >= WARMUP) {
    d.push(a);
    g.push(b);
  }
}
await gw.stop();
await model.stop();

const sd = summarize(d);
const sg = summarize(g);
const load = loadavg()[0];
printTable(`One streamed model call, ms (n=${N} each, interleaved; load ${load.toFixed(2)})`, [
  { path: "openai SDK → scripted model (baseline)", ...sd },
  { path: "openai SDK → gateway (unix socket) → scripted model", ...sg },
]);
const added = { p50: sg.p50 - sd.p50, p99: sg.p99 - sd.p99 };
console.log(
  `gateway hop adds ${added.p50.toFixed(3)} ms at p50 (goal <= 1 ms: ${added.p50 <= 1 ? "met" : "NOT met"}), ${added.p99.toFixed(3)} ms at p99`,
);
console.log(`wrote ${writeResult("gateway", { n: N, load, baseline: sd, gateway: sg, addedMs: added, goalP50Ms: 1 })}`);
