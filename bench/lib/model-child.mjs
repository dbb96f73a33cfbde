// Child process of bench/engine.mjs: the scripted OpenAI-compatible model in its own process, as
// a real model endpoint would be, so its CPU never shares an event loop with the Engine or with
// the baseline's SDK client. argv[2] picks the script:
//   "answer"  — every request gets "hello there friend" (time to first token);
//   "session" — 50 ms per call; a user message gets load_tools(files), then files__read_file,
//               then "done" (one tool call per turn, after loading its group).
import { startScriptedServer } from "@palisade/testing";

const scripts = {
  answer: () => ({ fallback: { content: "hello there friend" } }),
  session: () => ({
    latencyMs: Number(process.env.BENCH_MODEL_LATENCY_MS ?? 50),
    rules: [
      { match: { role: "user" }, reply: { toolCalls: [{ name: "load_tools", arguments: { groups: ["files"] } }] } },
      {
        match: {
          toolResult: /Loaded|files/,
          when: (r) =>
            !r.messages.some((m) => (m.tool_calls ?? []).some((c) => c.function.name === "files__read_file")),
        },
        reply: { toolCalls: [{ name: "files__read_file", arguments: { path: "x.txt" } }] },
      },
    ],
    fallback: { content: "done" },
  }),
};
// "peer": a turn of bench/peers.mjs — user message → files__read_file(x.txt) → "done" (and
// load_tools first where it is offered instead of the file tools, as Palisade's Agent offers it).
scripts.peer = () => ({
  latencyMs: Number(process.env.BENCH_MODEL_LATENCY_MS ?? 0),
  fallback: (r) => {
    const offered = (r.tools ?? []).map((t) => t.function.name);
    const last = r.messages.at(-1);
    const read = { toolCalls: [{ name: "files__read_file", arguments: { path: "x.txt" } }] };
    if (last?.role === "user") {
      return offered.includes("files__read_file") || !offered.includes("load_tools")
        ? read
        : { toolCalls: [{ name: "load_tools", arguments: { groups: ["files"] } }] };
    }
    const answered = r.messages.findLast((m) => m.role === "assistant")?.tool_calls?.[0]?.function.name;
    return answered === "load_tools" ? read : { content: "done" };
  },
});
const script = scripts[process.argv[2]];
if (!script) throw new Error(`unknown model script ${process.argv[2]}: use ${Object.keys(scripts).join(" or ")}`);
const model = await startScriptedServer(script());
process.send(model.baseURL);
process.on("disconnect", () => void model.close().then(() => process.exit(0)));
