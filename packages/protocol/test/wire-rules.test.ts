// Bytes must mean the same message to Palisade as to any other protobuf peer. The rules here are
// those of protobuf's reference implementations (C++ and upb, which Python's protobuf and grpcio
// run); interop/codec-interop.test.ts checks them live against Python. Each rule is checked on
// both codecs: the fast codec (every project schema) and the protobuf-es path (schemas the fast
// codec leaves to protobuf-es, such as one reaching a map).
import { create, toBinary } from "@bufbuild/protobuf";
import type { DescMessage } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { compileCodec } from "../src/fast-codec.js";
import { HealthResponseSchema, InvokeRequestSchema } from "../src/gen/selu/capability/v1/capability_pb.js";
import { fuzzMessage } from "./fast-codec-fixtures.js";

const hex = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, "hex"));
const toHex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const REACHES_MAP = fuzzMessage("ReachesMap");

describe("a leading U+FEFF is text, not a marker to drop", () => {
  const texts = [
    "\uFEFF",
    "\uFEFFhello",
    "\uFEFF\uFEFFtwo",
    `\uFEFF${"long text after the mark ".repeat(8)}`,
    "\uFEFF日本語",
  ];

  it.each(texts.map((t) => [JSON.stringify(t.slice(0, 12)), t] as const))("fast codec keeps %s", (_, text) => {
    expect(compileCodec(HealthResponseSchema).fallback).toBeUndefined();
    const codec = compileCodec(InvokeRequestSchema);
    const bytes = codec.encode(create(InvokeRequestSchema, { toolName: text, sessionId: text }));
    const back = codec.decode(bytes);
    expect(back.toolName).toBe(text);
    expect(back.sessionId).toBe(text);
    // Server-side decoding (unknown fields skipped) reads strings the same way.
    expect(codec.decode(bytes, { readUnknownFields: false }).toolName).toBe(text);
  });

  it.each(texts.map((t) => [JSON.stringify(t.slice(0, 12)), t] as const))(
    "protobuf-es path keeps %s (message and map key)",
    (_, text) => {
      const codec = compileCodec(REACHES_MAP);
      expect(codec.fallback).toMatch(/map/);
      const msg = create(REACHES_MAP, { name: text, inner: { labels: { [text]: 3n } } });
      const back = codec.decode(codec.encode(msg)) as unknown as {
        name: string;
        inner: { labels: Record<string, bigint> };
      };
      expect(back.name).toBe(text);
      expect(Object.keys(back.inner.labels)).toEqual([text]);
    },
  );
});

/** decode(bytes), with the unknown fields it kept and their re-encoding. */
function read(
  schema: DescMessage,
  bytes: string,
): { msg: Record<string, unknown>; unknown: { no: number; wireType: number }[]; reencoded: string } {
  const codec = compileCodec(schema);
  const msg = codec.decode(hex(bytes)) as unknown as Record<string, unknown>;
  const unknown = ((msg.$unknown ?? []) as { no: number; wireType: number }[]).map(({ no, wireType }) => ({
    no,
    wireType,
  }));
  return { msg, unknown, reencoded: toHex(codec.encode(msg as never)) };
}

describe("a known field with another wire type is an unknown field, not a value", () => {
  // Observed with Debian's python3-protobuf 3.21 (C++): the same bytes parse to these messages.
  it("0c01 (field 1 with an end-group tag) is malformed, never `ready: true`", () => {
    const codec = compileCodec(HealthResponseSchema);
    let decoded: unknown;
    expect(() => (decoded = codec.decode(hex("0c01")))).toThrow();
    expect(decoded).toBeUndefined();
    expect(() => compileCodec(REACHES_MAP).decode(hex("0c01"))).toThrow();
  });

  it.each([
    ["1001", "string field read as a varint", 2, 0],
    ["0d01000000", "bool field as fixed32", 1, 5],
    ["090100000000000000", "bool field as fixed64", 1, 1],
    ["0a0101", "bool field as length-delimited", 1, 2],
    ["0b0c", "bool field as a group", 1, 3],
  ])("HealthResponse %s (%s) is kept as unknown field %d, wire type %d", (bytes, _, no, wireType) => {
    const { msg, unknown, reencoded } = read(HealthResponseSchema, bytes);
    expect(msg.ready).toBe(false);
    expect(msg.message).toBe("");
    expect(unknown).toEqual([{ no, wireType }]);
    expect(reencoded).toBe(bytes);
  });

  it("a field with its right wire type next to a mismatched one is still read", () => {
    const { msg, unknown, reencoded } = read(HealthResponseSchema, "08011001120161");
    expect(msg).toMatchObject({ ready: true, message: "a" });
    expect(unknown).toEqual([{ no: 2, wireType: 0 }]);
    expect(reencoded).toBe("080112016110" + "01");
  });

  it("a message field sent as a varint is unknown, not an empty message", () => {
    const fast = read(fuzzMessage("All"), "a00300");
    expect(fast.msg.child).toBeUndefined();
    expect(fast.unknown).toEqual([{ no: 52, wireType: 0 }]);
    const es = read(REACHES_MAP, "0800");
    expect(es.msg.inner).toBeUndefined();
    expect(es.unknown).toEqual([{ no: 1, wireType: 0 }]);
    expect(es.reencoded).toBe("0800");
  });

  it("protobuf-es path: a string field as a varint is unknown", () => {
    const { msg, unknown, reencoded } = read(REACHES_MAP, "1005");
    expect(msg.name).toBe("");
    expect(unknown).toEqual([{ no: 2, wireType: 0 }]);
    expect(reencoded).toBe("1005");
  });

  it("repeated numbers are read packed and unpacked alike (both are their encodings)", () => {
    const all = fuzzMessage("All");
    // r_int32 = 20: unpacked (wire type 0) twice, then packed (wire type 2).
    const { msg, unknown } = read(all, "a00101a00102a2010203" + "04");
    expect(msg.rInt32).toEqual([1, 2, 3, 4]);
    expect(unknown).toEqual([]);
  });

  it("a request decoded by a server skips the mismatched field instead of keeping it", () => {
    const msg = compileCodec(HealthResponseSchema).decode(hex("1001"), { readUnknownFields: false });
    expect(msg).toStrictEqual(create(HealthResponseSchema));
    expect(toHex(toBinary(HealthResponseSchema, msg))).toBe("");
  });
});
