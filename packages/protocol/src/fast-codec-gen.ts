// Generates the JavaScript source of a schema-specialized encoder and decoder (fast-codec.ts
// turns it into functions with `new Function`, as protobufjs does). Generated code reads and
// writes each field with a direct property access and a direct call to a wire helper
// (fast-codec-writer.ts, fast-codec-reader.ts), instead of protobuf-es's per-field reflection, switch on the scalar
// type and ReflectMessage/ReflectList wrappers.
//
// The generated source for a message `M` is the body of `function (rt, deps)` and returns
// `{ init, enc, dec }`:
// - init(): the zero message, property for property what protobuf-es `create(M)` returns
//   for a proto3 message ($typeName, scalars/enums/lists with zero values, oneofs as
//   `{ case: undefined }`, message fields absent);
// - enc(m, w): appends the fields of m to the Writer in field-number order (as toBinary's
//   sortedFields), skipping implicit-presence zero values, then `$unknown`;
// - dec(m, r, end, depth): reads fields into m until r.pos >= end, with fromBinary's rules
//   (last value wins, messages merge, lists append, unknown fields go to `$unknown`), except
//   that a known field with another wire type is unknown too (see reference-decode.ts).
// `deps[i]` are the records of nested message types, resolved lazily (see fast-codec.ts).
import { ScalarType } from "@bufbuild/protobuf";
import type { DescField, DescMessage } from "@bufbuild/protobuf";
import { WireType } from "@bufbuild/protobuf/wire";
import { wireTypeOf } from "./reference-decode.js";

/** protobuf-es's default `recursionLimit` for fromBinary. */
export const RECURSION_LIMIT = 100;

interface ScalarCode {
  wire: number;
  write: string;
  read: string;
  /** JS expression: should this implicit-presence value be written (protobuf-es isSet)? */
  isSet: (v: string) => string;
  zero: string;
}

const isSetNum = (v: string): string => `${v} !== 0`;
const isSetFloat = (v: string): string => `(${v} !== 0 || 1 / ${v} < 0)`; // -0 is set, as Object.is(v, 0) says
const isSetLong = (v: string): string => `${v} !== 0n`;

const SCALARS: Record<ScalarType, ScalarCode> = {
  [ScalarType.DOUBLE]: { wire: 1, write: "wDouble", read: "rDouble(r)", isSet: isSetFloat, zero: "0" },
  [ScalarType.FLOAT]: { wire: 5, write: "wFloat", read: "rFloat(r)", isSet: isSetFloat, zero: "0" },
  [ScalarType.INT64]: { wire: 0, write: "wInt64", read: "rInt64(r)", isSet: isSetLong, zero: "0n" },
  [ScalarType.UINT64]: { wire: 0, write: "wUint64", read: "rUint64(r)", isSet: isSetLong, zero: "0n" },
  [ScalarType.INT32]: { wire: 0, write: "wInt32", read: "(rVarint32(r) | 0)", isSet: isSetNum, zero: "0" },
  [ScalarType.FIXED64]: { wire: 1, write: "wFixed64", read: "rFixed64(r)", isSet: isSetLong, zero: "0n" },
  [ScalarType.FIXED32]: { wire: 5, write: "wFixed32", read: "rFixed32(r)", isSet: isSetNum, zero: "0" },
  [ScalarType.BOOL]: { wire: 0, write: "wBool", read: "rBool(r)", isSet: (v) => `${v} !== false`, zero: "false" },
  [ScalarType.STRING]: { wire: 2, write: "wString", read: "rString(r)", isSet: (v) => `${v} !== ""`, zero: '""' },
  [ScalarType.BYTES]: {
    wire: 2,
    write: "wBytes",
    read: "rBytes(r)",
    isSet: (v) => `(!(${v} instanceof Uint8Array) || ${v}.byteLength !== 0)`,
    zero: "new Uint8Array(0)",
  },
  [ScalarType.UINT32]: { wire: 0, write: "wUint32", read: "rVarint32(r)", isSet: isSetNum, zero: "0" },
  [ScalarType.SFIXED32]: { wire: 5, write: "wSfixed32", read: "rSfixed32(r)", isSet: isSetNum, zero: "0" },
  [ScalarType.SFIXED64]: { wire: 1, write: "wSfixed64", read: "rSfixed64(r)", isSet: isSetLong, zero: "0n" },
  [ScalarType.SINT32]: { wire: 0, write: "wSint32", read: "rSint32(r)", isSet: isSetNum, zero: "0" },
  [ScalarType.SINT64]: { wire: 0, write: "wSint64", read: "rSint64(r)", isSet: isSetLong, zero: "0n" },
};

