// Wire-level helpers called by the generated encoders/decoders of fast-codec.ts.
//
// The readers are ports of @bufbuild/protobuf 2.13's BinaryReader (wire/binary-encoding.js,
// wire/varint.js) with the same leniencies and the same errors, so that our decoder throws
// exactly where fromBinary throws: bounds are checked against the whole buffer (not the
// enclosing message), a varint longer than 10 bytes throws, a skipped unknown varint is not
// length-limited, tags must fit uint32 with field number > 0 and wire type <= 5.
// The writers validate their input and throw on anything protobuf-es would treat specially;
// fast-codec.ts then re-encodes the message with toBinary, which writes or throws exactly as
// protobuf-es does. So every throw here is a "not the fast path" signal, never a user error.
import { getTextEncoding } from "@bufbuild/protobuf/wire";

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;
const FLOAT32_MAX = 3.4028234663852886e38;

/** Thrown by writers on a value the fast path does not handle; caught by fast-codec.ts. */
export class NotFastPath extends Error {}
export function notFast(what: string): never {
  throw new NotFastPath(what);
}

const scratch = new DataView(new ArrayBuffer(8));
const encoder = new TextEncoder();

/**
 * Output buffer and position. The message being encoded starts at `start`: fast-codec.ts
 * encodes straight into a shared slab (see there), so bytes before `start` belong to others.
 */
export class Writer {
  buf: Uint8Array;
  start: number;
  pos: number;
  constructor(buf: Uint8Array, start: number) {
    this.buf = buf;
    this.start = this.pos = start;
  }
}

/** Makes room for `n` more bytes; returns the (possibly new) buffer. Offsets stay valid. */
export function ensure(w: Writer, n: number): Uint8Array {
  if (w.pos + n <= w.buf.length) return w.buf;
  let size = Math.max(w.buf.length * 2, 256);
  while (size < w.pos + n) size *= 2;
  const next = new Uint8Array(size);
  next.set(w.buf.subarray(w.start, w.pos), w.start);
  w.buf = next;
  return next;
}

export function varintLength(v: number): number {
  return v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5;
}

/** Unsigned 32-bit varint; `v` must be an integer in [0, 2^32). */
export function wVarint32(w: Writer, v: number): void {
  const b = ensure(w, 5);
  let p = w.pos;
  while (v > 0x7f) {
    b[p++] = (v & 0x7f) | 0x80;
    v = v >>> 7;
  }
  b[p++] = v;
  w.pos = p;
}

export function wByte(w: Writer, x: number): void {
  ensure(w, 1)[w.pos++] = x;
}

export function wByte2(w: Writer, x: number, y: number): void {
  const b = ensure(w, 2);
  b[w.pos] = x;
  b[w.pos + 1] = y;
  w.pos += 2;
}

function varint64(w: Writer, lo: number, hi: number): void {
  // Port of protobuf-es varint64write.
  const b = ensure(w, 10);
  let p = w.pos;
  for (let i = 0; i < 28; i = i + 7) {
    const shift = lo >>> i;
    const hasNext = !(shift >>> 7 == 0 && hi == 0);
    b[p++] = (hasNext ? shift | 0x80 : shift) & 0xff;
    if (!hasNext) {
      w.pos = p;
      return;
    }
  }
  const splitBits = ((lo >>> 28) & 0x0f) | ((hi & 0x07) << 4);
  const hasMoreBits = !(hi >> 3 == 0);
  b[p++] = (hasMoreBits ? splitBits | 0x80 : splitBits) & 0xff;
  if (hasMoreBits) {
    for (let i = 3; i < 31; i = i + 7) {
      const shift = hi >>> i;
      const hasNext = !(shift >>> 7 == 0);
      b[p++] = (hasNext ? shift | 0x80 : shift) & 0xff;
      if (!hasNext) {
        w.pos = p;
        return;
      }
    }
    b[p++] = (hi >>> 31) & 0x01;
  }
  w.pos = p;
}

export function wInt32(w: Writer, v: unknown): void {
  if (typeof v !== "number" || (v | 0) !== v) notFast("int32");
  const n = v;
  if (n >= 0) wVarint32(w, n);
  else varint64(w, n, -1);
}

export function wUint32(w: Writer, v: unknown): void {
  if (typeof v !== "number" || v >>> 0 !== v) notFast("uint32");
  wVarint32(w, v);
}

export function wSint32(w: Writer, v: unknown): void {
  if (typeof v !== "number" || (v | 0) !== v) notFast("sint32");
  const n = v;
  wVarint32(w, ((n << 1) ^ (n >> 31)) >>> 0);
}

