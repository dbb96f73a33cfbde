// Protobuf binary encode/decode cost per message: protobuf-es toBinary/fromBinary, measured in the
// same run, vs the schema-specialized codec of @palisade/protocol (fast-codec). protobuf-es is a
// reference, not a floor: it is the library the fast codec replaces, and slower than it.
// Runs compiled dist/ (`npx tsc -b` first):  node bench/codec.mjs [--quick]
// - hot: one message type in a tight loop (monomorphic call sites, the best case for both);
// - mixed: every message type of our protos interleaved, as in the Engine where call sites are
//   megamorphic; the four realistic messages are timed one by one inside that stream, and the
//   sum over all types is reported.
// Every encode is checked byte-for-byte against toBinary before timing. Writes bench/results/codec.json.
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { compileCodec, fastCodecStats } from "@palisade/protocol";
import * as capability from "@palisade/protocol/capability";
import * as pipeline from "@palisade/protocol/pipeline";
import * as shield from "@palisade/protocol/shield";
import * as types from "@palisade/protocol/types";
import { printTable, writeResult } from "./lib/stats.mjs";

const quick = process.argv.includes("--quick");
const ROUNDS = quick ? 5 : 15;
const MIX_PASSES = quick ? 40 : 200;

const enc = new TextEncoder();
const uuid = (n) => `0b7c${String(n).padStart(4, "0")}-1f2e-4c3d-9a8b-7c6d5e4f3a2b`;
const schemaProps = {
  type: "object",
  properties: {
    path: { type: "string", description: "File path relative to the workspace" },
    content: { type: "string" },
  },
  required: ["path"],
};
const tool = (i) => ({
  name: `tool_${i}`,
  description: `Does thing number ${i} with the workspace; returns a short summary.`,
  parametersJson: JSON.stringify(schemaProps),
  group: i % 2 ? "files" : "core",
});

const targets = [
  {
    name: "PipelineEvent LLM_TOKEN",
    schema: pipeline.PipelineEventSchema,
    msg: create(pipeline.PipelineEventSchema, {
      sessionId: uuid(1),
      messageId: uuid(2),
      eventType: pipeline.PipelineEventType.LLM_TOKEN,
      llmToken: { text: " the quick brown fox jumps" },
      timestampUnixMs: 1763800000000n,
      seq: 4711n,
    }),
  },
  {
    name: "EngineDirective ProcessRequest",
    schema: pipeline.EngineDirectiveSchema,
    msg: create(pipeline.EngineDirectiveSchema, {
      directive: {
        case: "process",
        value: {
          sessionId: uuid(3),
          messageId: uuid(4),
          content: "Please refactor the parser in src/parse.ts so that it handles nested quotes, then run the tests.",
          mode: types.SessionMode.NORMAL,
          source: "tui",
          systemPrompt: "You are Palisade, a careful coding agent. Use tools; never guess file contents. ".repeat(6),
          history: [
            { role: "user", content: "What does src/parse.ts do?" },
            {
              role: "assistant",
              content: "",
              toolCalls: [{ id: "call_1", name: "read_file", argumentsJson: '{"path":"src/parse.ts"}' }],
            },
            {
              role: "tool",
              toolCallId: "call_1",
              content: "export function parse(input: string) {\n  // ...\n}\n".repeat(4),
            },
            {
              role: "assistant",
              content: "It tokenizes the input and builds an AST; quotes are handled in readString().",
            },
          ],
          loadedGroups: ["core", "files"],
          tools: Array.from({ length: 8 }, (_, i) => tool(i)),
          model: "gpt-4.1-mini",
          maxToolRounds: 25,
        },
      },
    }),
  },
  {
    name: "AgentEvent ToolCallProposed",
    schema: pipeline.AgentEventSchema,
    msg: create(pipeline.AgentEventSchema, {
      event: {
        case: "toolProposal",
        value: {
          sessionId: uuid(5),
          messageId: uuid(6),
          callId: "call_7",
          toolName: "read_file",
          argumentsJson: '{"path":"a.ts"}',
        },
      },
    }),
  },
  {
    name: "Selu InvokeRequest",
    schema: capability.InvokeRequestSchema,
    msg: create(capability.InvokeRequestSchema, {
      toolName: "documents.search",
      argsJson: enc.encode(
        JSON.stringify({
          query: "quarterly report 2026",
          limit: 20,
          filters: { mime: ["application/pdf"], after: "2026-01-01" },
        }),
      ),
      configJson: enc.encode(JSON.stringify({ root: "/home/dev/docs", index: "bm25" })),
      sessionId: uuid(7),
      capabilityId: "selu.documents",
      threadId: uuid(8),
    }),
  },
];

/** A deterministic, fully populated message of any schema (for the megamorphic mix). */
function fill(schema, depth = 0) {
  const init = {};
  const value = (f) => {
    switch (f.fieldKind) {
      case "scalar":
        return (
          { 9: `${f.name}-value`, 12: enc.encode(f.name), 8: true, 1: 0.75, 3: 1763800000000n, 4: 123456789n }[
            f.scalar
          ] ?? 42
        );
      case "enum":
        return f.enum.values[1]?.number ?? 0;
      case "message":
        return depth < 2 ? fill(f.message, depth + 1) : undefined;
      case "list":
        if (f.listKind === "message") return depth < 2 ? [fill(f.message, depth + 1), fill(f.message, depth + 1)] : [];
        return f.listKind === "enum" ? [1, 2] : f.scalar === 9 ? ["a", "b"] : [];
    }
  };
  for (const m of schema.members) {
    if (m.kind === "oneof") init[m.localName] = { case: m.fields[0].localName, value: value(m.fields[0]) };
    else init[m.localName] = value(m);
  }
  return create(schema, init);
}

