import { setMaxListeners } from "node:events";
import { chmod } from "node:fs/promises";
import { create, isMessage } from "@bufbuild/protobuf";
import type { DescMessage, DescMethod, DescService, MessageShape } from "@bufbuild/protobuf";
import { Server, ServerCredentials, ServerInterceptingCall } from "@grpc/grpc-js";
import type {
  Metadata,
  ServerInterceptingCallInterface,
  ServerInterceptor,
  ServerDuplexStream,
  ServerReadableStream,
  ServerUnaryCall,
  ServerWritableStream,
  ServiceError,
  UntypedHandleCall,
  sendUnaryData,
} from "@grpc/grpc-js";
import { DEFAULT_MAX_MESSAGE_BYTES, normalizeAddress, unixSocketPath } from "./address.js";
import { compileCodec } from "./fast-codec.js";
import { methodPath, toServiceDefinition } from "./definition.js";
import { mergedMetadata } from "./metadata.js";
import { contextFor } from "./server-context.js";
import type { ServerCallLike, ServerCallState } from "./server-context.js";
import { iterateReadable } from "./readable.js";
import { Code, RpcError } from "./errors.js";
import type { AnyService, CallContext, ServiceImpl } from "./types.js";

/** Decides whether a call may proceed; throw an RpcError (e.g. UNAUTHENTICATED) to refuse it. */
export type Authorizer = (metadata: Metadata, path: string) => void;

/**
 * Checks a call's credential from its metadata alone, before a byte of the request body is read
 * or decoded; throw an RpcError (UNAUTHENTICATED) to refuse. What it returns is the caller's
 * identity, handed to the handler as `ctx.principal`.
 */
export type ServiceAuthorizer = (metadata: Metadata, call: { path: string; peer: string }) => unknown;

/** What one service of the server demands and accepts. */
export interface ServiceOptions {
  authorize?: ServiceAuthorizer;
  /**
   * Largest request message of this service (default: the server's `maxMessageBytes`). Checked
   * on the raw bytes before decoding: larger requests get RESOURCE_EXHAUSTED.
   */
  maxMessageBytes?: number;
}

export interface ServerOptions {
  /**
   * Largest message the transport reads or writes (default 16 MiB). A service may accept less
   * (ServiceOptions.maxMessageBytes), never more.
   */
  maxMessageBytes?: number;
  /** Concurrent calls one connection may have open (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS; default 256). */
  maxConcurrentStreams?: number;
  /** Applies to every service, before the service's own `authorize`. */
  authorize?: Authorizer;
  /** Called with errors that are not RpcErrors before they become INTERNAL statuses. */
  onInternalError?: (err: unknown, path: string) => void;
  /** Called for every call refused by an authorizer (the Engine logs them). */
  onRefused?: (err: RpcError, path: string, peer: string) => void;
}

export const DEFAULT_MAX_CONCURRENT_STREAMS = 256;

type AnyHandler = (...args: never[]) => unknown;
type Writable<T> = { write(msg: T): boolean; once(ev: "drain", cb: () => void): unknown };

/** The status of a failed call; `trailer` (what the handler set) goes with the error's own metadata. */
function toServiceError(err: unknown, path: string, options: ServerOptions, trailer?: Metadata): Partial<ServiceError> {
  const withTrailer = (md: Metadata | undefined): Metadata | undefined =>
    trailer !== undefined && Object.keys(trailer.getMap()).length > 0 ? mergedMetadata(md, trailer) : md;
  if (err instanceof RpcError) return { code: err.code, details: err.message, metadata: withTrailer(err.metadata) };
  options.onInternalError?.(err, path);
  const message = err instanceof Error ? err.message : String(err);
  const metadata = withTrailer(undefined);
  return metadata ? { code: Code.INTERNAL, details: message, metadata } : { code: Code.INTERNAL, details: message };
}

async function writeAll<T extends DescMessage>(
  schema: T,
  call: Writable<MessageShape<T>>,
  source: AsyncIterable<unknown>,
  state: ServerCallState,
): Promise<void> {
  const signal = state.ctx.signal;
  for await (const item of source) {
    if (signal.aborted) return;
    const message = isMessage(item, schema) ? item : create(schema, item as never);
    state.flushHeader();
    const ok = call.write(message);
    if (!ok) await new Promise<void>((resolve) => call.once("drain", resolve));
  }
}

type Decode = (raw: unknown) => unknown;

