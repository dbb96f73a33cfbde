// Fixtures for fast-codec.test.ts: a seeded random message generator for any schema, a
// proto3 schema using every scalar type (our .proto files use only a few), and schemas the
// fast codec must leave to protobuf-es.
import { ScalarType, create, createFileRegistry } from "@bufbuild/protobuf";
import type { DescField, DescFile, DescMessage, MessageShape } from "@bufbuild/protobuf";
import {
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FileDescriptorProtoSchema,
} from "@bufbuild/protobuf/wkt";

/** Every message type of `file`, nested ones included. */
export function messagesOf(file: DescFile): DescMessage[] {
  const out: DescMessage[] = [];
  const walk = (m: DescMessage): void => {
    out.push(m);
    m.nestedMessages.forEach(walk);
  };
  file.messages.forEach(walk);
  return out;
}

/** mulberry32: small, fast, seeded, good enough for test data. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class Gen {
  constructor(readonly next: () => number) {}
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  bytes(n: number): Uint8Array {
    const b = new Uint8Array(n);
    for (let i = 0; i < n; i++) b[i] = this.int(256);
    return b;
  }
  u64(): bigint {
    return (BigInt(this.int(2 ** 32)) << 32n) | BigInt(this.int(2 ** 32));
  }
  string(): string {
    const special = [
      "",
      "a",
      "héllo wörld",
      "😀",
      "a😀b",
      "\ud800",
      "x\udc00y",
      "\udbff\udfff",
      "\uFEFFbom",
      "\u0000nul",
      "日本語テキスト",
      "\u07ff\u0800\uffff",
    ];
    const r = this.int(10);
    if (r < 3) return this.pick(special);
    const lengths = [0, 1, 41, 42, 43, 44, 127, 128, 200, 5000, 16383, 16384];
    const n = r < 8 ? this.int(60) : this.pick(lengths);
    const ascii = this.chance(0.5);
    let s = "";
    for (let i = 0; i < n; i++) {
      if (ascii) s += String.fromCharCode(32 + this.int(95));
      else s += this.pick(["a", "é", "€", "😀", "\ud83d", "\ude00", "\uFEFF", "z", "ß"]);
    }
    return s;
  }
  scalar(type: ScalarType): unknown {
    switch (type) {
      case ScalarType.STRING:
        return this.string();
      case ScalarType.BYTES:
        return this.chance(0.2) ? new Uint8Array(0) : this.bytes(this.pick([1, 5, 127, 128, 300]));
      case ScalarType.BOOL:
        return this.chance(0.5);
      case ScalarType.DOUBLE:
        return this.pick([
          0,
          -0,
          NaN,
          Infinity,
          -Infinity,
          1.5,
          -2.25e300,
          Number.MIN_VALUE,
          Number.MAX_VALUE,
          this.next() * 1e6 - 5e5,
        ]);
      case ScalarType.FLOAT:
        return this.pick([
          0,
          -0,
          NaN,
          Infinity,
          -Infinity,
          1.5,
          3.4028234663852886e38,
          -1.175494e-38,
          Math.fround(this.next() * 1e6),
        ]);
      case ScalarType.INT32:
      case ScalarType.SINT32:
      case ScalarType.SFIXED32:
        return this.pick([0, 1, -1, 127, 128, -128, 2 ** 31 - 1, -(2 ** 31), this.int(2 ** 32) - 2 ** 31]);
      case ScalarType.UINT32:
      case ScalarType.FIXED32:
        return this.pick([0, 1, 127, 128, 16384, 2 ** 31, 2 ** 32 - 1, this.int(2 ** 32)]);
      case ScalarType.INT64:
      case ScalarType.SINT64:
      case ScalarType.SFIXED64:
        return this.pick([
          0n,
          1n,
          -1n,
          2n ** 63n - 1n,
          -(2n ** 63n),
          1732280000000n,
          2n ** 53n + 1n,
          -(2n ** 31n),
          BigInt.asIntN(64, this.u64()),
        ]);
      case ScalarType.UINT64:
      case ScalarType.FIXED64:
        return this.pick([0n, 1n, 2n ** 64n - 1n, 2n ** 63n, 2n ** 32n, 1732280000000n, this.u64()]);
    }
  }
  value(field: DescField, depth: number): unknown {
    switch (field.fieldKind) {
      case "scalar":
        return this.scalar(field.scalar);
      case "enum":
        return this.chance(0.8) ? this.pick(field.enum.values).number : this.pick([99, -1, 2 ** 31 - 1]);
      case "message":
        return this.message(field.message, depth + 1);
      case "list": {
        const n = this.chance(0.4) ? 0 : this.int(5) + 1;
        const items: unknown[] = [];
        for (let i = 0; i < n; i++) {
          if (field.listKind === "message") items.push(this.message(field.message, depth + 1));
          else if (field.listKind === "enum") items.push(this.pick(field.enum.values).number);
          else items.push(this.scalar(field.scalar));
        }
        return items;
      }
      case "map":
        throw new Error("maps are not generated");
    }
  }
  /** A random message: every field kind, every oneof case, nesting up to depth 3. */
  message<D extends DescMessage>(desc: D, depth = 0): MessageShape<D> {
    const init: Record<string, unknown> = {};
    for (const member of desc.members) {
      if (member.kind === "oneof") {
        if (this.chance(0.2)) continue;
        const field = this.pick(member.fields);
        if (field.fieldKind === "message" && depth >= 3) continue;
        init[member.localName] = { case: field.localName, value: this.value(field, depth) };
      } else {
        if (this.chance(0.3)) continue;
        if (
          (member.fieldKind === "message" || (member.fieldKind === "list" && member.listKind === "message")) &&
          depth >= 3
        )
          continue;
        init[member.localName] = this.value(member, depth);
      }
    }
    return create(desc, init as never);
  }
}

