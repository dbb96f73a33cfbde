import type { DescMethod, MessageInitShape, MessageShape } from "@bufbuild/protobuf";
import type { GenService, GenServiceMethods } from "@bufbuild/protobuf/codegenv2";
import type { Metadata } from "@grpc/grpc-js";
import type { MetadataInit } from "./metadata.js";

export type AnyService = GenService<GenServiceMethods>;
export type MethodsOf<S> = S extends GenService<infer M> ? M : never;
type MethodSpec = Pick<DescMethod, "input" | "output" | "methodKind">;

export type In<M extends MethodSpec> = MessageShape<M["input"]>;
export type Out<M extends MethodSpec> = MessageShape<M["output"]>;
export type InInit<M extends MethodSpec> = MessageInitShape<M["input"]>;
export type OutInit<M extends MethodSpec> = MessageInitShape<M["output"]>;

/** What a server handler knows about its call, and what it adds to the response. */
export interface CallContext {
  /**
   * Fires when the client cancels, the deadline passes, or the server shuts down; its `reason`
   * is an RpcError saying which (CANCELLED, DEADLINE_EXCEEDED, UNAVAILABLE).
   */
  readonly signal: AbortSignal;
  readonly metadata: Metadata;
  readonly peer: string;
  /** Full method path, e.g. `/palisade.v1.ClientService/GetStatus`. */
  readonly path: string;
  /** What the service's authorizer returned for this call (undefined without one). */
  readonly principal: unknown;
  /**
   * Adds response headers. They go out with the first response message, else with the status;
   * after that (or after `sendHeader`) this throws. `-bin` keys take bytes, others ASCII text.
   */
  setHeader(init: MetadataInit): void;
  /** Sends the response headers now (e.g. before a long wait); later `setHeader` calls throw. */
  sendHeader(): void;
  /** Adds trailers, sent with the status whether the call succeeds or fails. */
  setTrailer(init: MetadataInit): void;
}

export type MethodHandler<M extends MethodSpec> = M["methodKind"] extends "unary"
  ? (request: In<M>, ctx: CallContext) => Promise<OutInit<M>>
  : M["methodKind"] extends "server_streaming"
    ? (request: In<M>, ctx: CallContext) => AsyncIterable<OutInit<M>>
    : M["methodKind"] extends "client_streaming"
      ? (requests: AsyncIterable<In<M>>, ctx: CallContext) => Promise<OutInit<M>>
      : (requests: AsyncIterable<In<M>>, ctx: CallContext) => AsyncIterable<OutInit<M>>;

/** A typed implementation of every method of a service. */
export type ServiceImpl<S extends AnyService> = {
  [K in keyof MethodsOf<S>]: MethodHandler<MethodsOf<S>[K]>;
};

export interface CallOptions {
  signal?: AbortSignal;
  /** Deadline relative to now. Unary calls default to the client's `defaultTimeoutMs`. */
  timeoutMs?: number;
  /** Request metadata: `-bin` keys take bytes, others printable ASCII text. */
  metadata?: MetadataInit;
  /** Called with the response headers when they arrive. */
  onHeader?: (header: Metadata) => void;
  /** Called with the trailers once the call ends, successful or not (also in RpcError.metadata). */
  onTrailer?: (trailer: Metadata) => void;
}

/** A bidi call: send with `send`, finish with `end`, read by iterating. */
export interface BidiCall<I, O> extends AsyncIterable<O> {
  /** Resolves once the message is handed to the transport (waits for drain). */
  send(message: I): Promise<void>;
  end(): void;
  cancel(): void;
}

export type ClientMethod<M extends MethodSpec> = M["methodKind"] extends "unary"
  ? (request: InInit<M>, options?: CallOptions) => Promise<Out<M>>
  : M["methodKind"] extends "server_streaming"
    ? (request: InInit<M>, options?: CallOptions) => AsyncIterable<Out<M>>
    : M["methodKind"] extends "client_streaming"
      ? (requests: AsyncIterable<InInit<M>> | Iterable<InInit<M>>, options?: CallOptions) => Promise<Out<M>>
      : (options?: CallOptions) => BidiCall<InInit<M>, Out<M>>;

/** A typed client for a service: one method per RPC plus `close()`. */
export type Client<S extends AnyService> = {
  [K in keyof MethodsOf<S>]: ClientMethod<MethodsOf<S>[K]>;
} & { close(): void; waitForReady(timeoutMs?: number): Promise<void> };
