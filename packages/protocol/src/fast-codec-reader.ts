// Wire-level readers called by the generated decoders of fast-codec.ts (see fast-codec-gen.ts).
// They are ports of protobuf-es 2.13's BinaryReader (wire/binary-encoding.js, wire/varint.js)
// with the same leniencies and the same errors, so that our decoder throws exactly where
// fromBinary throws: bounds are checked against the whole buffer (not the enclosing
// message), a varint longer than 10 bytes throws, a skipped unknown varint is not
// length-limited, tags must fit uint32 with field number > 0 and wire type <= 5.
import { decodeUtf8Strict } from "./utf8.js";

const scratch = new DataView(new ArrayBuffer(8));

export class Reader {
  readonly buf: Uint8Array;
  readonly len: number;
  pos = 0;
  /** False: unknown fields are skipped, not kept in `$unknown` (requests from untrusted peers). */
  keepUnknown = true;
  /** Result of rVarint64: low and high 32 bits. */
  lo = 0;
  hi = 0;
  private dv: DataView | undefined;
  constructor(buf: Uint8Array) {
    this.buf = buf;
    this.len = buf.length;
  }
  get view(): DataView {
    return (this.dv ??= new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength));
  }
}

function premature(): never {
  throw new RangeError("premature EOF");
}

function end32(r: Reader, p: number, result: number): number {
  if (p > r.len) premature();
  r.pos = p;
  return result;
}

/** Port of protobuf-es varint32read: up to 10 bytes, keeps the low 32 bits. */
export function rVarint32(r: Reader): number {
  const b = r.buf;
  let p = r.pos;
  let x = b[p++]!;
  let result = x & 0x7f;
  if ((x & 0x80) === 0) return end32(r, p, result);
  x = b[p++]!;
  result |= (x & 0x7f) << 7;
  if ((x & 0x80) === 0) return end32(r, p, result);
  x = b[p++]!;
  result |= (x & 0x7f) << 14;
  if ((x & 0x80) === 0) return end32(r, p, result);
  x = b[p++]!;
  result |= (x & 0x7f) << 21;
  if ((x & 0x80) === 0) return end32(r, p, result);
  x = b[p++]!;
  result |= (x & 0x0f) << 28;
  for (let readBytes = 5; (x & 0x80) !== 0 && readBytes < 10; readBytes++) x = b[p++]!;
  if ((x & 0x80) !== 0) throw new Error("invalid varint");
  if (p > r.len) premature();
  r.pos = p;
  return result >>> 0;
}

/** Port of protobuf-es BinaryReader.tag(); returns the raw tag (fieldNo << 3 | wireType). */
export function rTag(r: Reader): number {
  const start = r.pos;
  const tag = rVarint32(r);
  const bytesRead = r.pos - start;
  if (bytesRead > 5 || (bytesRead == 5 && r.buf[r.pos - 1]! > 0x0f))
    throw new Error("illegal tag: varint overflows uint32");
  const fieldNo = tag >>> 3;
  const wireType = tag & 7;
  if (fieldNo <= 0 || wireType > 5) throw new Error("illegal tag: field no " + fieldNo + " wire type " + wireType);
  return tag;
}

/** Port of protobuf-es varint64read; the result is in r.lo / r.hi. */
export function rVarint64(r: Reader): void {
  const b = r.buf;
  let lowBits = 0;
  let highBits = 0;
  for (let shift = 0; shift < 28; shift += 7) {
    const x = b[r.pos++]!;
    lowBits |= (x & 0x7f) << shift;
    if ((x & 0x80) == 0) return done64(r, lowBits, highBits);
  }
  const middleByte = b[r.pos++]!;
  lowBits |= (middleByte & 0x0f) << 28;
  highBits = (middleByte & 0x70) >> 4;
  if ((middleByte & 0x80) == 0) return done64(r, lowBits, highBits);
  for (let shift = 3; shift <= 31; shift += 7) {
    const x = b[r.pos++]!;
    highBits |= (x & 0x7f) << shift;
    if ((x & 0x80) == 0) return done64(r, lowBits, highBits);
  }
  throw new Error("invalid varint");
}

function done64(r: Reader, lo: number, hi: number): void {
  if (r.pos > r.len) premature();
  r.lo = lo;
  r.hi = hi;
}

function int64Of(lo: number, hi: number): bigint {
  // Small non-negative values (the common case: ids, timestamps) skip the DataView.
  if (hi >= 0 && hi < 0x200000) return BigInt(hi * 0x100000000 + (lo >>> 0));
  scratch.setInt32(0, lo, true);
  scratch.setInt32(4, hi, true);
  return scratch.getBigInt64(0, true);
}

function uint64Of(lo: number, hi: number): bigint {
  if (hi >= 0 && hi < 0x200000) return BigInt(hi * 0x100000000 + (lo >>> 0));
  scratch.setInt32(0, lo, true);
  scratch.setInt32(4, hi, true);
  return scratch.getBigUint64(0, true);
}