const files = [
  types.file_palisade_v1_types,
  pipeline.file_palisade_v1_pipeline,
  shield.file_palisade_v1_shield,
  capability.file_selu_capability_v1_capability,
];
const mix = files.flatMap((f) => f.messages).map((schema) => ({ name: schema.name, schema, msg: fill(schema) }));

const impls = [
  {
    name: "protobuf-es",
    make: (schema) => ({ encode: (m) => toBinary(schema, m), decode: (b) => fromBinary(schema, b) }),
  },
  { name: "fast", make: (schema) => compileCodec(schema) },
];

for (const t of [...targets, ...mix]) {
  t.bytes = toBinary(t.schema, t.msg);
  const fast = compileCodec(t.schema);
  if (fast.fallback) throw new Error(`${t.schema.typeName} is not on the fast path: ${fast.fallback}`);
  if (!Buffer.from(fast.encode(t.msg)).equals(Buffer.from(t.bytes)))
    throw new Error(`${t.schema.typeName}: fast encode differs from toBinary`);
}

let sink = 0;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** µs per operation in a tight loop: median over rounds of ~20 ms each, after a warm-up. */
function hotLoop(op) {
  let n = 200;
  for (;;) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) sink += op();
    if (Number(process.hrtime.bigint() - t) > 20e6 || n > 5e6) break;
    n *= 2;
  }
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) sink += op();
    rounds.push(Number(process.hrtime.bigint() - t) / 1e3 / n);
  }
  return median(rounds);
}

// Warm both implementations up on the targets before timing anything.
for (const impl of impls) {
  for (const t of targets) {
    const c = impl.make(t.schema);
    for (let i = 0; i < 3000; i++) sink += c.encode(t.msg).length + (c.decode(t.bytes) === undefined ? 0 : 1);
  }
}

const hotRows = [];
for (const t of targets) {
  const row = { message: t.name, bytes: t.bytes.length };
  for (const impl of impls) {
    const c = impl.make(t.schema);
    row[`${impl.name} enc µs`] = hotLoop(() => c.encode(t.msg).length);
    row[`${impl.name} dec µs`] = hotLoop(() => (c.decode(t.bytes) === undefined ? 0 : 1));
  }
  row["enc ratio"] = row["protobuf-es enc µs"] / row["fast enc µs"];
  row["dec ratio"] = row["protobuf-es dec µs"] / row["fast dec µs"];
  hotRows.push(row);
}
printTable("hot loop: one message type, µs per operation (median of rounds)", hotRows);

// Mixed: each pass goes through all message types (shuffled) and the targets, timing each
// operation alone. Each implementation runs its own passes (as when the whole process uses
// it); interleaving both would charge protobuf-es's garbage and cache misses to the fast codec.
const timerCost = median(
  Array.from({ length: 10000 }, () => {
    const t = process.hrtime.bigint();
    return Number(process.hrtime.bigint() - t) / 1e3;
  }),
);
const stream = [...mix, ...targets];
const samples = impls.map(() => new Map(stream.map((t) => [t, { enc: [], dec: [] }])));
impls.forEach((impl, i) => {
  const codecs = new Map(stream.map((t) => [t, impl.make(t.schema)]));
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  for (let pass = 0; pass < MIX_PASSES; pass++) {
    const order = [...stream].sort(() => rand() - 0.5);
    for (const t of order) {
      const c = codecs.get(t);
      let s = process.hrtime.bigint();
      sink += c.encode(t.msg).length;
      const e = Number(process.hrtime.bigint() - s) / 1e3;
      s = process.hrtime.bigint();
      sink += c.decode(t.bytes) === undefined ? 0 : 1;
      const d = Number(process.hrtime.bigint() - s) / 1e3;
      if (pass >= MIX_PASSES / 10) {
        samples[i].get(t).enc.push(Math.max(0, e - timerCost));
        samples[i].get(t).dec.push(Math.max(0, d - timerCost));
      }
    }
  }
});
const mixedRows = targets.map((t) => {
  const row = { message: t.name, bytes: t.bytes.length };
  impls.forEach((impl, i) => {
    row[`${impl.name} enc µs`] = median(samples[i].get(t).enc);
    row[`${impl.name} dec µs`] = median(samples[i].get(t).dec);
  });
  row["enc ratio"] = row["protobuf-es enc µs"] / row["fast enc µs"];
  row["dec ratio"] = row["protobuf-es dec µs"] / row["fast dec µs"];
  return row;
});
const total = impls.map((_, i) =>
  mix.reduce((sum, t) => sum + median(samples[i].get(t).enc) + median(samples[i].get(t).dec), 0),
);
mixedRows.push({
  message: `all ${mix.length} types, enc+dec summed`,
  bytes: mix.reduce((s, t) => s + t.bytes.length, 0),
  "protobuf-es enc µs": "",
  "protobuf-es dec µs": total[0],
  "fast enc µs": "",
  "fast dec µs": total[1],
  "enc ratio": "",
  "dec ratio": total[0] / total[1],
});
printTable(
  `mixed: ${mix.length + targets.length} message types interleaved, ${MIX_PASSES} passes, µs per operation (median, timer cost ${timerCost.toFixed(3)} µs subtracted)`,
  mixedRows,
);
if (fastCodecStats.encodeFallbacks !== 0)
  throw new Error(`${fastCodecStats.encodeFallbacks} encodes left the fast path`);
console.log(`wrote ${writeResult("codec", { hot: hotRows, mixed: mixedRows, timerCostUs: timerCost, sink })}`);