const T = FieldDescriptorProto_Type;
const SCALAR_TYPES: [string, FieldDescriptorProto_Type][] = [
  ["double", T.DOUBLE],
  ["float", T.FLOAT],
  ["int64", T.INT64],
  ["uint64", T.UINT64],
  ["int32", T.INT32],
  ["fixed64", T.FIXED64],
  ["fixed32", T.FIXED32],
  ["bool", T.BOOL],
  ["string", T.STRING],
  ["bytes", T.BYTES],
  ["uint32", T.UINT32],
  ["sfixed32", T.SFIXED32],
  ["sfixed64", T.SFIXED64],
  ["sint32", T.SINT32],
  ["sint64", T.SINT64],
];

const field = (name: string, number: number, type: FieldDescriptorProto_Type, more: Record<string, unknown> = {}) => ({
  name,
  number,
  type,
  label: FieldDescriptorProto_Label.OPTIONAL,
  ...more,
});
const repeated = { label: FieldDescriptorProto_Label.REPEATED };

/**
 * fuzz.All: every scalar type singular (1-15) and repeated (packed, 16-30; unpacked, 31-45),
 * an enum, recursive message fields, a oneof of scalar/enum/message, and large field numbers
 * (multi-byte tags). Plus fallback schemas: proto3 `optional`, a map, a message reaching a map.
 */
function fuzzFile() {
  const allFields = [
    ...SCALAR_TYPES.map(([n, t], i) => field(`s_${n}`, i + 1, t)),
    ...SCALAR_TYPES.map(([n, t], i) => field(`r_${n}`, 16 + i, t, repeated)),
    ...SCALAR_TYPES.filter(([, t]) => t !== T.STRING && t !== T.BYTES).map(([n, t], i) =>
      field(`u_${n}`, 31 + i, t, { ...repeated, options: { packed: false } }),
    ),
    field("color", 50, T.ENUM, { typeName: ".fuzz.Color" }),
    field("colors", 51, T.ENUM, { ...repeated, typeName: ".fuzz.Color" }),
    field("child", 52, T.MESSAGE, { typeName: ".fuzz.All" }),
    field("children", 53, T.MESSAGE, { ...repeated, typeName: ".fuzz.All" }),
    field("o_string", 60, T.STRING, { oneofIndex: 0 }),
    field("o_int64", 61, T.INT64, { oneofIndex: 0 }),
    field("o_color", 62, T.ENUM, { oneofIndex: 0, typeName: ".fuzz.Color" }),
    field("o_child", 63, T.MESSAGE, { oneofIndex: 0, typeName: ".fuzz.All" }),
    field("o_bytes", 64, T.BYTES, { oneofIndex: 0 }),
    field("big_number", 2000, T.STRING),
    field("max_number", 536870911, T.UINT64),
  ];
  return create(FileDescriptorProtoSchema, {
    name: "fuzz/all.proto",
    package: "fuzz",
    syntax: "proto3",
    enumType: [
      {
        name: "Color",
        value: [
          { name: "COLOR_UNSPECIFIED", number: 0 },
          { name: "COLOR_RED", number: 1 },
          { name: "COLOR_BLUE", number: 2 },
        ],
      },
    ],
    messageType: [
      { name: "All", field: allFields, oneofDecl: [{ name: "choice" }] },
      {
        name: "WithOptional",
        field: [field("maybe", 1, T.INT32, { proto3Optional: true, oneofIndex: 0 })],
        oneofDecl: [{ name: "_maybe" }],
      },
      {
        name: "WithMap",
        field: [field("labels", 1, T.MESSAGE, { ...repeated, typeName: ".fuzz.WithMap.LabelsEntry" })],
        nestedType: [
          {
            name: "LabelsEntry",
            field: [field("key", 1, T.STRING), field("value", 2, T.INT64)],
            options: { mapEntry: true },
          },
        ],
      },
      {
        name: "ReachesMap",
        field: [field("inner", 1, T.MESSAGE, { typeName: ".fuzz.WithMap" }), field("name", 2, T.STRING)],
      },
    ],
  });
}

export const fuzzRegistry = createFileRegistry(fuzzFile(), () => undefined);
export function fuzzMessage(name: string): DescMessage {
  const desc = fuzzRegistry.getMessage(`fuzz.${name}`);
  if (!desc) throw new Error(`fuzz.${name} missing from the test registry`);
  return desc;
}
