// Both codecs against Python's protobuf (Debian's python3-protobuf 3.21, C++ runtime, what
// grpcio uses): randomized messages of every Palisade message type, as encoded, with unknown
// fields added, with known fields sent under another wire type (top level and nested), and with
// an end-group tag on a known field. Python parses each input and encodes what it read; the
// fast codec and the protobuf-es path (toBinary over referenceDecode) must read the same
// message, which means writing the same bytes back, or refuse the bytes Python refuses.
import { toBinary } from "@bufbuild/protobuf";
import type { DescField, DescMessage } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { compileCodec } from "../../src/fast-codec.js";
import { file_palisade_v1_pipeline } from "../../src/gen/palisade/v1/pipeline_pb.js";
import { file_palisade_v1_shield } from "../../src/gen/palisade/v1/shield_pb.js";
import { file_palisade_v1_types } from "../../src/gen/palisade/v1/types_pb.js";
import { file_selu_capability_v1_capability } from "../../src/gen/selu/capability/v1/capability_pb.js";
import { referenceDecode, wireTypeOf } from "../../src/reference-decode.js";
import { Gen, messagesOf, rng } from "../fast-codec-fixtures.js";
import { SKIP_REASON, findPython, jsonLines, startPython, writeDescriptorSet } from "./python.js";

const python = findPython();
const FILES = [
  file_palisade_v1_types,
  file_palisade_v1_pipeline,
  file_palisade_v1_shield,
  file_selu_capability_v1_capability,
];
const SCHEMAS = FILES.flatMap(messagesOf);
const MESSAGES_PER_SCHEMA = 40;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

type Variant = "plain" | "unknown fields" | "wire-type mismatch" | "nested mismatch" | "end-group on a known field";
interface Input {
  schema: DescMessage;
  variant: Variant;
  bytes: Uint8Array;
}

const varint = (v: number): number[] => {
  const out: number[] = [];
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return out;
};
const tag = (no: number, wt: number): number[] => varint(no * 8 + wt);

/** One field `no` under wire type `wt` with a payload valid for that wire type. */
function fieldBytes(gen: Gen, no: number, wt: number): number[] {
  switch (wt) {
    case 0:
      return [...tag(no, 0), ...varint(gen.pick([0, 1, 127, 300, 2 ** 31]))];
    case 1:
      return [...tag(no, 1), ...gen.bytes(8)];
    case 5:
      return [...tag(no, 5), ...gen.bytes(4)];
    case 3:
      return [...tag(no, 3), ...tag(no, 4)];
    default: {
      const body = gen.pick([[], [0x61, 0x62], [...BOM, 0x78], [0x08, 0x01]]);
      return [...tag(no, 2), ...varint(body.length), ...body];
    }
  }
}

/** A wire type that does not encode `field` (packed is an encoding of repeated numbers). */
function otherWireType(gen: Gen, field: DescField): number {
  const own: number = wireTypeOf(field);
  const packable = field.fieldKind === "list" && field.listKind !== "message" && own !== 2;
  return gen.pick([0, 1, 2, 3, 5].filter((wt) => wt !== own && !(packable && wt === 2)));
}

function unknownNumber(gen: Gen, schema: DescMessage): number {
  for (;;) {
    const no = gen.pick([gen.int(40) + 1, gen.int(5000) + 1, gen.int(2 ** 29 - 20_000) + 20_000]);
    if (!schema.fields.some((f) => f.number === no)) return no;
  }
}

function inputsFor(schema: DescMessage): Input[] {
  const gen = new Gen(rng(schema.typeName.length * 104729 + schema.fields.length));
  const inputs: Input[] = [];
  for (let i = 0; i < MESSAGES_PER_SCHEMA; i++) {
    const plain = toBinary(schema, gen.message(schema));
    inputs.push({ schema, variant: "plain", bytes: plain });
    const extra: number[] = [];
    for (let n = gen.int(3) + 1; n > 0; n--)
      extra.push(...fieldBytes(gen, unknownNumber(gen, schema), gen.pick([0, 1, 2, 3, 5])));
    inputs.push({ schema, variant: "unknown fields", bytes: Buffer.concat([plain, Buffer.from(extra)]) });
    if (schema.fields.length === 0) continue;
    const field = gen.pick(schema.fields);
    inputs.push({
      schema,
      variant: "wire-type mismatch",
      bytes: Buffer.concat([plain, Buffer.from(fieldBytes(gen, field.number, otherWireType(gen, field)))]),
    });
    const holder = schema.fields.find(
      (f) =>
        (f.fieldKind === "message" || (f.fieldKind === "list" && f.listKind === "message")) &&
        f.message.fields.length > 0,
    );
    if (holder?.message && i % 4 === 0) {
      const inner = gen.pick(holder.message.fields);
      const body = fieldBytes(gen, inner.number, otherWireType(gen, inner));
      inputs.push({
        schema,
        variant: "nested mismatch",
        bytes: Buffer.concat([plain, Buffer.from([...tag(holder.number, 2), ...varint(body.length), ...body])]),
      });
    }
    if (i % 8 === 0)
      inputs.push({
        schema,
        variant: "end-group on a known field",
        bytes: Buffer.concat([plain, Buffer.from([...tag(field.number, 4), 0x01])]),
      });
  }
  return inputs;
}

