// The fast codec must be a drop-in for protobuf-es toBinary and for referenceDecode (protobuf-es
// 2.13's reader under the reference implementations' rules on wire types and BOMs): same bytes,
// same messages, and on hostile input it throws where protobuf-es's reader throws. Everything
// here is differential against those two; interop/codec-interop.test.ts checks both codecs
// against Python's protobuf (C++).
import { create, equals, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { DescMessage } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema, StructSchema, TimestampSchema } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import { compileCodec, fastCodecStats } from "../src/fast-codec.js";
import { referenceDecode } from "../src/reference-decode.js";
import { file_palisade_v1_pipeline } from "../src/gen/palisade/v1/pipeline_pb.js";
import { file_palisade_v1_shield } from "../src/gen/palisade/v1/shield_pb.js";
import { file_palisade_v1_types } from "../src/gen/palisade/v1/types_pb.js";
import { file_selu_capability_v1_capability } from "../src/gen/selu/capability/v1/capability_pb.js";
import { Gen, fuzzMessage, messagesOf, rng } from "./fast-codec-fixtures.js";

const FILES = [
  file_palisade_v1_types,
  file_palisade_v1_pipeline,
  file_palisade_v1_shield,
  file_selu_capability_v1_capability,
];
const PROJECT_SCHEMAS = FILES.flatMap(messagesOf);
const ALL = fuzzMessage("All");
const SCHEMAS = [...PROJECT_SCHEMAS, ALL];
const MESSAGES_PER_SCHEMA = 40;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const FUZZ_ITERATIONS = 20_000;

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };
function outcome(f: () => unknown): Outcome {
  try {
    return { ok: true, value: f() };
  } catch (error) {
    return { ok: false, error };
  }
}

/** decode(bytes) must equal referenceDecode(bytes), or both must throw. */
function expectSameDecode(schema: DescMessage, bytes: Uint8Array, label: string): boolean {
  const want = outcome(() => referenceDecode(schema, bytes));
  const got = outcome(() => compileCodec(schema).decode(bytes));
  if (want.ok !== got.ok) {
    const detail = want.ok
      ? `fast codec threw ${String((got as { error: unknown }).error)}`
      : `referenceDecode threw ${String(want.error)}, fast codec did not`;
    expect.fail(`${schema.typeName} ${label}: ${detail}; bytes ${Buffer.from(bytes).toString("hex")}`);
  }
  if (want.ok && got.ok) {
    expect(got.value, `${schema.typeName} ${label}`).toStrictEqual(want.value);
    // equals() says NaN != NaN, so compare with what protobuf-es says about its own result.
    const self = equals(schema, want.value as never, referenceDecode(schema, bytes));
    expect(equals(schema, got.value as never, want.value as never)).toBe(self);
  }
  return want.ok;
}

describe("fast codec vs protobuf-es on every project schema", () => {
  it("covers every message type of the generated files without falling back", () => {
    expect(PROJECT_SCHEMAS.length).toBeGreaterThanOrEqual(90);
    for (const schema of SCHEMAS) expect(compileCodec(schema).fallback, schema.typeName).toBeUndefined();
  });

  it.each(SCHEMAS.map((s) => [s.typeName, s] as const))(
    "%s: random messages encode to toBinary's bytes and decode to referenceDecode's message",
    (_, schema) => {
      const gen = new Gen(rng(schema.typeName.length * 7919 + schema.fields.length));
      const codec = compileCodec(schema);
      const fallbacks = fastCodecStats.encodeFallbacks;
      for (let i = 0; i < MESSAGES_PER_SCHEMA; i++) {
        const msg = i === 0 ? create(schema) : gen.message(schema);
        const want = toBinary(schema, msg);
        const got = codec.encode(msg);
        expect(got).toBeInstanceOf(Uint8Array);
        expect(Buffer.from(got).equals(Buffer.from(want)), `${schema.typeName} #${i} bytes`).toBe(true);
        const decoded = codec.decode(want);
        expectSameDecode(schema, want, `#${i}`);
        // referenceDecode is protobuf-es's reader: where neither of its rules applies (a valid
        // encoding without a BOM anywhere), it must agree with fromBinary.
        if (!Buffer.from(want).includes(BOM))
          expect(referenceDecode(schema, want), `${schema.typeName} #${i} vs fromBinary`).toStrictEqual(
            fromBinary(schema, want),
          );
        // gRPC hands us Buffers that are views into larger buffers: offsets must not matter.
        const view = Buffer.concat([Buffer.from([1, 2, 3]), want]).subarray(3);
        expect(codec.decode(view)).toStrictEqual(referenceDecode(schema, view));
        // Decoding then re-encoding is stable on both sides.
        expect(
          Buffer.from(codec.encode(decoded)).equals(Buffer.from(toBinary(schema, referenceDecode(schema, want)))),
        ).toBe(true);
      }
      expect(fastCodecStats.encodeFallbacks, "valid messages must stay on the fast path").toBe(fallbacks);
    },
  );
});

