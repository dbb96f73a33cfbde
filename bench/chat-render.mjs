// Chat rendering: a 20,000-token Markdown answer streamed at 1,000 tokens/s through the real
// chat (ChatController → reducer → ink ChatApp, compiled dist/) into a 120×40 pseudo terminal.
// Reports the delay from a token's arrival to the frame that shows it (p50/p95/p99) and CPU.
// Baselines in the same run: the same stream through the reducer only (no rendering), an ink
// app that only prints the tail of the text (ink's frame-pacing floor), and raw writes.
// Run `npx tsc -b` first. TOKENS=2000 for a quick run.
import { Writable, PassThrough } from "node:stream";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
delete process.env.CI; // ink prints only the last frame in CI
process.env.NODE_ENV = "production";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const cli = (p) => import(join(root, "apps/cli/dist", p));
const { ChatController } = await cli("tui/controller.js");
const { ChatApp } = await cli("tui/ChatApp.js");
const { initialState, update } = await cli("tui/state/reducer.js");
const { create } = await import("@bufbuild/protobuf");
const { PipelineEventSchema, PipelineEventType } = await import("@palisade/protocol/pipeline");
const { StatusResponseSchema } = await import("@palisade/protocol/pipeline");
const { render, Text } = await import("ink");
const React = await import("react");
const { summarize, printTable, writeResult } = await import("./lib/stats.mjs");

const TOKENS = Number(process.env.TOKENS ?? 20_000);
const RATE = Number(process.env.RATE ?? 1000); // tokens per second

/** A realistic answer: headings, paragraphs, lists, fenced code, split into word tokens. */
function answerTokens(n) {
  const words =
    "the engine decides every tool call and the shield checks arguments before anything runs in the workspace".split(
      " ",
    );
  const out = [];
  let i = 0;
  while (out.length < n) {
    const block = i++ % 6;
    if (block === 0) out.push("\n\n## ", "Section ", `${i}\n\n`);
    else if (block === 2) for (let k = 0; k < 5; k++) out.push("- ", "item ", `**${k}** `, "does ", "something\n");
    else if (block === 4) {
      out.push("\n```ts\n");
      for (let k = 0; k < 8; k++) out.push("const ", `v${k} `, "= ", "await ", "shield.evaluate(", "action);\n");
      out.push("```\n\n");
    } else for (let k = 0; k < 60; k++) out.push(words[(i * 7 + k) % words.length] + (k % 15 === 14 ? ".\n\n" : " "));
  }
  return out.slice(0, n);
}
let tokens = answerTokens(TOKENS);

/**
 * A 120×40 "terminal". ink computes a frame in onRender but writes the dynamic part through a
 * throttle, so a token counts as shown when the first write after the render that included it
 * reaches the terminal: `onWrite` is called on every write.
 */
function fakeTerminal(onWrite = () => {}) {
  const stdout = new Writable({
    write(_c, _e, cb) {
      this.bytes += _c.length;
      onWrite();
      cb();
    },
  });
  Object.assign(stdout, { bytes: 0, isTTY: true, columns: 120, rows: 40 });
  const stdin = new PassThrough();
  Object.assign(stdin, { isTTY: true, setRawMode() {}, ref() {}, unref() {} });
  return { stdout, stdin };
}

const ev = (eventType, init) => create(PipelineEventSchema, { sessionId: "s", messageId: "m", eventType, ...init });