export function wBool(w: Writer, v: unknown): void {
  if (v !== true && v !== false) notFast("bool");
  wByte(w, v ? 1 : 0);
}

function int64Bits(v: unknown, unsigned: boolean): void {
  if (typeof v !== "bigint" || v > (unsigned ? UINT64_MAX : INT64_MAX) || v < (unsigned ? 0n : INT64_MIN)) notFast("64-bit integer");
  scratch.setBigInt64(0, BigInt.asIntN(64, v), true);
}

/** A bigint in the safe-integer range as a varint, without BigInt arithmetic; false if not. */
function safeVarint64(w: Writer, v: unknown, unsigned: boolean): boolean {
  if (typeof v !== "bigint") return false;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || (unsigned && n < 0)) return false;
  if (n >= 0 && n <= 0xffffffff) wVarint32(w, n);
  else varint64(w, n >>> 0, Math.floor(n / 0x100000000) | 0);
  return true;
}

export function wInt64(w: Writer, v: unknown): void {
  if (safeVarint64(w, v, false)) return;
  int64Bits(v, false);
  varint64(w, scratch.getInt32(0, true), scratch.getInt32(4, true));
}

export function wUint64(w: Writer, v: unknown): void {
  if (safeVarint64(w, v, true)) return;
  int64Bits(v, true);
  varint64(w, scratch.getInt32(0, true), scratch.getInt32(4, true));
}

export function wSint64(w: Writer, v: unknown): void {
  int64Bits(v, false);
  const lo = scratch.getInt32(0, true);
  const hi = scratch.getInt32(4, true);
  const sign = hi >> 31;
  varint64(w, (lo << 1) ^ sign, ((hi << 1) | (lo >>> 31)) ^ sign);
}

function fixed64(w: Writer, v: unknown, unsigned: boolean): void {
  int64Bits(v, unsigned);
  const b = ensure(w, 8);
  for (let i = 0; i < 8; i++) b[w.pos + i] = scratch.getUint8(i);
  w.pos += 8;
}

export const wFixed64 = (w: Writer, v: unknown): void => fixed64(w, v, true);
export const wSfixed64 = (w: Writer, v: unknown): void => fixed64(w, v, false);

function fixed32(w: Writer): void {
  const b = ensure(w, 4);
  for (let i = 0; i < 4; i++) b[w.pos + i] = scratch.getUint8(i);
  w.pos += 4;
}

export function wFixed32(w: Writer, v: unknown): void {
  if (typeof v !== "number" || v >>> 0 !== v) notFast("fixed32");
  scratch.setUint32(0, v, true);
  fixed32(w);
}

export function wSfixed32(w: Writer, v: unknown): void {
  if (typeof v !== "number" || (v | 0) !== v) notFast("sfixed32");
  scratch.setInt32(0, v, true);
  fixed32(w);
}

export function wFloat(w: Writer, v: unknown): void {
  if (typeof v !== "number" || (Number.isFinite(v) && (v > FLOAT32_MAX || v < -FLOAT32_MAX))) notFast("float");
  scratch.setFloat32(0, v, true);
  fixed32(w);
}

export function wDouble(w: Writer, v: unknown): void {
  if (typeof v !== "number") notFast("double");
  scratch.setFloat64(0, v, true);
  const b = ensure(w, 8);
  for (let i = 0; i < 8; i++) b[w.pos + i] = scratch.getUint8(i);
  w.pos += 8;
}

export function wBytes(w: Writer, v: unknown): void {
  if (!(v instanceof Uint8Array)) return notFast("bytes");
  wVarint32(w, v.byteLength);
  ensure(w, v.byteLength).set(v, w.pos);
  w.pos += v.byteLength;
}

/** Below this many UTF-16 units a JS loop beats TextEncoder.encodeInto (and 3*n < 128). */
const SHORT_STRING = 42;

/** Length-prefixed UTF-8, byte-identical to TextEncoder (lone surrogates become U+FFFD). */
export function wString(w: Writer, s: unknown): void {
  if (typeof s !== "string") return notFast("string");
  const n = s.length;
  if (n > SHORT_STRING) return wLongString(w, s);
  const b = ensure(w, 1 + 3 * n);
  const start = w.pos;
  let p = start + 1;
  for (let i = 0; i < n; i++) {
    let c = s.charCodeAt(i);
    if (c < 0x80) {
      b[p++] = c;
    } else if (c < 0x800) {
      b[p++] = 0xc0 | (c >> 6);
      b[p++] = 0x80 | (c & 0x3f);
    } else if (c < 0xd800 || c > 0xdfff) {
      b[p++] = 0xe0 | (c >> 12);
      b[p++] = 0x80 | ((c >> 6) & 0x3f);
      b[p++] = 0x80 | (c & 0x3f);
    } else {
      const d = c <= 0xdbff && i + 1 < n ? s.charCodeAt(i + 1) : 0;
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        b[p++] = 0xf0 | (c >> 18);
        b[p++] = 0x80 | ((c >> 12) & 0x3f);
        b[p++] = 0x80 | ((c >> 6) & 0x3f);
        b[p++] = 0x80 | (c & 0x3f);
      } else {
        b[p++] = 0xef; // lone surrogate: U+FFFD, as TextEncoder does
        b[p++] = 0xbf;
        b[p++] = 0xbd;
      }
    }
  }
  b[start] = p - start - 1;
  w.pos = p;
}