/** Scalar code of a scalar or enum field (enums are int32 on the wire). */
function scalarOf(field: DescField): ScalarCode {
  if (field.fieldKind === "enum" || (field.fieldKind === "list" && field.listKind === "enum")) {
    const zero = String(field.enum.values[0]?.number ?? 0);
    return { ...SCALARS[ScalarType.INT32], isSet: (v) => `${v} !== ${zero}`, zero };
  }
  if (field.fieldKind === "scalar" || (field.fieldKind === "list" && field.listKind === "scalar"))
    return SCALARS[field.scalar];
  throw new Error(`fast-codec: ${field.toString()} is not a scalar field`);
}

function writeTag(no: number, wire: number): string {
  const bytes: number[] = [];
  let v = ((no << 3) | wire) >>> 0;
  while (v > 0x7f) {
    bytes.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  bytes.push(v);
  if (bytes.length === 1) return `wByte(w, ${bytes[0]});`;
  if (bytes.length === 2) return `wByte2(w, ${bytes[0]}, ${bytes[1]});`;
  return `wVarint32(w, ${((no << 3) | wire) >>> 0});`;
}

const key = (name: string): string => JSON.stringify(name);

/** Emits the encoder statements of one field; `v` holds the value (oneof: the case matched). */
function encodeField(field: DescField, dep: (d: DescMessage) => string, inOneof: boolean): string {
  const message = (value: string): string =>
    `${writeTag(field.number, 2)} s = ldBegin(w); ${dep(field.message!)}.enc(${value}, w); ldEnd(w, s);`;
  switch (field.fieldKind) {
    case "scalar":
    case "enum": {
      const sc = scalarOf(field);
      const write = `${writeTag(field.number, sc.wire)} ${sc.write}(w, v);`;
      return inOneof ? write : `if (${sc.isSet("v")}) { ${write} }`;
    }
    case "message":
      return inOneof ? message("v") : `if (v !== undefined && hasOwn(m, ${key(field.localName)})) { ${message("v")} }`;
    case "list": {
      const head = `if (v.length > 0) { if (!Array.isArray(v)) notFast("list");`;
      if (field.listKind === "message") return `${head} for (let i = 0; i < v.length; i++) { ${message("v[i]")} } }`;
      const sc = scalarOf(field);
      if (field.packed) {
        return `${head} ${writeTag(field.number, 2)} s = ldBegin(w); for (let i = 0; i < v.length; i++) ${sc.write}(w, v[i]); ldEnd(w, s); }`;
      }
      return `${head} for (let i = 0; i < v.length; i++) { ${writeTag(field.number, sc.wire)} ${sc.write}(w, v[i]); } }`;
    }
    case "map":
      throw new Error(`fast-codec: map ${field.toString()} is not supported`);
  }
}

function encoder(desc: DescMessage, dep: (d: DescMessage) => string): string {
  const lines = [
    `function enc(m, w) {`,
    `  if (m === null || typeof m !== "object" || m.$typeName !== ${key(desc.typeName)}) notFast("message");`,
    `  let v, s;`,
  ];
  desc.oneofs.forEach((o, i) => lines.push(`  const o${i} = m[${key(o.localName)}], c${i} = o${i}.case;`));
  for (const field of [...desc.fields].sort((a, b) => a.number - b.number)) {
    if (field.oneof) {
      const i = desc.oneofs.indexOf(field.oneof);
      lines.push(`  if (c${i} === ${key(field.localName)}) { v = o${i}.value; ${encodeField(field, dep, true)} }`);
    } else {
      lines.push(`  v = m[${key(field.localName)}]; ${encodeField(field, dep, false)}`);
    }
  }
  lines.push(`  v = m.$unknown; if (v != null) wUnknown(w, v);`, `}`);
  return lines.join("\n");
}

function decodeField(field: DescField, dep: (d: DescMessage) => string): string {
  const k = key(field.localName);
  const set = (value: string): string =>
    field.oneof ? `m[${key(field.oneof.localName)}] = { case: ${k}, value: ${value} };` : `m[${k}] = ${value};`;
  switch (field.fieldKind) {
    case "scalar":
    case "enum":
      return set(scalarOf(field).read);
    case "message": {
      const d = dep(field.message);
      const existing = field.oneof
        ? `(o = m[${key(field.oneof.localName)}], o.case === ${k} ? o.value : ${d}.init())`
        : `m[${k}] ?? ${d}.init()`;
      return `len = rVarint32(r); sub = ${existing}; ${d}.dec(sub, r, r.pos + len, depth + 1); ${set("sub")}`;
    }
    case "list": {
      if (field.listKind === "message") {
        const d = dep(field.message);
        return `len = rVarint32(r); sub = ${d}.init(); ${d}.dec(sub, r, r.pos + len, depth + 1); m[${k}].push(sub);`;
      }
      const sc = scalarOf(field);
      if (sc.wire === 2) return `m[${k}].push(${sc.read});`;
      // Packed and unpacked encodings are both accepted, whatever the field's `packed`.
      return `if ((t & 7) === 2) { len = rVarint32(r) + r.pos; while (r.pos < len) m[${k}].push(${sc.read}); } else m[${k}].push(${sc.read});`;
    }
    case "map":
      throw new Error(`fast-codec: map ${field.toString()} is not supported`);
  }
}

/** The wire types that encode `field` (see reference-decode.ts, which applies the same rule). */
function acceptedWireTypes(field: DescField): number[] {
  const own = wireTypeOf(field);
  const packable = field.fieldKind === "list" && field.listKind !== "message" && own !== WireType.LengthDelimited;
  return packable ? [own, WireType.LengthDelimited] : [own];
}

function decoder(desc: DescMessage, dep: (d: DescMessage) => string): string {
  const tooDeep = `cannot decode ${desc.toString()} from binary: maximum recursion depth of ${RECURSION_LIMIT} reached`;
  const lines = [
    `function dec(m, r, end, depth) {`,
    `  if (depth > ${RECURSION_LIMIT}) throw new Error(${key(tooDeep)});`,
    `  const b = r.buf;`,
    `  let u = m.$unknown, t, len, sub, o;`,
    `  while (r.pos < end) {`,
    // One-byte tags (fields 1-15) without a call; rTag validates everything else and throws.
    `    t = b[r.pos];`,
    `    if (t >= 8 && t < 128 && (t & 7) < 6) r.pos++; else t = rTag(r);`,
    // Dispatch on the whole tag, field number and wire type: a known field with another wire
    // type is an unknown field, as in protobuf's reference implementations (C++, upb), never
    // read as the field. Repeated numbers accept their own and the packed wire type.
    `    switch (t) {`,
  ];
  for (const field of desc.fields) {
    const cases = acceptedWireTypes(field).map((wire) => `case ${field.number * 8 + wire}:`);
    lines.push(`      ${cases.join(" ")} ${decodeField(field, dep)} break;`);
  }
  lines.push(
    `      default: if (r.keepUnknown) u = unknownField(r, t, ${RECURSION_LIMIT} - depth, u); else rSkip(r, t & 7, t >>> 3, ${RECURSION_LIMIT} - depth);`,
    `    }`,
    `  }`,
    `  if (u !== undefined && u.length > 0) m.$unknown = u;`,
    `}`,
  );
  return lines.join("\n");
}

function initializer(desc: DescMessage): string {
  const props = [`$typeName: ${key(desc.typeName)}`];
  for (const member of desc.members) {
    if (member.kind === "oneof") props.push(`${key(member.localName)}: { case: undefined }`);
    else if (member.fieldKind === "list") props.push(`${key(member.localName)}: []`);
    else if (member.fieldKind === "scalar" || member.fieldKind === "enum")
      props.push(`${key(member.localName)}: ${scalarOf(member).zero}`);
  }
  return `function init() { return { ${props.join(", ")} }; }`;
}

/**
 * The body of `function (rt, deps)` for `desc`. `depIndex` numbers the nested message types;
 * the caller passes their records as `deps` in that order, and in `rt` the wire helpers
 * named `runtimeNames` (destructured once per schema).
 */
export function generateSource(
  desc: DescMessage,
  depIndex: (d: DescMessage) => number,
  runtimeNames: readonly string[],
): string {
  const used = new Set<number>();
  const dep = (d: DescMessage): string => {
    const i = depIndex(d);
    used.add(i);
    return `d${i}`;
  };
  const body = [initializer(desc), encoder(desc, dep), decoder(desc, dep)].join("\n");
  return [
    `"use strict";`,
    `const { ${runtimeNames.join(", ")} } = rt;`,
    ...[...used].map((i) => `const d${i} = deps[${i}];`),
    body,
    `return { init, enc, dec };`,
  ].join("\n");
}
