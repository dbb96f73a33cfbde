// A schema-specialized binary codec, byte-for-byte equivalent to protobuf-es `toBinary` and
// value-for-value to `referenceDecode` (protobuf-es's reader under the rules of protobuf's
// reference implementations: a known field with another wire type is an unknown field, a
// leading U+FEFF is kept; see reference-decode.ts) for proto3 messages, and several times
// faster: see bench/codec.mjs. Per message type it generates an encoder and a decoder
// (fast-codec-gen.ts) on first use; schemas it does not cover go to protobuf-es.
//
// Covered: proto3 files, all 15 scalar types (64-bit as bigint), open enums, strings, bytes,
// nested and recursive messages, repeated fields (packed and unpacked), oneofs, implicit
// presence and unknown fields. Not covered, so protobuf-es handles the whole schema (decided
// once, at compile time, for the schema and every message type it reaches): maps, explicit
// presence (proto2, editions, proto3 `optional`), groups, closed enums, `jstype = JS_STRING`,
// google.protobuf.* types (wrappers and Struct are special-cased by protobuf-es), and a
// protobuf-es without bigint (BUF_BIGINT_DISABLE=1).
//
// Encoding validates every value it writes; on anything unexpected (a number in an int64
// field, a missing property, a foreign message, ...) it re-encodes the message with toBinary,
// which then writes or throws exactly as protobuf-es does. Decoding never falls back: it
// reproduces the reads, leniencies and errors of protobuf-es's reader (fast-codec-reader.ts).
import { protoInt64, toBinary } from "@bufbuild/protobuf";
import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import { Edition, FeatureSet_FieldPresence } from "@bufbuild/protobuf/wkt";
import { generateSource } from "./fast-codec-gen.js";
import * as reader from "./fast-codec-reader.js";
import { referenceDecode } from "./reference-decode.js";
import { Reader } from "./fast-codec-reader.js";
import * as writer from "./fast-codec-writer.js";
import { Writer } from "./fast-codec-writer.js";

export interface DecodeOptions {
  /** Default true, as in protobuf-es. */
  readUnknownFields?: boolean;
}

export interface Codec<D extends DescMessage = DescMessage> {
  readonly schema: D;
  /** Why this schema is encoded and decoded by protobuf-es; undefined when it is fast. */
  readonly fallback: string | undefined;
  /** Same bytes as `toBinary(schema, message)`. */
  encode(message: MessageShape<D>): Uint8Array;
  /**
   * Same message as `referenceDecode(schema, bytes, options)`, or the same kind of error. With
   * `readUnknownFields: false` unknown fields are skipped instead of kept in `$unknown`: what a
   * server does with requests, so a body of many tiny unknown fields costs no memory.
   */
  decode(bytes: Uint8Array, options?: DecodeOptions): MessageShape<D>;
}

/** Counts encodes that left the fast path for toBinary (tests assert it stays 0 for valid messages). */
export const fastCodecStats = { encodeFallbacks: 0 };

type Message = Record<string, unknown> & { $typeName: string };

/** The generated functions of one message type; starts as stubs that generate on first call. */
interface Compiled {
  init: () => Message;
  enc: (m: unknown, w: Writer) => void;
  dec: (m: Message, r: Reader, end: number, depth: number) => void;
}

/** Why `desc` (or a message type it reaches) is not covered, or undefined. */
export function unsupportedReason(desc: DescMessage, seen = new Set<DescMessage>()): string | undefined {
  if (seen.has(desc)) return undefined;
  seen.add(desc);
  if (!protoInt64.supported) return "protobuf-es represents 64-bit integers as strings here";
  if (desc.file.edition !== Edition.EDITION_PROTO3) return `${desc.toString()}: ${desc.file.name}.proto is not proto3`;
  if (desc.typeName.startsWith("google.protobuf."))
    return `${desc.toString()}: well-known types are left to protobuf-es`;
  for (const f of desc.fields) {
    const where = f.toString();
    if (f.fieldKind === "map") return `${where}: map fields are left to protobuf-es`;
    if (
      (f.fieldKind === "scalar" || f.fieldKind === "enum") &&
      !f.oneof &&
      f.presence !== FeatureSet_FieldPresence.IMPLICIT
    )
      return `${where}: explicit presence`;
    if ((f.fieldKind === "scalar" || (f.fieldKind === "list" && f.listKind === "scalar")) && f.longAsString)
      return `${where}: jstype = JS_STRING`;
    if ((f.fieldKind === "enum" || (f.fieldKind === "list" && f.listKind === "enum")) && !f.enum.open)
      return `${where}: closed enum`;
    if (f.fieldKind === "message" || (f.fieldKind === "list" && f.listKind === "message")) {
      if (f.delimitedEncoding) return `${where}: group (delimited) encoding`;
      const nested = unsupportedReason(f.message, seen);
      if (nested !== undefined) return nested;
    }
  }
  return undefined;
}

