// Binary decoding through protobuf-es's reflection API for the schemas the fast codec leaves to
// protobuf-es (maps, explicit presence, groups, ...). It is protobuf-es 2.13's readMessage
// (from-binary.js) with the two rules of protobuf's reference implementations (C++ and upb,
// which Python's protobuf and grpcio run) that fromBinary does not follow:
// - a known field whose wire type is not its own is an unknown field (kept in `$unknown`, or
//   skipped), never read as the field: fromBinary dispatches on the field number alone, so
//   `0c01` became `ready: true`. Repeated numbers accept both their own and the packed wire type;
// - strings keep a leading U+FEFF: it is text, and fromBinary's default TextDecoder drops it.
// Map entries also skip fields other than key and value (fromBinary reads on from their tag).
import { ScalarType } from "@bufbuild/protobuf";
import type { DescField, DescMessage, MessageShape } from "@bufbuild/protobuf";
import { reflect, scalarZeroValue } from "@bufbuild/protobuf/reflect";
import type { ReflectList, ReflectMap, ReflectMessage } from "@bufbuild/protobuf/reflect";
import { BinaryReader, BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { decodeUtf8 } from "./utf8.js";

export interface ReadOptions {
  /** Keep unknown fields in `$unknown` (default true, as in protobuf-es). */
  readUnknownFields?: boolean;
}

interface Ctx {
  readUnknownFields: boolean;
  recursionLimit: number;
  depth: number;
}

/** protobuf-es's default `recursionLimit`. */
const RECURSION_LIMIT = 100;

/** Same result as `fromBinary(schema, bytes, options)`, under the reference implementations' rules. */
export function referenceDecode<D extends DescMessage>(
  schema: D,
  bytes: Uint8Array,
  options?: ReadOptions,
): MessageShape<D> {
  const msg = reflect(schema, undefined, false);
  const ctx: Ctx = { readUnknownFields: options?.readUnknownFields ?? true, recursionLimit: RECURSION_LIMIT, depth: 0 };
  readMessage(msg, new BinaryReader(bytes, decodeUtf8), ctx, false, bytes.byteLength);
  return msg.message as MessageShape<D>;
}

/** The wire type a field is written with. */
export function wireTypeOf(field: DescField): WireType {
  switch (field.fieldKind) {
    case "message":
      return field.delimitedEncoding ? WireType.StartGroup : WireType.LengthDelimited;
    case "map":
      return WireType.LengthDelimited;
    case "enum":
      return WireType.Varint;
    case "scalar":
      return scalarWireType(field.scalar);
    case "list":
      if (field.listKind === "message") return field.delimitedEncoding ? WireType.StartGroup : WireType.LengthDelimited;
      return field.listKind === "enum" ? WireType.Varint : scalarWireType(field.scalar);
  }
}

export function scalarWireType(type: ScalarType): WireType {
  switch (type) {
    case ScalarType.STRING:
    case ScalarType.BYTES:
      return WireType.LengthDelimited;
    case ScalarType.DOUBLE:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return WireType.Bit64;
    case ScalarType.FLOAT:
    case ScalarType.FIXED32:
    case ScalarType.SFIXED32:
      return WireType.Bit32;
    default:
      return WireType.Varint;
  }
}

/** Whether `wireType` is an encoding of `field`: its own, or packed for repeated numbers. */
function accepts(field: DescField, wireType: WireType): boolean {
  const own = wireTypeOf(field);
  if (wireType === own) return true;
  return (
    field.fieldKind === "list" &&
    field.listKind !== "message" &&
    own !== WireType.LengthDelimited &&
    wireType === WireType.LengthDelimited
  );
}

function readMessage(
  message: ReflectMessage,
  reader: BinaryReader,
  ctx: Ctx,
  delimited: boolean,
  lengthOrDelimitedFieldNo: number,
): void {
  if (++ctx.depth > ctx.recursionLimit) {
    throw new Error(
      `cannot decode ${message.desc.toString()} from binary: maximum recursion depth of ${ctx.recursionLimit} reached`,
    );
  }
  const end = delimited ? reader.len : reader.pos + lengthOrDelimitedFieldNo;
  let fieldNo = 0;
  let wireType: WireType | undefined;
  const unknownFields = message.getUnknown() ?? [];
  while (reader.pos < end) {
    [fieldNo, wireType] = reader.tag();
    if (delimited && wireType == WireType.EndGroup) break;
    const field = message.findNumber(fieldNo);
    if (!field || !accepts(field, wireType)) {
      // The remaining recursion budget also bounds nested groups being skipped.
      const data = reader.skip(wireType, fieldNo, ctx.recursionLimit - ctx.depth);
      if (ctx.readUnknownFields) unknownFields.push({ no: fieldNo, wireType, data });
      continue;
    }
    readField(message, reader, field, wireType, ctx);
  }
  if (delimited && (wireType != WireType.EndGroup || fieldNo !== lengthOrDelimitedFieldNo))
    throw new Error("invalid end group tag");
  if (unknownFields.length > 0) message.setUnknown(unknownFields);
  ctx.depth--;
}

function readField(
  message: ReflectMessage,
  reader: BinaryReader,
  field: DescField,
  wireType: WireType,
  ctx: Ctx,
): void {
  switch (field.fieldKind) {
    case "scalar":
      message.set(field, readScalar(reader, field.scalar, field.utf8Validation));
      break;
    case "enum": {
      const val = reader.int32();
      if (field.enum.open || field.enum.values.some((v) => v.number === val)) message.set(field, val);
      else if (ctx.readUnknownFields) {
        // A closed enum keeps a value it does not know as an unknown field, re-encoded as read.
        const data = new BinaryWriter().int32(val).finish();
        message.setUnknown([...(message.getUnknown() ?? []), { no: field.number, wireType, data }]);
      }
      break;
    }
    case "message":
      message.set(field, readMessageField(reader, ctx, field, message.get(field) as ReflectMessage | undefined));
      break;
    case "list":
      readListField(reader, wireType, message.get(field), ctx);
      break;
    case "map":
      readMapEntry(reader, message.get(field), ctx);
      break;
  }
}

function readMapEntry(reader: BinaryReader, map: ReflectMap, ctx: Ctx): void {
  const field = map.field();
  let key: unknown;
  let val: unknown;
  const len = reader.uint32();
  // The end is computed after reading the length: reader.pos is then at the entry's start.
  const end = reader.pos + len;
  while (reader.pos < end) {
    const [fieldNo, wireType] = reader.tag();
    if (fieldNo === 1 && wireType === scalarWireType(field.mapKey)) {
      key = readScalar(reader, field.mapKey, field.utf8Validation);
    } else if (fieldNo === 2 && field.mapKind === "scalar" && wireType === scalarWireType(field.scalar)) {
      val = readScalar(reader, field.scalar, field.utf8Validation);
    } else if (fieldNo === 2 && field.mapKind === "enum" && wireType === WireType.Varint) {
      val = reader.int32();
    } else if (fieldNo === 2 && field.mapKind === "message" && wireType === WireType.LengthDelimited) {
      val = readMessageField(reader, ctx, field);
    } else {
      // An entry is a message: what is not its key or value is an unknown field of it, dropped.
      reader.skip(wireType, fieldNo, ctx.recursionLimit - ctx.depth);
    }
  }
  if (key === undefined) key = scalarZeroValue(field.mapKey, false);
  if (val === undefined) {
    if (field.mapKind === "scalar") val = scalarZeroValue(field.scalar, false);
    else if (field.mapKind === "enum") val = field.enum.values[0]?.number ?? 0;
    else val = reflect(field.message, undefined, false);
  }
  map.set(key, val);
}

function readListField(reader: BinaryReader, wireType: WireType, list: ReflectList, ctx: Ctx): void {
  const field = list.field();
  if (field.listKind === "message") {
    list.add(readMessageField(reader, ctx, field));
    return;
  }
  const scalarType = field.listKind === "scalar" ? field.scalar : ScalarType.INT32;
  const packed =
    wireType == WireType.LengthDelimited && scalarType != ScalarType.STRING && scalarType != ScalarType.BYTES;
  if (!packed) {
    list.add(readScalar(reader, scalarType, field.utf8Validation));
    return;
  }
  const e = reader.uint32() + reader.pos;
  while (reader.pos < e) list.add(readScalar(reader, scalarType, field.utf8Validation));
}

function readMessageField(
  reader: BinaryReader,
  ctx: Ctx,
  field: DescField & { message: DescMessage; delimitedEncoding: boolean },
  merge?: ReflectMessage,
): ReflectMessage {
  const delimited = field.delimitedEncoding;
  const message = merge ?? reflect(field.message, undefined, false);
  readMessage(message, reader, ctx, delimited, delimited ? field.number : reader.uint32());
  return message;
}

function readScalar(reader: BinaryReader, type: ScalarType, validateUtf8 = false): unknown {
  switch (type) {
    case ScalarType.STRING:
      return reader.string(validateUtf8);
    case ScalarType.BOOL:
      return reader.bool();
    case ScalarType.DOUBLE:
      return reader.double();
    case ScalarType.FLOAT:
      return reader.float();
    case ScalarType.INT32:
      return reader.int32();
    case ScalarType.INT64:
      return reader.int64();
    case ScalarType.UINT64:
      return reader.uint64();
    case ScalarType.FIXED64:
      return reader.fixed64();
    case ScalarType.BYTES:
      return reader.bytes();
    case ScalarType.FIXED32:
      return reader.fixed32();
    case ScalarType.SFIXED32:
      return reader.sfixed32();
    case ScalarType.SFIXED64:
      return reader.sfixed64();
    case ScalarType.SINT64:
      return reader.sint64();
    case ScalarType.UINT32:
      return reader.uint32();
    case ScalarType.SINT32:
      return reader.sint32();
  }
}
