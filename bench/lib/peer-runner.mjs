// Child process of bench/peers.mjs: runs the benchmark's turns in-process with one of Palisade's
// peers, against the scripted model process, so its CPU is its own. argv: <"agents" | "sdk">
// <model base URL> <workspace>. IPC: see the message handler below.
// A turn is the same everywhere: user message → the model calls files__read_file → the tool reads
// a file of the workspace → the model answers; both model calls stream.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import OpenAI from "openai";
import { z } from "zod";
import { Agent, OpenAIChatCompletionsModel, run, setTracingDisabled, tool } from "@openai/agents";

const [kind, baseURL, workspace] = process.argv.slice(2);
const MODEL = "scripted-model";
// Retries as Palisade's Agent makes them (model.max_retries): under load, a kept-alive connection
// the model server closes as a request goes out is a "Connection error", retried, not a failed run.
const client = new OpenAI({ baseURL, apiKey: "sk-bench", maxRetries: 3 });

/** The tool's work, identical for both peers: read a workspace file, answer JSON. */
async function readWorkspaceFile(path) {
  const content = await readFile(join(workspace, path), "utf8");
  return JSON.stringify({ path, content });
}

const TOOL_DEF = {
  type: "function",
  function: {
    name: "files__read_file",
    description: "Read a text file of the workspace.",
    parameters: {
      type: "object",
      properties: { path: { type: "string" } },
      required: ["path"],
      additionalProperties: false,
    },
  },
};

/** One conversation with the bare openai SDK: the loop an application writes by hand. */
function sdkConversation() {
  const messages = [{ role: "system", content: "You are a helpful assistant." }];
  return async function turn(text) {
    messages.push({ role: "user", content: text });
    for (;;) {
      const stream = await client.chat.completions.create({ model: MODEL, messages, tools: [TOOL_DEF], stream: true });
      let content = "";
      const calls = [];
      for await (const chunk of stream) {
        const delta = chunk.choices[0]?.delta;
        if (!delta) continue;
        if (delta.content) content += delta.content;
        for (const tc of delta.tool_calls ?? []) {
          const c = (calls[tc.index] ??= { id: "", name: "", arguments: "" });
          if (tc.id) c.id = tc.id;
          if (tc.function?.name) c.name += tc.function.name;
          if (tc.function?.arguments) c.arguments += tc.function.arguments;
        }
      }
      if (calls.length === 0) {
        messages.push({ role: "assistant", content });
        return content;
      }
      messages.push({
        role: "assistant",
        content: content || null,
        tool_calls: calls.map((c) => ({
          id: c.id,
          type: "function",
          function: { name: c.name, arguments: c.arguments },
        })),
      });
      for (const c of calls)
        messages.push({
          role: "tool",
          tool_call_id: c.id,
          content: await readWorkspaceFile(JSON.parse(c.arguments).path),
        });
    }
  };
}

/** One conversation with OpenAI's Agents SDK: a plain function tool, tracing off, streamed. */
function agentsConversation() {
  setTracingDisabled(true);
  const readTool = tool({
    name: "files__read_file",
    description: "Read a text file of the workspace.",
    parameters: z.object({ path: z.string() }),
    execute: async ({ path }) => readWorkspaceFile(path),
  });
  const agent = new Agent({
    name: "bench",
    instructions: "You are a helpful assistant.",
    tools: [readTool],
    model: new OpenAIChatCompletionsModel(client, MODEL),
  });
  let history = [];
  return async function turn(text) {
    const result = await run(agent, [...history, { role: "user", content: text }], { stream: true });
    for await (const _event of result) void _event;
    await result.completed;
    history = result.history;
    return result.finalOutput;
  };
}

const conversation = kind === "agents" ? agentsConversation : kind === "sdk" ? sdkConversation : undefined;
if (!conversation) throw new Error(`unknown peer ${kind}: use agents or sdk`);

/** A conversation after its warm-up turn (which the measured turns do not include). */
async function warmConversation() {
  const turn = conversation();
  const warm = await turn("read x.txt");
  if (warm !== "done") throw new Error(`${kind}: the warm-up turn answered ${JSON.stringify(warm)}, not "done"`);
  return turn;
}

async function measuredTurns(turn, turns, latencies) {
  for (let i = 0; i < turns; i++) {
    const t = process.hrtime.bigint();
    const out = await turn("read x.txt");
    latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
    if (out !== "done") throw new Error(`${kind}: a turn answered ${JSON.stringify(out)}`);
  }
}

// { prepare: n } opens n conversations (a warm-up turn each) and answers { ready }; the next
// { turns } runs that many measured turns in each of them at once: { latencies, wallMs }.
let prepared = [];
process.on("message", (req) => {
  (async () => {
    if (req.prepare !== undefined) {
      prepared = await Promise.all(Array.from({ length: req.prepare }, warmConversation));
      return { ready: true };
    }
    const latencies = [];
    const t = process.hrtime.bigint();
    await Promise.all(prepared.map((turn) => measuredTurns(turn, req.turns, latencies)));
    return { latencies, wallMs: Number(process.hrtime.bigint() - t) / 1e6 };
  })().then(
    (answer) => process.send(answer),
    (err) => process.send({ error: err instanceof Error ? err.stack : String(err) }),
  );
});
process.on("disconnect", () => process.exit(0));
process.send({ ready: true });
