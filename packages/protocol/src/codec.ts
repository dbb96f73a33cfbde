import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import { compileCodec } from "./fast-codec.js";

/** grpc-js needs a Buffer, not a bare Uint8Array (TOOLCHAIN.md); this view copies nothing. */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Same bytes as protobuf-es toBinary, through the schema-specialized codec (fast-codec.ts). */
export function serializer<D extends DescMessage>(schema: D): (msg: MessageShape<D>) => Buffer {
  const codec = compileCodec(schema);
  return (msg) => asBuffer(codec.encode(msg));
}

/** Same message as referenceDecode (reference-decode.ts), through the schema-specialized codec. */
export function deserializer<D extends DescMessage>(schema: D): (buf: Buffer) => MessageShape<D> {
  const codec = compileCodec(schema);
  return (buf) => codec.decode(buf);
}
