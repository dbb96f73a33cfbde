import { fromBinary, toBinary } from "@bufbuild/protobuf";
import type { DescMessage, MessageShape } from "@bufbuild/protobuf";

/** grpc-js needs a Buffer, not a bare Uint8Array (TOOLCHAIN.md); this view copies nothing. */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function serializer<D extends DescMessage>(schema: D): (msg: MessageShape<D>) => Buffer {
  return (msg) => asBuffer(toBinary(schema, msg));
}

export function deserializer<D extends DescMessage>(schema: D): (buf: Buffer) => MessageShape<D> {
  return (buf) => fromBinary(schema, buf);
}
