// Protobuf strings are UTF-8 text, decoded strictly (invalid UTF-8 is an error, as in protobuf's
// reference implementations) and without dropping a leading U+FEFF: a BOM at the start of file
// text, a token or command output is content, and TextDecoder's default removes it silently.
const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const lenient = new TextDecoder("utf-8", { ignoreBOM: true });

/** A `decodeUtf8` for protobuf-es's BinaryReader: `strict` throws on invalid UTF-8. */
export function decodeUtf8(bytes: Uint8Array, strictUtf8?: boolean): string {
  return strictUtf8 ? strict.decode(bytes) : lenient.decode(bytes);
}

/** Strict decoding, as proto3 strings require. */
export function decodeUtf8Strict(bytes: Uint8Array): string {
  return strict.decode(bytes);
}
