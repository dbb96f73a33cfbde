import { setMaxListeners } from "node:events";
import { chmod } from "node:fs/promises";
import { create, isMessage } from "@bufbuild/protobuf";
import type { DescMessage, DescMethod, DescService, MessageShape } from "@bufbuild/protobuf";
import { Server, ServerCredentials } from "@grpc/grpc-js";
import type {
  Metadata,
  ServerDuplexStream,
  ServerReadableStream,
  ServerUnaryCall,
  ServerWritableStream,
  ServiceError,
  UntypedHandleCall,
  sendUnaryData,
} from "@grpc/grpc-js";
import { DEFAULT_MAX_MESSAGE_BYTES, normalizeAddress, unixSocketPath } from "./address.js";
import { methodPath, toServiceDefinition } from "./definition.js";
import { iterateReadable } from "./readable.js";
import { Code, RpcError } from "./errors.js";
import type { AnyService, CallContext, ServiceImpl } from "./types.js";

/** Decides whether a call may proceed; throw an RpcError (e.g. UNAUTHENTICATED) to refuse it. */
export type Authorizer = (metadata: Metadata, path: string) => void;

export interface ServerOptions {
  maxMessageBytes?: number;
  authorize?: Authorizer;
  /** Called with errors that are not RpcErrors before they become INTERNAL statuses. */
  onInternalError?: (err: unknown, path: string) => void;
}

type AnyHandler = (...args: never[]) => unknown;
type Writable<T> = { write(msg: T): boolean; once(ev: "drain", cb: () => void): unknown };

function toServiceError(err: unknown, path: string, options: ServerOptions): Partial<ServiceError> {
  if (err instanceof RpcError) return { code: err.code, details: err.message, metadata: err.metadata };
  options.onInternalError?.(err, path);
  const message = err instanceof Error ? err.message : String(err);
  return { code: Code.INTERNAL, details: message };
}

interface AnyCall {
  metadata: Metadata;
  getPeer(): string;
  on(event: "cancelled", cb: () => void): unknown;
  removeListener(event: "cancelled", cb: () => void): unknown;
  cancelled: boolean;
}

/**
 * The handler's context. `done` runs once the handler has finished: grpc-js reports every call as
 * "cancelled" after its status is sent (its end-of-call cleanup), so the listener must be gone by
 * then, or each finished call would abort its signal with a spurious CANCELLED error.
 */
function contextFor(call: AnyCall, path: string, shutdown: AbortSignal): { ctx: CallContext; done: () => void } {
  const controller = new AbortController();
  const onCancel = (): void => controller.abort(new RpcError(Code.CANCELLED, "call cancelled by the client"));
  const onShutdown = (): void => controller.abort(new RpcError(Code.UNAVAILABLE, "server shutting down"));
  call.on("cancelled", onCancel);
  if (call.cancelled) onCancel();
  shutdown.addEventListener("abort", onShutdown, { once: true });
  return {
    ctx: { signal: controller.signal, metadata: call.metadata, peer: call.getPeer(), path },
    done: () => {
      call.removeListener("cancelled", onCancel);
      shutdown.removeEventListener("abort", onShutdown);
    },
  };
}

async function writeAll<T extends DescMessage>(
  schema: T,
  call: Writable<MessageShape<T>>,
  source: AsyncIterable<unknown>,
  signal: AbortSignal,
): Promise<void> {
  for await (const item of source) {
    if (signal.aborted) return;
    const ok = call.write(isMessage(item, schema) ? item : create(schema, item as never));
    if (!ok) await new Promise<void>((resolve) => call.once("drain", resolve));
  }
}

function requestsOf(call: ServerReadableStream<unknown, unknown> | ServerDuplexStream<unknown, unknown>, signal: AbortSignal): AsyncIterable<unknown> {
  const requests = iterateReadable<unknown>(call, (err) => RpcError.from(err));
  const onAbort = (): void => requests.fail(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  return requests;
}

function wrapHandler(
  service: DescService,
  method: DescMethod,
  handler: AnyHandler,
  options: ServerOptions,
  shutdown: AbortSignal,
): UntypedHandleCall {
  const path = methodPath(service, method);
  const authorize = (md: Metadata): void => options.authorize?.(md, path);
  const fail = (err: unknown): Partial<ServiceError> => toServiceError(err, path, options);
  const fn = handler as (a: unknown, ctx: CallContext) => unknown;

  switch (method.methodKind) {
    case "unary":
      return (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
        const { ctx, done } = contextFor(call, path, shutdown);
        Promise.resolve()
          .then(() => {
            authorize(call.metadata);
            return fn(call.request, ctx);
          })
          .then(
            (res) => callback(null, create(method.output, res as never)),
            (err: unknown) => callback(fail(err)),
          )
          .finally(done);
      };
    case "client_streaming":
      return (call: ServerReadableStream<unknown, unknown>, callback: sendUnaryData<unknown>) => {
        const { ctx, done } = contextFor(call, path, shutdown);
        Promise.resolve()
          .then(() => {
            authorize(call.metadata);
            return fn(requestsOf(call, ctx.signal), ctx);
          })
          .then(
            (res) => callback(null, create(method.output, res as never)),
            (err: unknown) => callback(fail(err)),
          )
          .finally(done);
      };
    case "server_streaming":
      return (call: ServerWritableStream<unknown, unknown>) => {
        const { ctx, done } = contextFor(call, path, shutdown);
        Promise.resolve()
          .then(() => {
            authorize(call.metadata);
            return writeAll(method.output, call, fn(call.request, ctx) as AsyncIterable<unknown>, ctx.signal);
          })
          .then(
            () => call.end(),
            (err: unknown) => call.emit("error", fail(err)),
          )
          .finally(done);
      };
    case "bidi_streaming":
      return (call: ServerDuplexStream<unknown, unknown>) => {
        const { ctx, done } = contextFor(call, path, shutdown);
        Promise.resolve()
          .then(() => {
            authorize(call.metadata);
            return writeAll(method.output, call, fn(requestsOf(call, ctx.signal), ctx) as AsyncIterable<unknown>, ctx.signal);
          })
          .then(
            () => call.end(),
            (err: unknown) => call.emit("error", fail(err)),
          )
          .finally(done);
      };
  }
}

/** A grpc-js server hosting typed implementations of protobuf-es services. */
export class RpcServer {
  readonly grpc: Server;
  private readonly options: ServerOptions;
  private readonly shutdown = new AbortController();
  private boundAddress: string | undefined;

  constructor(options: ServerOptions = {}) {
    this.options = options;
    // Every call in flight listens for shutdown: hundreds at once are normal, not a leak.
    setMaxListeners(0, this.shutdown.signal);
    const max = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.grpc = new Server({
      "grpc.max_receive_message_length": max,
      "grpc.max_send_message_length": max,
      // channelz (grpc's introspection service) is never served here; its per-call
      // bookkeeping is pure cost.
      "grpc.enable_channelz": 0,
    });
  }

  add<S extends AnyService>(service: S, impl: ServiceImpl<S>): this {
    const handlers: Record<string, UntypedHandleCall> = {};
    const table = impl as unknown as Record<string, AnyHandler | undefined>;
    for (const method of service.methods) {
      const handler = table[method.localName];
      if (!handler) throw new Error(`${service.typeName}: no handler for ${method.name}`);
      handlers[method.localName] = wrapHandler(service, method, handler.bind(impl), this.options, this.shutdown.signal);
    }
    this.grpc.addService(toServiceDefinition(service), handlers);
    return this;
  }

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