describe("hostile input: the fast decoder throws exactly where referenceDecode throws", () => {
  it(`differential fuzz: ${FUZZ_ITERATIONS} truncated, bit-flipped, spliced and random buffers`, () => {
    const gen = new Gen(rng(20261122));
    const corpus = SCHEMAS.map((s) => ({ schema: s, bytes: toBinary(s, gen.message(s)) }));
    let accepted = 0;
    for (let i = 0; i < FUZZ_ITERATIONS; i++) {
      const { schema, bytes } = gen.pick(corpus);
      let b: Uint8Array;
      const kind = gen.int(6);
      if (kind === 0 || bytes.length === 0) b = gen.bytes(gen.int(40));
      else if (kind === 1) b = bytes.subarray(0, gen.int(bytes.length));
      else if (kind === 2) {
        b = bytes.slice();
        for (let f = gen.int(3) + 1; f > 0; f--) b[gen.int(b.length)]! ^= 1 << gen.int(8);
      } else if (kind === 3) {
        b = bytes.slice();
        b[gen.int(b.length)] = gen.pick([0x00, 0x7f, 0x80, 0xff, 0x0f, 0x0b, 0x0c, 0x06, 0x07]);
      } else if (kind === 4) {
        const at = gen.int(bytes.length);
        b = Buffer.concat([bytes.subarray(0, at), gen.bytes(gen.int(12) + 1), bytes.subarray(at)]);
      } else {
        const other = gen.pick(corpus).bytes;
        b = Buffer.concat([bytes.subarray(0, gen.int(bytes.length)), other.subarray(gen.int(other.length + 1))]);
      }
      if (expectSameDecode(schema, b, `fuzz #${i} (kind ${kind})`)) accepted++;
    }
    // Both outcomes must be well represented, or the fuzz is not testing much.
    expect(accepted).toBeGreaterThan(FUZZ_ITERATIONS / 10);
    expect(accepted).toBeLessThan(FUZZ_ITERATIONS);
  });

  const tag = (no: number, wt: number): number[] => varint((no << 3) | wt);
  const varint = (v: number): number[] => {
    const out: number[] = [];
    while (v > 0x7f) {
      out.push((v & 0x7f) | 0x80);
      v >>>= 7;
    }
    out.push(v);
    return out;
  };
  const cases: [string, number[]][] = [
    ["empty", []],
    ["truncated tag", [0x80]],
    ["varint of 10 bytes", [...tag(3, 0), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]],
    ["varint of 11 bytes", [...tag(3, 0), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]],
    ["int32 varint of 11 bytes", [...tag(5, 0), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]],
    ["unknown varint of 20 bytes (protobuf-es skips it)", [...tag(900, 0), ...Array<number>(19).fill(0x80), 0x01]],
    ["tag of 6 bytes", [0x88, 0x80, 0x80, 0x80, 0x80, 0x00, 0x00]],
    ["field number 0", [0x00, 0x01]],
    ["wire type 6", [0x0e, 0x01]],
    ["wire type 7", [0x0f, 0x01]],
    ["lone end-group", [...tag(900, 4)]],
    ["unterminated group", [...tag(900, 3), ...tag(1, 0), 0x01]],
    ["mismatched end-group", [...tag(900, 3), ...tag(901, 4)]],
    ["string length beyond buffer", [...tag(9, 2), 0x05, 0x61]],
    ["string length 2^32-1", [...tag(9, 2), 0xff, 0xff, 0xff, 0xff, 0x0f]],
    ["bytes length 2^32-1", [...tag(10, 2), 0xff, 0xff, 0xff, 0xff, 0x0f, 0x00]],
    ["message length beyond buffer", [...tag(52, 2), 0x10, ...tag(5, 0), 0x01]],
    [
      "nested field straddling its message end (protobuf-es reads on)",
      [...tag(52, 2), 0x02, ...tag(9, 2), 0x03, 0x61, 0x62, 0x63],
    ],
    ["truncated double", [...tag(1, 1), 0x00, 0x00, 0x00]],
    ["truncated fixed32", [...tag(7, 5), 0x00]],
    ["packed length beyond buffer", [...tag(20, 2), 0x08, 0x01]],
    ["packed doubles not a multiple of 8", [...tag(16, 2), 0x03, 0x00, 0x00, 0x00]],
    ["invalid UTF-8", [...tag(9, 2), 0x02, 0xc3, 0x28]],
    ["overlong UTF-8", [...tag(9, 2), 0x02, 0xc0, 0xaf]],
    ["UTF-8 surrogate", [...tag(9, 2), 0x03, 0xed, 0xa0, 0x80]],
    ["UTF-8 beyond U+10FFFF", [...tag(9, 2), 0x04, 0xf4, 0x90, 0x80, 0x80]],
    ["UTF-8 truncated sequence", [...tag(9, 2), 0x02, 0x41, 0xe2]],
    ["valid 4-byte UTF-8 after ASCII", [...tag(9, 2), 0x0d, ...Array<number>(9).fill(0x41), 0xf0, 0x9f, 0x98, 0x80]],
    ["BOM (kept)", [...tag(9, 2), 0x04, 0xef, 0xbb, 0xbf, 0x41]],
    ["string read with a varint wire type", [...tag(9, 0), 0x01, 0x41]],
    ["int32 read with a length-delimited wire type", [...tag(5, 2), 0x07]],
    ["message field as varint", [...tag(52, 0), 0x00]],
  ];
  it.each(cases)("%s", (label, bytes) => {
    expectSameDecode(ALL, new Uint8Array(bytes), label);
  });

  const nested = (depth: number): Uint8Array => {
    let inner: number[] = [...tag(5, 0), 0x01];
    for (let i = 1; i < depth; i++) inner = [...tag(52, 2), ...varint(inner.length), ...inner];
    return new Uint8Array(inner);
  };
  it("nesting: 100 levels decode, 101 levels throw, like protobuf-es's recursion limit", () => {
    expect(expectSameDecode(ALL, nested(100), "depth 100")).toBe(true);
    expect(expectSameDecode(ALL, nested(101), "depth 101")).toBe(false);
    expect(() => compileCodec(ALL).decode(nested(101))).toThrow(/maximum recursion depth/);
  });

  it("nesting: deep unknown groups throw instead of recursing without bound", () => {
    const groups = new Uint8Array([
      ...Array<number[]>(150).fill(tag(900, 3)).flat(),
      ...Array<number[]>(150).fill(tag(900, 4)).flat(),
    ]);
    expect(expectSameDecode(ALL, groups, "150 nested groups")).toBe(false);
    const shallow = new Uint8Array([
      ...Array<number[]>(5).fill(tag(900, 3)).flat(),
      ...Array<number[]>(5).fill(tag(900, 4)).flat(),
    ]);
    expect(expectSameDecode(ALL, shallow, "5 nested groups")).toBe(true);
  });
});