/** The helpers generated code may call (see fast-codec-gen.ts), passed as `rt`. */
const runtime: Record<string, unknown> = { ...writer, ...reader, hasOwn: Object.hasOwn };
delete runtime.Reader;
delete runtime.Writer;
delete runtime.NotFastPath;
const runtimeNames = Object.keys(runtime);

const compiled = new WeakMap<DescMessage, Compiled>();

function compiledOf(desc: DescMessage): Compiled {
  let c = compiled.get(desc);
  if (c === undefined) {
    const stub: Compiled = {
      init: () => generate(desc, stub).init(),
      enc: (m, w) => generate(desc, stub).enc(m, w),
      dec: (m, r, end, depth) => generate(desc, stub).dec(m, r, end, depth),
    };
    compiled.set(desc, (c = stub));
  }
  return c;
}

/** Generates the functions of `desc` and installs them on its record (replacing the stubs). */
function generate(desc: DescMessage, into: Compiled): Compiled {
  const deps: DescMessage[] = [];
  const depIndex = (d: DescMessage): number => (deps.includes(d) ? deps.indexOf(d) : deps.push(d) - 1);
  const source = generateSource(desc, depIndex, runtimeNames);
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- schema-specialized code generated from our own descriptors (no user input), as protobufjs does; measurably faster than closures
  const make = new Function("rt", "deps", source) as (rt: unknown, deps: Compiled[]) => Compiled;
  const fns = make(runtime, deps.map(compiledOf));
  into.init = fns.init;
  into.enc = fns.enc;
  into.dec = fns.dec;
  return fns;
}

// Encoding writes straight into a shared slab and returns a view of it, as Node's
// Buffer.allocUnsafe pools small buffers: allocating a fresh ArrayBuffer per message costs
// more (~1-2 µs) than encoding a small one. A message that outgrows the slab gets its own
// buffer. So `encode(m).buffer` may be shared with other messages (use byteOffset/byteLength).
const SLAB_BYTES = 64 * 1024;
/** Start a new slab rather than growing out of this little room. */
const MIN_ROOM = 512;
let slab = new Uint8Array(SLAB_BYTES);
let slabUsed = 0;
let encoding = false;
const slabWriter = new Writer(slab, 0);

function fastCodec<D extends DescMessage>(schema: D): Codec<D> {
  const c = compiledOf(schema);
  const fallback = (message: MessageShape<D>): Uint8Array => {
    fastCodecStats.encodeFallbacks++;
    return toBinary(schema, message);
  };
  return {
    schema,
    fallback: undefined,
    encode(message) {
      if (encoding) {
        // Re-entered (a getter that encodes): use a private buffer, leave the slab alone.
        const own = new Writer(new Uint8Array(256), 0);
        try {
          c.enc(message, own);
        } catch {
          return fallback(message);
        }
        return own.buf.subarray(0, own.pos);
      }
      encoding = true;
      if (SLAB_BYTES - slabUsed < MIN_ROOM) {
        slab = new Uint8Array(SLAB_BYTES);
        slabUsed = 0;
      }
      const w = slabWriter;
      w.buf = slab;
      w.start = w.pos = slabUsed;
      try {
        c.enc(message, w);
        // Outgrown: the message got its own buffer; the next one starts a fresh slab, or
        // it would outgrow the same little room again.
        slabUsed = w.buf === slab ? w.pos : SLAB_BYTES;
        return new Uint8Array(w.buf.buffer, w.start, w.pos - w.start);
      } catch {
        return fallback(message);
      } finally {
        w.buf = slab; // drop a grown buffer
        encoding = false;
      }
    },
    decode(bytes, options) {
      const m = c.init();
      const r = new Reader(bytes);
      if (options?.readUnknownFields === false) r.keepUnknown = false;
      c.dec(m, r, bytes.byteLength, 1);
      return m as MessageShape<D>;
    },
  };
}

/** The codec of a schema the fast codec does not cover: toBinary and referenceDecode. */
export function protobufEsCodec<D extends DescMessage>(schema: D, fallback: string): Codec<D> {
  return {
    schema,
    fallback,
    encode: (message) => toBinary(schema, message),
    decode: (bytes, options) => referenceDecode(schema, bytes, options),
  };
}

const codecs = new WeakMap<DescMessage, Codec>();

/** The codec of `schema`, generated once and cached. */
export function compileCodec<D extends DescMessage>(schema: D): Codec<D> {
  let codec = codecs.get(schema) as Codec<D> | undefined;
  if (codec === undefined) {
    const reason = unsupportedReason(schema);
    codec = reason === undefined ? fastCodec(schema) : protobufEsCodec(schema, reason);
    codecs.set(schema, codec);
  }
  return codec;
}