/** Yields the answer at RATE tokens/s; `onToken(i, scheduledMs)` records arrivals. */
async function* stream(onToken) {
  yield ev(PipelineEventType.MESSAGE_ACCEPTED, { messageAccepted: { session: { id: "s", title: "bench" } } });
  const t0 = performance.now();
  let i = 0;
  while (i < tokens.length) {
    const due = Math.min(tokens.length, Math.floor(((performance.now() - t0) * RATE) / 1000) + 1);
    for (; i < due; i++) {
      onToken(i, t0 + (i * 1000) / RATE);
      yield ev(PipelineEventType.LLM_TOKEN, { llmToken: { text: tokens[i] } });
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  yield ev(PipelineEventType.RESPONSE_COMPLETE, { responseComplete: { content: "" } });
}

function cpuPercent(startCpu, startWall) {
  const c = process.cpuUsage(startCpu);
  return (100 * (c.user + c.system)) / 1000 / (performance.now() - startWall);
}

async function runChat(maxFps) {
  const arrivals = new Float64Array(tokens.length);
  let delivered = 0;
  let framed = 0;
  const delays = [];
  let frames = 0;
  let rendered = 0; // tokens included in the latest rendered frame
  let finish;
  const finished = new Promise((r) => (finish = r));
  let controller;
  const { stdout, stdin } = fakeTerminal(() => {
    const now = performance.now();
    for (; framed < rendered; framed++) delays.push(now - arrivals[framed]);
    if (framed === tokens.length && controller && !controller.getState().turn) finish();
  });
  const client = {
    sendMessage: () =>
      stream((i, at) => {
        arrivals[i] = at;
        delivered = i + 1;
      }),
    getStatus: async () => create(StatusResponseSchema, { model: "bench", modelConfigured: true }),
    close() {},
  };
  const link = { client, reconnect: async () => client, close() {} };
  const state = initialState({ now: Date.now(), columns: 120, rows: 40, model: "bench", connection: "connected" });
  controller = new ChatController(link, state, {
    onExit() {},
    clearScreen() {},
    workspace: "/tmp",
    cwd: "/tmp",
    heartbeatMs: 0,
  });
  const onRender = () => {
    frames++;
    rendered = delivered;
  };
  const app = render(React.createElement(ChatApp, { controller }), {
    stdout,
    stdin,
    stderr: stdout,
    exitOnCtrlC: false,
    patchConsole: false,
    maxFps,
    onRender,
  });
  controller.start();
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  controller.dispatch({ type: "submit", text: "write a long answer" });
  await finished;
  const cpu = cpuPercent(cpu0, wall0);
  const wall = performance.now() - wall0;
  app.unmount();
  controller.close();
  return { delays, frames, cpu, wall, bytes: stdout.bytes };
}

async function runReducerOnly() {
  let s = initialState({ now: Date.now(), columns: 120, rows: 40, connection: "connected" });
  s = update(s, { type: "submit", text: "x" }).state;
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  for await (const e of stream(() => {})) s = update(s, { type: "event", event: e }).state;
  return { cpu: cpuPercent(cpu0, wall0), wall: performance.now() - wall0 };
}

async function runInkTail(maxFps) {
  const arrivals = new Float64Array(tokens.length);
  let delivered = 0;
  let framed = 0;
  const delays = [];
  let frames = 0;
  let text = "";
  let setText;
  const Tail = () => {
    const [t, set] = React.useState("");
    setText = set;
    return React.createElement(Text, null, t.slice(-2000));
  };
  let rendered = 0;
  const { stdout, stdin } = fakeTerminal(() => {
    const now = performance.now();
    for (; framed < rendered; framed++) delays.push(now - arrivals[framed]);
  });
  const app = render(React.createElement(Tail), {
    stdout,
    stdin,
    exitOnCtrlC: false,
    patchConsole: false,
    maxFps,
    onRender: () => {
      frames++;
      rendered = delivered;
    },
  });
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  for await (const e of stream((i, at) => {
    arrivals[i] = at;
    delivered = i + 1;
  })) {
    if (e.llmToken) setText((text += e.llmToken.text));
  }
  const end = performance.now() + 2000;
  while (framed < delivered && performance.now() < end) await new Promise((r) => setTimeout(r, 5));
  const cpu = cpuPercent(cpu0, wall0);
  const wall = performance.now() - wall0;
  app.unmount();
  return { delays, frames, cpu, wall, bytes: stdout.bytes };
}

async function runRawWrites() {
  const { stdout } = fakeTerminal();
  const delays = [];
  const arrivals = new Float64Array(tokens.length);
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  for await (const e of stream((i, at) => (arrivals[i] = at))) {
    if (e.llmToken) {
      stdout.write(e.llmToken.text);
      delays.push(performance.now() - arrivals[delays.length]);
    }
  }
  return {
    delays,
    frames: delays.length,
    cpu: cpuPercent(cpu0, wall0),
    wall: performance.now() - wall0,
    bytes: stdout.bytes,
  };
}

const row = (name, r) => {
  const d = r.delays ? summarize(r.delays) : undefined;
  return {
    renderer: name,
    "p50 ms": d ? Number(d.p50.toFixed(1)) : "-",
    "p95 ms": d ? Number(d.p95.toFixed(1)) : "-",
    "p99 ms": d ? Number(d.p99.toFixed(1)) : "-",
    "max ms": d ? Number(Math.max(...r.delays).toFixed(1)) : "-",
    renders: r.frames ?? "-",
    "CPU % of a core": Number(r.cpu.toFixed(1)),
    "wall s": Number((r.wall / 1000).toFixed(1)),
  };
};

console.log(`${TOKENS} tokens at ${RATE} tokens/s into a 120×40 terminal (Node ${process.version})`);
const results = {};
const all = tokens;
tokens = all.slice(0, 1500);
await runChat(60); // warm-up (JIT, module init); discarded
tokens = all;
results.chat_30fps = await runChat(30);
results.chat_60fps = await runChat(60);
results.ink_tail_30fps = await runInkTail(30);
results.reducer_only = await runReducerOnly();
results.raw_write = await runRawWrites();
const rows = [
  row("palisade chat (ink, maxFps 30 = default)", results.chat_30fps),
  row("palisade chat (ink, maxFps 60)", results.chat_60fps),
  row("baseline: ink printing the text tail", results.ink_tail_30fps),
  row("baseline: reducer only, no rendering", results.reducer_only),
  row("baseline: raw writes (floor)", results.raw_write),
];
printTable("Token arrival → frame delay and CPU", rows);
const file = writeResult("chat-render", { tokens: TOKENS, rate: RATE, rows });
console.log(`\nwrote ${file}`);
process.exit(0);