/** Node's native UTF-8 writer (what `buffer.write` calls); it takes any Uint8Array, unlike encodeInto no view needed. */
const utf8Write = (Buffer.prototype as unknown as { utf8Write?: (this: Uint8Array, s: string, offset: number, max: number) => number }).utf8Write;

function wLongString(w: Writer, s: string): void {
  // Reserve room for the largest possible length prefix, encode natively, then move the
  // bytes back if the real prefix is shorter (one memmove instead of encoding twice).
  const max = 3 * s.length;
  const reserve = varintLength(max);
  const b = ensure(w, reserve + max);
  const start = w.pos;
  const written = utf8Write !== undefined ? utf8Write.call(b, s, start + reserve, max) : encoder.encodeInto(s, b.subarray(start + reserve)).written;
  const k = varintLength(written);
  if (k < reserve) b.copyWithin(start + k, start + reserve, start + reserve + written);
  wVarint32(w, written);
  w.pos = start + k + written;
}

/** Starts a length-delimited block (nested message, packed list): reserves one length byte. */
export function ldBegin(w: Writer): number {
  ensure(w, 1);
  return w.pos++;
}

/** Ends the block started at `start`: writes its length, moving the body if it needs > 1 byte. */
export function ldEnd(w: Writer, start: number): void {
  const len = w.pos - start - 1;
  if (len < 0x80) {
    w.buf[start] = len;
    return;
  }
  const k = varintLength(len);
  const b = ensure(w, k - 1);
  b.copyWithin(start + k, start + 1, w.pos);
  w.pos = start;
  wVarint32(w, len);
  w.pos = start + k + len;
}

/** Writes `$unknown` back as protobuf-es does: tag(no, wireType) then the raw bytes. */
export function wUnknown(w: Writer, unknown: unknown): void {
  if (!Array.isArray(unknown)) return notFast("$unknown");
  for (const u of unknown as { no: unknown; wireType: unknown; data: unknown }[]) {
    const { no, wireType, data } = u;
    if (typeof no !== "number" || typeof wireType !== "number" || !(data instanceof Uint8Array)) return notFast("$unknown entry");
    wVarint32(w, ((no << 3) | wireType) >>> 0);
    ensure(w, data.byteLength).set(data, w.pos);
    w.pos += data.byteLength;
  }
}

// ---------------------------------------------------------------------------------------
// Reading

export class Reader {
  readonly buf: Uint8Array;
  readonly len: number;
  pos = 0;
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
  if (bytesRead > 5 || (bytesRead == 5 && r.buf[r.pos - 1]! > 0x0f)) throw new Error("illegal tag: varint overflows uint32");
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

const textEncoding = getTextEncoding();
/** Node's native Latin-1 decoder (what `buffer.toString("latin1")` calls); it takes any Uint8Array. */
const latin1Slice = (Buffer.prototype as unknown as { latin1Slice?: (this: Uint8Array, start: number, end: number) => string }).latin1Slice;
/** Up to this many ASCII bytes, building the string in JS beats a call into native code. */
const SHORT_ASCII = 8;
/** Above this many bytes, TextDecoder (native, SIMD) beats scanning for ASCII in JS. */
const SCAN_MAX = 48;

/**
 * A proto3 string: strict UTF-8 (invalid input throws) through the very decoder protobuf-es
 * uses (which also drops a leading BOM), except for short pure-ASCII strings, on which every
 * decoder agrees and Latin-1 decoding (or a JS loop, for the shortest) is cheaper.
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
  return textEncoding.decodeUtf8(b.subarray(start, end), true);
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
export function unknownField(r: Reader, tag: number, recursionLimit: number, unknown: UnknownField[] | undefined): UnknownField[] {
  const no = tag >>> 3;
  const wireType = tag & 7;
  const data = rSkip(r, wireType, no, recursionLimit);
  (unknown ??= []).push({ no, wireType, data });
  return unknown;
}