type Answer = { ok: true; hex: string } | { ok: false; error: string };

/** What each codec writes back after reading `bytes`, or the error it throws. */
function ours(schema: DescMessage, bytes: Uint8Array): { fast: Answer; protobufEs: Answer } {
  const attempt = (f: () => Uint8Array): Answer => {
    try {
      return { ok: true, hex: Buffer.from(f()).toString("hex") };
    } catch (err) {
      return { ok: false, error: String(err) };
    }
  };
  const codec = compileCodec(schema);
  return {
    fast: attempt(() => codec.encode(codec.decode(bytes))),
    protobufEs: attempt(() => toBinary(schema, referenceDecode(schema, bytes))),
  };
}

describe.skipIf(!python)(
  `both codecs read what Python's protobuf reads${python ? "" : ` — skipped: ${SKIP_REASON}`}`,
  () => {
    it(`${MESSAGES_PER_SCHEMA} random messages of each of the ${SCHEMAS.length} Palisade message types, plain and with unknown, mismatched and malformed fields`, async () => {
      expect(SCHEMAS.length).toBeGreaterThanOrEqual(90);
      for (const s of SCHEMAS) expect(compileCodec(s).fallback, s.typeName).toBeUndefined();
      const inputs = SCHEMAS.flatMap(inputsFor);
      const { child, stderr } = startPython(python as string, "codec_roundtrip.py", [writeDescriptorSet(FILES)]);
      const answers = jsonLines<Answer>(child, stderr, AbortSignal.timeout(60_000));
      child.stdin.end(
        inputs
          .map((x) => JSON.stringify({ type: x.schema.typeName, hex: Buffer.from(x.bytes).toString("hex") }))
          .join("\n") + "\n",
      );
      const python_ = await answers;
      expect(python_).toHaveLength(inputs.length);

      const counts = new Map<string, number>();
      const mismatches: string[] = [];
      inputs.forEach((input, i) => {
        const py = python_[i] as Answer;
        const key = `${input.variant}: ${py.ok ? "parsed" : "refused"}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
        const { fast, protobufEs } = ours(input.schema, input.bytes);
        for (const [name, got] of [
          ["fast codec", fast],
          ["protobuf-es path", protobufEs],
        ] as const) {
          const same = py.ok ? got.ok && got.hex === py.hex : !got.ok;
          if (!same)
            mismatches.push(
              `${name}, ${input.schema.typeName} (${input.variant}) ${Buffer.from(input.bytes).toString("hex").slice(0, 160)}: python ${JSON.stringify(py).slice(0, 200)}, ours ${JSON.stringify(got).slice(0, 200)}`,
            );
        }
        // grpcio writes our own encodings back byte for byte: the same message on both sides.
        if (input.variant === "plain" && py.ok)
          expect(py.hex, input.schema.typeName).toBe(Buffer.from(input.bytes).toString("hex"));
      });
      expect(
        mismatches.slice(0, 10),
        `${mismatches.length} of ${inputs.length * 2} readings differ from Python's`,
      ).toEqual([]);
      // Every kind of input was exercised, and Python refused exactly the malformed ones.
      expect(Object.fromEntries(counts)).toMatchObject({
        "plain: parsed": SCHEMAS.length * MESSAGES_PER_SCHEMA,
        "unknown fields: parsed": SCHEMAS.length * MESSAGES_PER_SCHEMA,
        "wire-type mismatch: parsed": expect.any(Number) as number,
        "nested mismatch: parsed": expect.any(Number) as number,
        "end-group on a known field: refused": expect.any(Number) as number,
      });
      const withBom = inputs.filter((x) => x.variant === "plain" && Buffer.from(x.bytes).includes(BOM)).length;
      expect(withBom, "messages carrying a U+FEFF").toBeGreaterThan(100);
    }, 120_000);
  },
);