export function rInt64(r: Reader): bigint {
  rVarint64(r);
  return int64Of(r.lo, r.hi);
}

export function rUint64(r: Reader): bigint {
  rVarint64(r);
  return uint64Of(r.lo, r.hi);
}

export function rSint64(r: Reader): bigint {
  rVarint64(r);
  const s = -(r.lo & 1);
  const lo = ((r.lo >>> 1) | ((r.hi & 1) << 31)) ^ s;
  const hi = (r.hi >>> 1) ^ s;
  return int64Of(lo, hi);
}

export function rBool(r: Reader): boolean {
  rVarint64(r);
  return r.lo !== 0 || r.hi !== 0;
}

export function rSint32(r: Reader): number {
  const z = rVarint32(r);
  return (z >>> 1) ^ -(z & 1);
}

export function rFixed32(r: Reader): number {
  return r.view.getUint32((r.pos += 4) - 4, true);
}
export function rSfixed32(r: Reader): number {
  return r.view.getInt32((r.pos += 4) - 4, true);
}
export function rFloat(r: Reader): number {
  return r.view.getFloat32((r.pos += 4) - 4, true);
}
export function rDouble(r: Reader): number {
  return r.view.getFloat64((r.pos += 8) - 8, true);
}
export function rFixed64(r: Reader): bigint {
  const lo = rSfixed32(r);
  return uint64Of(lo, rSfixed32(r));
}
export function rSfixed64(r: Reader): bigint {
  const lo = rSfixed32(r);
  return int64Of(lo, rSfixed32(r));
}

export function rBytes(r: Reader): Uint8Array {
  const len = rVarint32(r);
  const start = r.pos;
  r.pos += len;
  if (r.pos > r.len) premature();
  return r.buf.subarray(start, start + len);
}

/** Node's native Latin-1 decoder (what `buffer.toString("latin1")` calls); it takes any Uint8Array. */
const latin1Slice = (
  Buffer.prototype as unknown as { latin1Slice?: (this: Uint8Array, start: number, end: number) => string }
).latin1Slice;
/** Up to this many ASCII bytes, building the string in JS beats a call into native code. */
const SHORT_ASCII = 8;
/** Above this many bytes, TextDecoder (native, SIMD) beats scanning for ASCII in JS. */
const SCAN_MAX = 48;

/**
 * A proto3 string: strict UTF-8 (invalid input throws) with a leading U+FEFF kept (utf8.ts),
 * except for short pure-ASCII strings, on which every decoder agrees and Latin-1 decoding (or a
 * JS loop, for the shortest) is cheaper.
 */
export function rString(r: Reader): string {
  const len = rVarint32(r);
  const start = r.pos;
  const end = start + len;
  r.pos = end;
  if (end > r.len) premature();
  const b = r.buf;
  if (len <= SCAN_MAX) {
    let i = start;
    while (i < end && b[i]! < 0x80) i++;
    if (i === end) {
      if (len > SHORT_ASCII && latin1Slice !== undefined) return latin1Slice.call(b, start, end);
      let s = "";
      for (i = start; i < end; i++) s += String.fromCharCode(b[i]!);
      return s;
    }
  }
  return decodeUtf8Strict(b.subarray(start, end));
}

/** Port of protobuf-es BinaryReader.skip(): returns the skipped bytes (after the tag). */
export function rSkip(r: Reader, wireType: number, fieldNo: number, recursionLimit: number): Uint8Array {
  const start = r.pos;
  switch (wireType) {
    case 0:
      while (r.buf[r.pos++]! & 0x80) {
        // a skipped varint has no length limit in protobuf-es either
      }
      break;
    case 1:
      r.pos += 8;
      break;
    case 5:
      r.pos += 4;
      break;
    case 2: {
      const len = rVarint32(r);
      r.pos += len;
      break;
    }
    case 3:
      if (recursionLimit <= 0) throw new Error("maximum recursion depth reached");
      for (;;) {
        const tag = rTag(r);
        const fn = tag >>> 3;
        const wt = tag & 7;
        if (wt === 4) {
          if (fn !== fieldNo) throw new Error("invalid end group tag");
          break;
        }
        rSkip(r, wt, fn, recursionLimit - 1);
      }
      break;
    default:
      throw new Error("cant skip wire type " + wireType);
  }
  if (r.pos > r.len) premature();
  return r.buf.subarray(start, r.pos);
}

export interface UnknownField {
  no: number;
  wireType: number;
  data: Uint8Array;
}

/** Skips an unknown field and records it as fromBinary does (data shares the input buffer). */
export function unknownField(
  r: Reader,
  tag: number,
  recursionLimit: number,
  unknown: UnknownField[] | undefined,
): UnknownField[] {
  const no = tag >>> 3;
  const wireType = tag & 7;
  const data = rSkip(r, wireType, no, recursionLimit);
  (unknown ??= []).push({ no, wireType, data });
  return unknown;
}
