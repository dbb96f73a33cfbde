// gRPC metadata as the bridge's API takes it: a plain record (or grpc-js Metadata), checked
// before anything goes on the wire, with an error that says which key is wrong and how to fix it.
// Keys ending in `-bin` carry bytes (the transport base64-encodes them); other keys carry
// printable ASCII text, as the gRPC HTTP/2 protocol requires.
import { Metadata } from "@grpc/grpc-js";

export type MetadataValue = string | Uint8Array;
export type MetadataInit = Metadata | Record<string, MetadataValue | readonly MetadataValue[]>;

export class MetadataError extends Error {
  readonly code = "invalid_metadata";
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

const KEY = /^[0-9a-z_.-]+$/;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

function check(key: string, value: MetadataValue, where: string): string | Buffer {
  // Header names are case-insensitive; HTTP/2 sends them lowercase.
  key = key.toLowerCase();
  if (!KEY.test(key))
    throw new MetadataError(
      `${where}: metadata key "${key}" is not valid: use lowercase letters, digits, '-', '_' and '.'`,
    );
  if (key.startsWith("grpc-") || key === "te" || key === "content-type" || key === "user-agent") {
    throw new MetadataError(`${where}: metadata key "${key}" is reserved for the transport; choose another name`);
  }
  if (key.endsWith("-bin")) {
    if (!(value instanceof Uint8Array))
      throw new MetadataError(
        `${where}: metadata key "${key}" ends in -bin, so its value must be bytes (a Uint8Array), not a ${typeof value}`,
      );
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  }
  if (typeof value !== "string")
    throw new MetadataError(`${where}: metadata key "${key}" holds bytes: give it a name ending in -bin, or send text`);
  if (!PRINTABLE_ASCII.test(value)) {
    throw new MetadataError(
      `${where}: the value of metadata key "${key}" must be printable ASCII (send other text or bytes under a key ending in -bin)`,
    );
  }
  return value;
}

/** Adds every entry of `init` to `target` (several values of one key are all kept). */
export function appendMetadata(target: Metadata, init: MetadataInit, where: string): Metadata {
  const entries: [string, readonly MetadataValue[]][] =
    init instanceof Metadata
      ? Object.entries(init.getMap()).map(([k]) => [k, init.get(k)])
      : Object.entries(init).map(([k, v]) => [k, typeof v === "string" || v instanceof Uint8Array ? [v] : v]);
  for (const [key, values] of entries) {
    for (const value of values) target.add(key.toLowerCase(), check(key, value, where));
  }
  return target;
}

/** A copy of `base` with `extra` added (neither is changed). */
export function mergedMetadata(base: Metadata | undefined, extra: Metadata): Metadata {
  const out = base ? base.clone() : new Metadata();
  out.merge(extra);
  return out;
}
