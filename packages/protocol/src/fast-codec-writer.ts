// Wire-level writers called by the generated encoders of fast-codec.ts (see fast-codec-gen.ts).
// They produce exactly the bytes of protobuf-es 2.13's BinaryWriter (wire/binary-encoding.js,
// wire/varint.js). They also validate their input and throw NotFastPath on anything
// protobuf-es would treat specially; fast-codec.ts then re-encodes the message with toBinary,
// which writes or throws exactly as protobuf-es does. So a throw here is a "not the fast
// path" signal, never a user error.
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
  if (typeof v !== "bigint" || v > (unsigned ? UINT64_MAX : INT64_MAX) || v < (unsigned ? 0n : INT64_MIN))
    notFast("64-bit integer");
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
const utf8Write = (
  Buffer.prototype as unknown as { utf8Write?: (this: Uint8Array, s: string, offset: number, max: number) => number }
).utf8Write;

function wLongString(w: Writer, s: string): void {
  // Reserve room for the largest possible length prefix, encode natively, then move the
  // bytes back if the real prefix is shorter (one memmove instead of encoding twice).
  const max = 3 * s.length;
  const reserve = varintLength(max);
  const b = ensure(w, reserve + max);
  const start = w.pos;
  const written =
    utf8Write !== undefined
      ? utf8Write.call(b, s, start + reserve, max)
      : encoder.encodeInto(s, b.subarray(start + reserve)).written;
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
    if (typeof no !== "number" || typeof wireType !== "number" || !(data instanceof Uint8Array))
      return notFast("$unknown entry");
    wVarint32(w, ((no << 3) | wireType) >>> 0);
    ensure(w, data.byteLength).set(data, w.pos);
    w.pos += data.byteLength;
  }
}
