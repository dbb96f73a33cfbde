import { create, isMessage } from "@bufbuild/protobuf";
import type { DescMethod } from "@bufbuild/protobuf";
import { Client as GrpcClient, Metadata, credentials } from "@grpc/grpc-js";
import type {
  CallOptions as GrpcCallOptions,
  ChannelCredentials,
  ChannelOptions,
  ClientDuplexStream,
  ClientReadableStream,
  StatusObject,
} from "@grpc/grpc-js";
import { DEFAULT_MAX_MESSAGE_BYTES, defaultChannelOptions, normalizeAddress } from "./address.js";
import { deserializer, serializer } from "./codec.js";
import { methodPath } from "./definition.js";
import { Code, RpcError } from "./errors.js";
import { appendMetadata } from "./metadata.js";
import { iterateReadable } from "./readable.js";
import type { AnyService, BidiCall, CallOptions, Client } from "./types.js";

export interface ClientOptions {
  /** Deadline for unary and client-streaming calls without their own `timeoutMs` (default 30 s). */
  defaultTimeoutMs?: number;
  /** Deadline for server-streaming and bidi calls without their own (default: none). */
  defaultStreamTimeoutMs?: number;
  maxMessageBytes?: number;
  /** Sent as `authorization: Bearer <token>` on every call. */
  bearerToken?: string;
  /** Extra grpc-js channel options, merged over Palisade's defaults. */
  channelOptions?: ChannelOptions;
  /** Transport security of a new channel (default: none, for unix sockets and loopback). */
  channelCredentials?: ChannelCredentials;
  /** Share one channel between clients of several services. */
  channel?: GrpcClient;
}

type Unsubscribe = () => void;
/** A grpc-js client call: "metadata" carries the response headers, "status" the trailers. */
type ObservableCall = {
  on(event: "metadata", cb: (md: Metadata) => void): unknown;
  on(event: "status", cb: (status: StatusObject) => void): unknown;
};

const RESOLVED: Promise<void> = Promise.resolve();

function linkSignal(signal: AbortSignal | undefined, cancel: () => void): Unsubscribe {
  if (!signal) return () => undefined;
  if (signal.aborted) {
    cancel();
    return () => undefined;
  }
  signal.addEventListener("abort", cancel, { once: true });
  return () => signal.removeEventListener("abort", cancel);
}

/** Opens a raw channel; pass it as `channel` to several `createClient` calls to share it. */
export function openChannel(address: string, options: ClientOptions = {}): GrpcClient {
  const channelOptions = {
    ...defaultChannelOptions(options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES),
    ...options.channelOptions,
  };
  return new GrpcClient(
    normalizeAddress(address),
    options.channelCredentials ?? credentials.createInsecure(),
    channelOptions,
  );
}

/** A typed client for `service` at `address` (`host:port` or `unix:/path`). */
export function createClient<S extends AnyService>(
  service: S,
  address: string,
  options: ClientOptions = {},
): Client<S> {
  const raw = options.channel ?? openChannel(address, options);
  const unaryTimeout = options.defaultTimeoutMs ?? 30_000;
  const streamTimeout = options.defaultStreamTimeoutMs;

  const callOptions = (opts: CallOptions | undefined, streaming: boolean): GrpcCallOptions => {
    const timeout = opts?.timeoutMs ?? (streaming ? streamTimeout : unaryTimeout);
    return timeout === undefined || !Number.isFinite(timeout) ? {} : { deadline: Date.now() + timeout };
  };
  const metadataFor = (opts: CallOptions | undefined, path: string): Metadata => {
    const md = new Metadata();
    if (options.bearerToken) md.set("authorization", `Bearer ${options.bearerToken}`);
    if (opts?.metadata) appendMetadata(md, opts.metadata, `${path} request`);
    return md;
  };

  const client: Record<string, unknown> = {
    close: () => raw.close(),
    waitForReady: (timeoutMs = 10_000) =>
      new Promise<void>((resolve, reject) => {
        raw.waitForReady(Date.now() + timeoutMs, (err) => (err ? reject(RpcError.from(err)) : resolve()));
      }),
  };

  for (const method of service.methods) {
    client[method.localName] = makeMethod(raw, service, method, callOptions, metadataFor);
  }
  return client as Client<S>;
}

