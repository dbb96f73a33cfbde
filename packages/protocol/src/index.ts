export { createClient, openChannel } from "./client.js";
export type { ClientOptions } from "./client.js";
export { DEFAULT_MAX_CONCURRENT_STREAMS, RpcServer } from "./server.js";
export type { Authorizer, ServerOptions, ServiceAuthorizer, ServiceOptions } from "./server.js";
export { Code, RpcError, isAbortError } from "./errors.js";
export { MetadataError } from "./metadata.js";
export type { MetadataInit, MetadataValue } from "./metadata.js";
export { AsyncQueue } from "./queue.js";
export { asBuffer } from "./codec.js";
export { chainHistoryDigest } from "./history-digest.js";
export type { DigestibleMessage } from "./history-digest.js";
export { compileCodec, fastCodecStats } from "./fast-codec.js";
export type { Codec, DecodeOptions } from "./fast-codec.js";
export { toServiceDefinition, methodPath } from "./definition.js";
export {
  DEFAULT_MAX_MESSAGE_BYTES,
  defaultChannelOptions,
  isUnixAddress,
  normalizeAddress,
  unixSocketPath,
} from "./address.js";
export type {
  AnyService,
  BidiCall,
  CallContext,
  CallOptions,
  Client,
  ClientMethod,
  MethodHandler,
  MethodsOf,
  ServiceImpl,
} from "./types.js";