/**
 * Decodes a request the transport handed over as raw bytes: refused over the service's size
 * limit, unknown fields skipped (never kept), a malformed body is INVALID_ARGUMENT.
 */
function requestDecoder(method: DescMethod, path: string, maxBytes: number): Decode {
  const codec = compileCodec(method.input);
  return (raw) => {
    if (!(raw instanceof Uint8Array)) return raw;
    if (raw.byteLength > maxBytes) {
      throw new RpcError(
        Code.RESOURCE_EXHAUSTED,
        `${path}: a request of ${String(raw.byteLength)} bytes is over this service's limit of ${String(maxBytes)} bytes`,
      );
    }
    try {
      return codec.decode(raw, { readUnknownFields: false });
    } catch (err) {
      throw new RpcError(
        Code.INVALID_ARGUMENT,
        `${path}: the request is not a valid ${method.input.typeName}: ${(err as Error).message}`,
      );
    }
  };
}

function requestsOf(
  call: ServerReadableStream<unknown, unknown> | ServerDuplexStream<unknown, unknown>,
  signal: AbortSignal,
  decode: Decode,
): AsyncIterable<unknown> {
  const requests = iterateReadable<unknown>(call, (err) => RpcError.from(err));
  const onAbort = (): void => requests.fail(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  return {
    [Symbol.asyncIterator]: () => {
      const it = requests[Symbol.asyncIterator]();
      return {
        next: async () => {
          const r = await it.next();
          return r.done ? r : { done: false, value: decode(r.value) };
        },
        return: async () => (it.return ? it.return() : { value: undefined, done: true }),
      };
    },
  };
}

interface Route {
  options: ServiceOptions;
}

function wrapHandler(
  service: DescService,
  method: DescMethod,
  handler: AnyHandler,
  options: ServerOptions,
  serviceOptions: ServiceOptions,
  principals: WeakMap<Metadata, unknown>,
  shutdown: AbortSignal,
): UntypedHandleCall {
  const path = methodPath(service, method);
  const decode = requestDecoder(
    method,
    path,
    Math.min(serviceOptions.maxMessageBytes ?? Infinity, options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES),
  );
  const fn = handler as (a: unknown, ctx: CallContext) => unknown;
  const open = (call: ServerCallLike): ServerCallState =>
    contextFor(call, path, shutdown, principals.get(call.metadata));
  /** Ends a call with one response message (unary, client streaming): headers, message, trailers. */
  const answer = (state: ServerCallState, callback: sendUnaryData<unknown>, run: () => unknown): void => {
    Promise.resolve()
      .then(run)
      .then((res) => create(method.output, res as never))
      .then(
        (msg) => {
          state.flushHeader();
          callback(null, msg, state.trailer);
        },
        (err: unknown) => {
          state.flushHeader();
          callback(toServiceError(err, path, options, state.trailer));
        },
      )
      .finally(() => state.done());
  };
  /** Ends a call that streams its responses: headers before the first, trailers with the status. */
  const stream = (
    state: ServerCallState,
    call: ServerWritableStream<unknown, unknown> | ServerDuplexStream<unknown, unknown>,
    run: () => unknown,
  ): void => {
    Promise.resolve()
      .then(() => writeAll(method.output, call, run() as AsyncIterable<unknown>, state))
      .then(
        () => {
          state.flushHeader();
          call.end(state.trailer);
        },
        (err: unknown) => {
          state.flushHeader();
          call.emit("error", toServiceError(err, path, options, state.trailer));
        },
      )
      .finally(() => state.done());
  };

  switch (method.methodKind) {
    case "unary":
      return (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
        const state = open(call);
        answer(state, callback, () => fn(decode(call.request), state.ctx));
      };
    case "client_streaming":
      return (call: ServerReadableStream<unknown, unknown>, callback: sendUnaryData<unknown>) => {
        const state = open(call);
        answer(state, callback, () => fn(requestsOf(call, state.ctx.signal, decode), state.ctx));
      };
    case "server_streaming":
      return (call: ServerWritableStream<unknown, unknown>) => {
        const state = open(call);
        stream(state, call, () => fn(decode(call.request), state.ctx));
      };
    case "bidi_streaming":
      return (call: ServerDuplexStream<unknown, unknown>) => {
        const state = open(call);
        stream(state, call, () => fn(requestsOf(call, state.ctx.signal, decode), state.ctx));
      };
  }
}

/**
 * A grpc-js server hosting typed implementations of protobuf-es services.
 *
 * Order of a call: its metadata is authorized (the server's `authorize`, then the service's) by a
 * grpc-js interceptor before the transport reads any of the request body; a refused call ends
 * there, its body discarded unread. Then each request message arrives as raw bytes, is checked
 * against the service's size limit and decoded without unknown fields, and reaches the handler.
 */
export class RpcServer {
  readonly grpc: Server;
  private readonly options: ServerOptions;
  private readonly shutdown = new AbortController();
  private readonly routes = new Map<string, Route>();
  /** The authorizer's answer per call, keyed by the call's metadata object (the handler sees the same one). */
  private readonly principals = new WeakMap<Metadata, unknown>();
  private boundAddress: string | undefined;

  constructor(options: ServerOptions = {}) {
    this.options = options;
    // Every call in flight listens for shutdown: hundreds at once are normal, not a leak.
    setMaxListeners(0, this.shutdown.signal);
    const max = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.grpc = new Server({
      "grpc.max_receive_message_length": max,
      "grpc.max_send_message_length": max,
      "grpc.max_concurrent_streams": options.maxConcurrentStreams ?? DEFAULT_MAX_CONCURRENT_STREAMS,
      // channelz (grpc's introspection service) is never served here; its per-call
      // bookkeeping is pure cost.
      "grpc.enable_channelz": 0,
      interceptors: [this.authorizer],
    });
  }

  add<S extends AnyService>(service: S, impl: ServiceImpl<S>, serviceOptions: ServiceOptions = {}): this {
    const handlers: Record<string, UntypedHandleCall> = {};
    const table = impl as unknown as Record<string, AnyHandler | undefined>;
    for (const method of service.methods) {
      const handler = table[method.localName];
      if (!handler) throw new Error(`${service.typeName}: no handler for ${method.name}`);
      handlers[method.localName] = wrapHandler(
        service,
        method,
        handler.bind(impl),
        this.options,
        serviceOptions,
        this.principals,
        this.shutdown.signal,
      );
      this.routes.set(methodPath(service, method), { options: serviceOptions });
    }
    this.grpc.addService(toServiceDefinition(service, { rawRequests: true }), handlers);
    return this;
  }

  /** Runs on every call's metadata, before the handler starts reading the request. */
  private readonly authorizer: ServerInterceptor = (method, call: ServerInterceptingCallInterface) => {
    // Nothing to check: the call goes on untouched (grpc-js only chains what is returned).
    if (!this.options.authorize && !this.routes.get(method.path)?.options.authorize)
      return call as ServerInterceptingCall;
    return new ServerInterceptingCall(call, {
      start: (next) =>
        next({
          onReceiveMetadata: (metadata, proceed) => {
            const path = method.path;
            try {
              this.options.authorize?.(metadata, path);
              const authorize = this.routes.get(path)?.options.authorize;
              if (authorize) this.principals.set(metadata, authorize(metadata, { path, peer: call.getPeer() }));
            } catch (err) {
              if (err instanceof RpcError) this.options.onRefused?.(err, path, call.getPeer());
              const status = toServiceError(err, path, this.options);
              call.sendStatus({
                code: status.code ?? Code.INTERNAL,
                details: status.details ?? "",
                ...(status.metadata ? { metadata: status.metadata } : {}),
              });
              return;
            }
            proceed(metadata);
          },
        }),
    });
  };

  /**
   * Listens on `host:port` (port 0 picks a free one) or `unix:/path`.
   * Unix sockets are made owner-only (0600). Returns the address clients should dial.
   */
  async listen(address: string): Promise<string> {
    const target = normalizeAddress(address);
    const port = await new Promise<number>((resolve, reject) => {
      this.grpc.bindAsync(target, ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p)));
    });
    const socket = unixSocketPath(target);
    if (socket) await chmod(socket, 0o600);
    this.boundAddress = socket ? target : `${target.slice(0, target.lastIndexOf(":"))}:${String(port)}`;
    return this.boundAddress;
  }

  get address(): string | undefined {
    return this.boundAddress;
  }

  /** Stops accepting calls; waits up to `graceMs` for running calls, then cancels them. */
  async close(graceMs = 5000): Promise<void> {
    const graceful = new Promise<void>((resolve) => this.grpc.tryShutdown(() => resolve()));
    let timer: NodeJS.Timeout | undefined;
    const forced = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.shutdown.abort();
        this.grpc.forceShutdown();
        resolve();
      }, graceMs);
    });
    await Promise.race([graceful, forced]);
    clearTimeout(timer);
    this.shutdown.abort();
  }
}