describe("wire details", () => {
  it("writes repeated scalars packed and reads packed and unpacked encodings alike", () => {
    const codec = compileCodec(ALL);
    const msg = create(ALL, { rInt32: [1, -1, 300], rDouble: [0.5, -0], uInt32: [7, 8] });
    const bytes = codec.encode(msg);
    expect(Buffer.from(bytes).equals(Buffer.from(toBinary(ALL, msg)))).toBe(true);
    expect(Buffer.from(bytes).includes(Buffer.from([0xa2, 0x01, 13]))).toBe(true); // rInt32 (field 20) packed: 1 + 10 + 2 bytes
    // rInt32 (field 20) unpacked and uInt32 (field 35, declared unpacked) packed.
    const unpacked = new Uint8Array([0xa0, 0x01, 1, 0xa0, 0x01, 2, 0x9a, 0x02, 2, 9, 10]); // field 20 twice unpacked, field 35 packed
    expectSameDecode(ALL, unpacked, "mixed packing");
    expect(codec.decode(unpacked)).toMatchObject({ rInt32: [1, 2], uInt32: [9, 10] });
  });

  it("keeps unknown fields in $unknown and writes them back", () => {
    const codec = compileCodec(ALL);
    const bytes = new Uint8Array([
      (9 << 3) | 2,
      1,
      0x61,
      ...[0xa0, 0x38, 0x05],
      ...[0xa1, 0x38, 1, 2, 3, 4, 5, 6, 7, 8],
      ...[0xa3, 0x38, 0x08, 0x01, 0xa4, 0x38],
    ]);
    const decoded = codec.decode(bytes);
    expect(decoded).toStrictEqual(referenceDecode(ALL, bytes));
    expect((decoded as { $unknown?: unknown[] }).$unknown).toHaveLength(3);
    expect(Buffer.from(codec.encode(decoded)).equals(Buffer.from(toBinary(ALL, decoded)))).toBe(true);
    expect(Buffer.from(codec.encode(decoded)).equals(Buffer.from(bytes))).toBe(true);
  });

  it("merges a message field met twice, appends to lists and lets the last scalar win, as referenceDecode does", () => {
    const a = toBinary(
      ALL,
      create(ALL, {
        child: { sString: "a", rInt32: [1] },
        sInt32: 1,
        choice: { case: "oChild", value: { sBool: true } },
      }),
    );
    const b = toBinary(
      ALL,
      create(ALL, { child: { sInt64: 5n, rInt32: [2] }, sInt32: 2, choice: { case: "oChild", value: { sUint32: 3 } } }),
    );
    expectSameDecode(ALL, Buffer.concat([a, b]), "concatenated messages");
    expect(compileCodec(ALL).decode(Buffer.concat([a, b]))).toMatchObject({
      sInt32: 2,
      child: { sString: "a", sInt64: 5n, rInt32: [1, 2] },
    });
  });

  it("re-encodes with toBinary whatever it does not expect, producing the same bytes or error", () => {
    const codec = compileCodec(ALL);
    const before = fastCodecStats.encodeFallbacks;
    const odd = [
      { ...create(ALL), sInt64: 5 }, // number in an int64 field: protobuf-es accepts it
      { ...create(ALL), sInt64: "7" },
      { ...create(ALL), sString: undefined }, // missing property: protobuf-es writes ""
      { ...create(ALL), sInt32: 1.5 }, // protobuf-es throws
      { ...create(ALL), child: { sString: "x" } }, // not a message: protobuf-es throws
      { ...create(ALL), $typeName: "fuzz.Other" },
      { ...create(ALL), rUint64: [1n, 2] },
    ];
    for (const msg of odd) {
      const n = fastCodecStats.encodeFallbacks;
      const want = outcome(() => toBinary(ALL, msg as never));
      const got = outcome(() => codec.encode(msg));
      expect(
        got.ok,
        JSON.stringify(msg, (_, v: unknown) => (typeof v === "bigint" ? `${v}n` : v)),
      ).toBe(want.ok);
      if (want.ok && got.ok) expect(got.value).toStrictEqual(want.value);
      expect(fastCodecStats.encodeFallbacks - n, `fallback for ${odd.indexOf(msg)}`).toBe(1);
    }
    expect(fastCodecStats.encodeFallbacks - before).toBe(odd.length);
  });
  it("encodes into a shared slab without overwriting earlier results", () => {
    const codec = compileCodec(ALL);
    const gen = new Gen(rng(99));
    const kept = Array.from({ length: 400 }, () => {
      const msg = gen.message(ALL);
      return { msg, bytes: codec.encode(msg) };
    });
    for (const { msg, bytes } of kept) expect(Buffer.from(bytes).equals(Buffer.from(toBinary(ALL, msg)))).toBe(true);
  });
});