function makeMethod(
  raw: GrpcClient,
  service: AnyService,
  method: DescMethod,
  callOptions: (opts: CallOptions | undefined, streaming: boolean) => GrpcCallOptions,
  metadataFor: (opts: CallOptions | undefined, path: string) => Metadata,
): unknown {
  const path = methodPath(service, method);
  /** The call's headers and trailers, to the caller's hooks. */
  const observe = (call: ObservableCall, opts: CallOptions | undefined): void => {
    const { onHeader, onTrailer } = opts ?? {};
    if (onHeader) call.on("metadata", onHeader);
    if (onTrailer) call.on("status", (status: StatusObject) => onTrailer(status.metadata));
  };
  const ser = serializer(method.input) as (v: unknown) => Buffer;
  const de = deserializer(method.output);
  // Already-built messages go straight to the wire; plain init objects are built first.
  const make = (init: unknown): unknown => (isMessage(init, method.input) ? init : create(method.input, init as never));

  switch (method.methodKind) {
    case "unary":
      return (request: unknown, opts?: CallOptions) =>
        new Promise((resolve, reject) => {
          if (opts?.signal?.aborted) {
            reject(new RpcError(Code.CANCELLED, "call cancelled before it started"));
            return;
          }
          const call = raw.makeUnaryRequest(
            path,
            ser,
            de,
            make(request),
            metadataFor(opts, path),
            callOptions(opts, false),
            (err, res) => {
              unlink();
              if (err) reject(RpcError.from(err));
              else resolve(res);
            },
          );
          observe(call, opts);
          const unlink = linkSignal(opts?.signal, () => call.cancel());
        });

    case "client_streaming":
      return async (requests: AsyncIterable<unknown> | Iterable<unknown>, opts?: CallOptions) => {
        let unlink: Unsubscribe = () => undefined;
        const result = new Promise((resolve, reject) => {
          const call = raw.makeClientStreamRequest(
            path,
            ser,
            de,
            metadataFor(opts, path),
            callOptions(opts, false),
            (err, res) => {
              unlink();
              if (err) reject(RpcError.from(err));
              else resolve(res);
            },
          );
          observe(call, opts);
          unlink = linkSignal(opts?.signal, () => call.cancel());
          void (async () => {
            try {
              for await (const item of requests) {
                if (!call.write(make(item))) await new Promise<void>((r) => call.once("drain", r));
              }
              call.end();
            } catch (err) {
              call.cancel();
              reject(RpcError.from(err));
            }
          })();
        });
        return result;
      };

    case "server_streaming":
      return (request: unknown, opts?: CallOptions) => {
        const call = raw.makeServerStreamRequest(
          path,
          ser,
          de,
          make(request),
          metadataFor(opts, path),
          callOptions(opts, true),
        );
        observe(call, opts);
        return readStream(call, opts?.signal);
      };

    case "bidi_streaming":
      return (opts?: CallOptions): BidiCall<unknown, unknown> => {
        const call = raw.makeBidiStreamRequest(path, ser, de, metadataFor(opts, path), callOptions(opts, true));
        observe(call, opts);
        const responses = readStream(call, opts?.signal);
        return {
          send: (message: unknown) => {
            try {
              if (call.write(make(message))) return RESOLVED;
            } catch (err) {
              return Promise.reject(RpcError.from(err));
            }
            return new Promise<void>((resolve) => call.once("drain", () => resolve()));
          },
          end: () => call.end(),
          cancel: () => call.cancel(),
          [Symbol.asyncIterator]: () => responses[Symbol.asyncIterator](),
        };
      };
  }
}

/** Adapts a grpc-js readable call to an AsyncIterable that throws RpcError on failure. */
function readStream(
  call: ClientReadableStream<unknown> | ClientDuplexStream<unknown, unknown>,
  signal: AbortSignal | undefined,
): AsyncIterable<unknown> {
  const unlink = linkSignal(signal, () => call.cancel());
  const inner = iterateReadable<unknown>(call, (err) => RpcError.from(err), { onDone: unlink });
  return {
    [Symbol.asyncIterator]: () => {
      const it = inner[Symbol.asyncIterator]();
      return {
        next: () => it.next(),
        return: async () => {
          // The consumer stopped early: stop the call too.
          unlink();
          call.cancel();
          return it.return ? it.return() : { value: undefined, done: true };
        },
      };
    },
  };
}