describe("schemas left to protobuf-es", () => {
  it.each([
    ["proto2 (FileDescriptorProto)", FileDescriptorProtoSchema, /not proto3/],
    ["well-known type", TimestampSchema, /well-known/],
    ["map (google.protobuf.Struct)", StructSchema, /well-known|map/],
    ["proto3 optional", fuzzMessage("WithOptional"), /explicit presence/],
    ["map", fuzzMessage("WithMap"), /map/],
    ["message reaching a map", fuzzMessage("ReachesMap"), /map/],
  ] as const)("%s falls back, decided at compile time, and still round-trips", (_, schema, reason) => {
    const codec = compileCodec(schema);
    expect(codec.fallback).toMatch(reason);
    const samples: Record<string, unknown> = {
      "google.protobuf.FileDescriptorProto": fuzzMessage("All").file.proto,
      "google.protobuf.Timestamp": create(TimestampSchema, { seconds: 5n, nanos: 7 }),
      "google.protobuf.Struct": create(StructSchema, { fields: { a: { kind: { case: "numberValue", value: 1 } } } }),
      "fuzz.WithOptional": create(fuzzMessage("WithOptional"), { maybe: 0 }),
      "fuzz.WithMap": create(fuzzMessage("WithMap"), { labels: { a: 1n, b: 0n } }),
      "fuzz.ReachesMap": create(fuzzMessage("ReachesMap"), { inner: { labels: { x: 2n } }, name: "n" }),
    };
    const msg = samples[schema.typeName] as never;
    const bytes = toBinary(schema, msg);
    expect(codec.encode(msg)).toStrictEqual(bytes);
    expect(codec.decode(bytes)).toStrictEqual(fromBinary(schema, bytes));
  });

  it("caches one codec per schema", () => {
    expect(compileCodec(ALL)).toBe(compileCodec(ALL));
  });
});
